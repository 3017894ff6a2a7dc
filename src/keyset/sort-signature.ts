import { createHash } from 'node:crypto';

const DOMAIN = 'listql/cursor/v1';

/**
 * Derive the opaque sort signature of cursor v1: base64url of the first 18 bytes of SHA-256 over a fixed domain
 * string and the given parts (root entity, then each effective sort term's table, column, join path, type and
 * direction). Each part is length-prefixed, so no two different lists of parts hash the same input.
 */
export function sortSignature(parts: readonly string[]): string {
  const hash = createHash('sha256');
  for (const part of [DOMAIN, ...parts]) {
    const bytes = Buffer.from(part, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length);
    hash.update(bytes);
  }
  return hash.digest().subarray(0, 18).toString('base64url');
}
