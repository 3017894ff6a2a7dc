/**
 * Aliases listql generates for its own sub-queries and joins start with this prefix. Base scopes must not use
 * it: MikroORM's own aliases are a letter and a number (`p1`), so `lq…` never collides with them.
 */
export const ALIAS_PREFIX = 'lq';

/** Hands out fresh aliases for one query: `lq1`, `lq2`, … */
export type AliasGenerator = () => string;

/** Create an alias generator for one query; each query gets its own counter. */
export function createAliasGenerator(): AliasGenerator {
  let counter = 0;
  return () => `${ALIAS_PREFIX}${++counter}`;
}

/** Tell whether an alias lies in the reserved namespace (so a base scope using it can be refused). */
export function isReservedAlias(alias: string): boolean {
  return new RegExp(`^${ALIAS_PREFIX}\\d+$`).test(alias);
}
