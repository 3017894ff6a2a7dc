import type { Platform } from '@mikro-orm/core';
import { type CursorKey, orderAlias } from '../cursor/keys.ts';
import type { AnyQueryBuilder } from '../plan/apply-resolved.ts';
import type { SqlFragment } from '../plan/fragment.ts';
import { orderByOf } from '../plan/order.ts';

/**
 * Tell whether continuation pages of this sort are sent as a UNION ALL of seekable branches. On PostgreSQL, a
 * nullable key's `k < c or k is null` cannot start an index scan, so every page would scan all rows before the
 * cursor; split into branches, each one seeks on an index over `(k <dir> nulls last, …, pk)`. SQLite reads its
 * pages in-process (the scan costs little) and does not accept parenthesized branches. Sorts through a relation
 * keep the plain predicate.
 */
export function seeksByUnion(dialect: string, keys: readonly CursorKey[]): boolean {
  // Only root columns: a key through a relation is ordered after a join, which no index on the root can serve, and
  // each branch would repeat the join and the filter's sub-queries for nothing.
  return dialect === 'postgresql' && keys.some((k) => k.sort.nullable) && keys.every((k) => k.sort.alias === undefined);
}

/**
 * Build one statement for the page after a cursor: each branch is the planned page query (its order, and its
 * limit of `limit + 1`) narrowed to one branch of the keyset predicate; the outer query orders their rows by the
 * selected sort columns and keeps the first `limit + 1`. The branches are disjoint and together are exactly the
 * rows after the cursor, so the page equals the one the plain predicate gives. A backward page passes mirrored keys
 * (see mirrorSort) and the mirrored branches: the outer query then orders as its branches do, NULLS FIRST included.
 *
 * @example
 * // select * from ((select … where … and ("b"."score" < $1) order by "b"."score" desc nulls last, "b"."id" limit $2)
 * //   union all (… "b"."score" is null …) union all (… "b"."score" = $5 and "b"."id" > $6 …)) as "b"
 * // order by "b"."lq_o0" desc nulls last, "b"."lq_o1" asc limit $9
 */
export function unionPage(
  qb: AnyQueryBuilder,
  branches: readonly SqlFragment[],
  keys: readonly CursorKey[],
  platform: Platform,
  limit: number,
): AnyQueryBuilder {
  const parts = branches.map((branch) => qb.clone().andWhere(branch.sql, [...branch.params]));
  const [first, ...rest] = parts as [AnyQueryBuilder, ...AnyQueryBuilder[]];
  const outer = qb.clone(true);
  outer.from(first.unionAll(...rest), qb.alias);
  const order = keys.map((k, i) => ({ ...k.sort, column: orderAlias(i), alias: qb.alias }));
  outer.orderBy(orderByOf(platform, qb.alias, order));
  outer.limit(limit);
  return outer;
}
