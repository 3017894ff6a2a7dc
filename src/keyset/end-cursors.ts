import type { CursorValue } from './cursor-codec.ts';

/**
 * The cursors after a page's first and last items, for a page and for a nested page alike: one for a page of one
 * item, none for an empty page. `after` encodes the cursor after an item's keys; the last one is the page's
 * `nextCursor` when it has one already.
 */
export function endCursors(
  first: readonly CursorValue[] | undefined,
  last: readonly CursorValue[] | undefined,
  rows: number,
  nextCursor: string | undefined,
  after: (keys: readonly CursorValue[]) => string,
): string[] {
  if (rows === 0 || !first) return [];
  const head = after(first);
  if (rows === 1 || !last) return [head];
  return [head, nextCursor ?? after(last)];
}
