import type { SortKey } from '../plan/order.ts';
import type { Paging } from '../plan/paging.ts';
import type { CursorKey } from './cursor-plan.ts';

/**
 * Mirror an effective sort for a backward page: every key's direction flips and its NULLs move to the other end
 * (NULLS LAST becomes NULLS FIRST), so the rows before a position in the order are the rows after it in the mirror.
 */
export function mirrorSort<K extends SortKey>(keys: readonly K[]): K[] {
  return keys.map((key) => ({
    ...key,
    direction: key.direction === 'asc' ? 'desc' : 'asc',
    nullsFirst: !key.nullsFirst,
  })) as K[];
}

/** Mirror a page's cursor keys for reading backward: each key's sort flips, its shape and JSON spec stay. */
export function mirrorKeys(keys: readonly CursorKey[]): CursorKey[] {
  return keys.map((k) => ({ ...k, sort: mirrorSort([k.sort])[0]! }));
}

/** The rows of one page in the requested order, and which neighbours the page has. */
export interface TurnedPage<R> {
  readonly rows: R[];
  /** Rows precede the page: a prevCursor is due. */
  readonly hasPrevious: boolean;
  /** Rows follow the page: a nextCursor is due. */
  readonly hasNext: boolean;
  /** Forward: more rows follow the page. Backward: more rows precede it. */
  readonly hasMore: boolean;
}

/**
 * Cut the `limit + 1` rows a page query read down to the page, in the requested order. Forward, the extra row says
 * more rows follow. Backward, rows came in mirrored order: the extra row (read first, nearest the start) says more
 * rows precede, and the page is turned back. `from`: the page was read from a cursor's position.
 */
export function turnPage<R>(rows: R[], paging: Paging, from: boolean, backward: boolean): TurnedPage<R> {
  const extra = rows.length > paging.limit;
  const page = extra ? rows.slice(0, paging.limit) : rows;
  if (backward) page.reverse();
  // Rows before the page exist after an offset or a cursor (no extra query); on a backward page, exactly when read.
  const hasPrevious = backward ? extra : from || (paging.offset ?? 0) > 0;
  // A backward page from a cursor always has rows after it (the cursor's own row at least): it continues after its
  // last item. One read from the end of the list has none.
  const hasNext = backward ? from : extra;
  return { rows: page, hasPrevious, hasNext, hasMore: backward ? hasPrevious : extra };
}
