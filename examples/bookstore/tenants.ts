/**
 * The tenants of the seed. A real application derives the tenant from authentication; the example takes it from
 * the `x-tenant` header (the API) or `--tenant` (the export script), and refuses any other value.
 */

/** The tenant ids clients may name, as they are written. */
export const TENANTS: readonly string[] = ['1', '2'];

/** Read a tenant id as written by a client; undefined when it is not one of the seed's tenants. */
export function parseTenant(text: string): number | undefined {
  return TENANTS.includes(text) ? Number(text) : undefined;
}
