/**
 * Relay global ids: base64url (no padding) of `<Type>:<key>`, the key written as its item value (`Book:7`), or for a
 * composite key as the JSON array of its values (`Edition:[3,"en"]`). Opaque to clients; unique across a schema
 * because the type name is inside.
 */

/** Make the global id of an item of `typeName` from its key values, in the key's order. */
export function globalIdOf(typeName: string, key: readonly unknown[]): string {
  const text = key.length === 1 ? String(key[0]) : JSON.stringify(key);
  return Buffer.from(`${typeName}:${text}`, 'utf8').toString('base64url');
}

/** A global id read back: the type it names and the key values as text (one per key property). */
export interface DecodedId {
  readonly typeName: string;
  readonly key: readonly string[];
}

/** The longest global id read back: far above any real key, far below anything costly. */
const MAX_ID_LENGTH = 1024;

/**
 * Read a global id back; undefined when it is not one (wrong alphabet or length, no type, or a composite key that is
 * not a JSON array of `size` strings or numbers).
 */
export function decodeGlobalId(id: string, keySize: (typeName: string) => number | undefined): DecodedId | undefined {
  if (id.length === 0 || id.length > MAX_ID_LENGTH || !/^[A-Za-z0-9_-]+$/.test(id)) return undefined;
  const text = Buffer.from(id, 'base64url').toString('utf8');
  // A string that is not the canonical base64url of its bytes (or not UTF-8) was not made by globalIdOf.
  if (Buffer.from(text, 'utf8').toString('base64url') !== id) return undefined;
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  const typeName = text.slice(0, colon);
  const rest = text.slice(colon + 1);
  const size = keySize(typeName);
  if (size === undefined) return { typeName, key: [] };
  if (size === 1) return { typeName, key: [rest] };
  let values: unknown;
  try {
    values = JSON.parse(rest);
  } catch {
    return undefined;
  }
  if (!Array.isArray(values) || values.length !== size) return undefined;
  if (!values.every((v) => typeof v === 'string' || typeof v === 'number')) return undefined;
  return { typeName, key: values.map(String) };
}
