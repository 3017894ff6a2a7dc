import { setBounded } from '../bounded-map.ts';
import type { SqlText } from '../dialect/types.ts';

/**
 * SQL whose values must stay bound where MikroORM would inline them: a QueryBuilder writes the values of a raw
 * fragment in its select list or ORDER BY into the text (`raw('(select count(*) … > ?)', [4])` compiles to `… > 4`),
 * and keeps `?` only in its where clause. An aggregate sort key needs its sub-query, with the inner filter's values, in
 * all three places. So the builder gets a marker instead, a comment naming the fragment (`/*listql:12*\/`), and
 * bindStatement (bound-sql.ts) puts the fragment in the marker's place with its values as parameters, in order.
 *
 * Fragments are kept for the most recent MAX_FRAGMENTS markers: a marker names one planned statement's fragment, and
 * a statement is sent right after it is planned. A marker found no more fails the statement; it never sends other SQL.
 */
const fragments = new Map<number, SqlText>();
const MAX_FRAGMENTS = 10_000;
let next = 0;

/** The text that opens a marker; its number and `*` `/` follow. */
export const MARKER_OPEN = '/*listql:';

/** Keep a fragment and return the marker that stands for it in SQL text. */
export function deferSql(fragment: SqlText): string {
  next = next >= Number.MAX_SAFE_INTEGER ? 1 : next + 1;
  setBounded(fragments, next, fragment, MAX_FRAGMENTS);
  return `${MARKER_OPEN}${next}*/`;
}

/** The fragment of the marker at `index` of `text` and the index after the marker, or undefined when none is there. */
export function deferredAt(
  text: string,
  index: number,
): { readonly fragment: SqlText; readonly end: number } | undefined {
  if (!text.startsWith(MARKER_OPEN, index)) return undefined;
  const close = text.indexOf('*/', index);
  const id = Number(text.slice(index + MARKER_OPEN.length, close));
  const fragment = close < 0 || !Number.isSafeInteger(id) ? undefined : fragments.get(id);
  if (!fragment) throw new Error('listql: a deferred SQL fragment is no longer known');
  return { fragment, end: close + 2 };
}
