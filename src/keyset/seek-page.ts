import type { Platform } from '@mikro-orm/core';
import type { Dialect } from '../dialect/index.ts';
import { type AnyQueryBuilder, compiledBuilder } from '../orm/query-builder.ts';
import { emulatesNulls, orderByOf, type SortKey } from '../plan/order.ts';
import type { Paging } from '../plan/paging.ts';
import { mirrorKeys } from './backward.ts';
import type { CursorValue } from './cursor-codec.ts';
import type { CursorKey } from './cursor-plan.ts';
import { keysetColumns, outerOrder } from './key-columns.ts';
import {
  type KeysetBranch,
  type KeysetColumn,
  keysetBranches,
  keysetPredicate,
  keysetUnits,
  leadingGroupBranches,
} from './seek-predicate.ts';

/**
 * Narrow the planned page query to the rows after `at` (or, backward, before it): one predicate, or a UNION ALL of
 * seekable branches (see seekAfter); without `at`, the first page (see seekFirst). A backward page is the forward
 * plan mirrored (every key's direction and NULL placement flip), read backwards along the same index.
 */
export function continuePage(
  qb: AnyQueryBuilder,
  dialect: Dialect,
  platform: Platform,
  planned: readonly CursorKey[],
  paging: Paging,
  at: readonly CursorValue[] | undefined,
  backward: boolean,
): AnyQueryBuilder {
  const keys = backward ? mirrorKeys(planned) : planned;
  const sorts = keys.map((k) => k.sort);
  if (backward) qb.orderBy(orderByOf(platform, dialect, qb.alias, sorts) as never);
  // A first page: as planned, or on MySQL, seekable parts (see seekFirst); backward, the last page, mirrored.
  if (at === undefined)
    return seekFirst(qb, dialect, () => keysetColumns(qb, keys, platform, dialect), keys, platform, paging);
  const columns = keysetColumns(qb, keys, platform, dialect);
  return seekAfter(qb, dialect, columns, at, keys, platform, paging.limit + 1);
}

/**
 * Tell whether continuation pages of this sort are sent as seekable branches (see seekAfter). On PostgreSQL and
 * SQLite, a nullable key's `k < c or k is null` cannot start an index scan, so every page would scan all rows
 * before the cursor (on SQLite, 20 ms for a page 180,000 rows deep, against 0.4 ms for the first); split into
 * branches, each one seeks on an index over `(k <dir>, …, pk)`. On MySQL and MariaDB the same holds, and a nullable
 * key's emulated NULL placement (`k is null, k asc`) is an order no index serves: each branch is ordered by plain
 * terms instead. On PostgreSQL and SQLite, NOT NULL keys of mixed directions are split too, in two (see
 * splitsLeadingGroup). Sorts through a relation keep the plain predicate.
 */
export function seeksByUnion(dialect: Dialect, keys: readonly CursorKey[]): boolean {
  // Only root columns: a key through a relation is ordered after a join (an aggregate key after its sub-query), which
  // no index on the root can serve, and each branch would repeat the join and the filter's sub-queries for nothing.
  if (!keys.every((k) => k.sort.alias === undefined && k.sort.expression === undefined)) return false;
  if (keys.some((k) => k.sort.nullable)) return dialect.seeksNullableByUnion;
  return splitsLeadingGroup(dialect, keys);
}

/**
 * Tell whether a sort of NOT NULL root keys is split at its leading group (see leadingGroupBranches): on PostgreSQL
 * and SQLite, when its keys make three keyset units or more, that is when the sort names keys of mixed directions
 * (`price,-createdAt`, then the primary key). A client names a second key because the first repeats, so the plain
 * predicate's filter over the cursor's leading group is long (1,000 rows a price in the bench). A single named key
 * and the tie-breaker (`-createdAt`) keep the one predicate: its key is often unique, and two branches cost more to
 * plan than such a group costs to filter.
 */
function splitsLeadingGroup(dialect: Dialect, keys: readonly CursorKey[]): boolean {
  return (
    dialect.seeksMixedByUnion &&
    keysetUnits(
      keys.map((k) => k.sort),
      dialect.rowValueSeek,
    ) >= 3
  );
}

/**
 * Narrow a planned page query (ordered in `keys`' order, limited to `limit`) to the rows after `at` in that order.
 *
 * - PostgreSQL and SQLite: one keyset predicate with row values, or, when a root key is nullable, a UNION ALL of
 *   seekable branches (unionPage); NOT NULL root keys of mixed directions, a UNION ALL of the cursor's leading group
 *   and the rows after it (leadingGroupBranches).
 * - MySQL and MariaDB: no row values (MariaDB reads `(a, id) > (?, ?)` as a filter over a full index scan, never a
 *   range), so the expanded form with its leading bound. With a nullable root key, each branch of the split
 *   predicate is its own query ordered by plain terms (the keys it holds constant left out), so each seeks; more
 *   than one branch become a UNION ALL.
 */
export function seekAfter(
  qb: AnyQueryBuilder,
  dialect: Dialect,
  columns: readonly KeysetColumn[],
  at: readonly unknown[],
  keys: readonly CursorKey[],
  platform: Platform,
  limit: number,
): AnyQueryBuilder {
  const rowValues = dialect.rowValueSeek;
  // Where NULL placement is emulated, one branch is its own query too: ordered by plain terms, it seeks.
  const plainOrder = dialect.emulatesNullsOrder;
  if (seeksByUnion(dialect, keys) && !(plainOrder && oneRange(keys, at))) {
    const branches = keys.some((k) => k.sort.nullable)
      ? keysetBranches(columns, at, { rowValues, always: plainOrder })
      : leadingGroupBranches(columns, at, { rowValues });
    if (branches) return unionPage(qb, branches, keys, platform, dialect, limit);
  }
  const predicate = keysetPredicate(columns, at, { rowValues });
  const hint = dialect.keysetHint?.(predicate.sql);
  if (hint) qb.comment(hint);
  return qb.andWhere(predicate.sql, [...predicate.params]);
}

/**
 * Tell whether, on MySQL and MariaDB, the plain keyset predicate already reads the page as one index range: no key
 * needs an emulated NULL placement (NULL sorts as the smallest value, so a descending nullable key, or an ascending
 * one with its NULLs first, is in plain index order) and the cursor holds no NULL. MariaDB then turns
 * `score < ? or score is null or (score = ? and id > ?)` into ranges read in the order of an index on
 * `(score desc, id)`, up to the page, with no sort; a UNION ALL of the same ranges would add a sort outside. From a
 * position among the NULLs, the split (`score is null and id > ?`, ordered by `id` alone) is what seeks.
 */
function oneRange(keys: readonly CursorKey[], at: readonly unknown[]): boolean {
  return keys.every((k, i) => !emulatesNulls(k.sort) && at[i] !== null);
}

/**
 * Plan a first page (no cursor). On MySQL and MariaDB, a leading nullable root key sorted NULLS LAST ascending has
 * an emulated order (`k is null, k asc, …`) that no index serves: every first page would sort all the rows it
 * selects. Sent instead as a UNION ALL of its values (`k is not null`, ordered `k asc, …`) and its NULLs (`k is null`,
 * ordered by the keys after it), each read in index order up to the limit. Every other first page is `qb` as
 * planned, and so is an offset page (its rows are counted across both parts).
 */
export function seekFirst(
  qb: AnyQueryBuilder,
  dialect: Dialect,
  columns: () => readonly KeysetColumn[],
  keys: readonly CursorKey[],
  platform: Platform,
  paging: Paging,
): AnyQueryBuilder {
  const lead = keys[0]?.sort;
  if (!dialect.emulatesNullsOrder || !lead || !emulatesNulls(lead) || !seeksByUnion(dialect, keys) || paging.offset)
    return qb;
  const column = columns()[0]!.sql;
  const branches: KeysetBranch[] = [
    { sql: `(${column} is not null)`, params: [], settled: 0, nonNull: 1 },
    { sql: `(${column} is null)`, params: [], settled: 1, nonNull: 0 },
  ];
  return unionPage(qb, branches, keys, platform, dialect, paging.limit + 1);
}

/**
 * Build one statement for the page after a cursor: each branch is the planned page query (its order, and its
 * limit of `limit + 1`) narrowed to one branch of the keyset predicate; the outer query orders their rows by the
 * selected sort columns and keeps the first `limit + 1`. The branches are disjoint and together are exactly the
 * rows after the cursor, so the page equals the one the plain predicate gives. A backward page passes mirrored keys
 * (see mirrorSort) and the mirrored branches: the outer query then orders as its branches do, NULLS FIRST included.
 * Where the dialect emulates NULL placement (MySQL, MariaDB), each branch is ordered by branchOrder's plain terms, and
 * a single branch is the page query itself. On SQLite each branch is a sub-query (see subqueryCompound).
 *
 * @example
 * // select * from ((select … where … and ("b"."score" < $1) order by "b"."score" desc nulls last, "b"."id" limit $2)
 * //   union all (… "b"."score" is null …) union all (… "b"."score" = $5 and "b"."id" > $6 …)) as "b"
 * // order by "b"."lq_k0" desc nulls last, "b"."lq_k1" asc limit $9
 */
export function unionPage(
  qb: AnyQueryBuilder,
  branches: readonly KeysetBranch[],
  keys: readonly CursorKey[],
  platform: Platform,
  dialect: Dialect,
  limit: number,
): AnyQueryBuilder {
  const plainOrder = dialect.emulatesNullsOrder;
  const parts = branches.map((branch) => {
    const part = branches.length === 1 ? qb : qb.clone();
    part.andWhere(branch.sql, [...branch.params]);
    if (plainOrder)
      part.orderBy(
        orderByOf(
          platform,
          dialect,
          qb.alias,
          branchOrder(
            keys.map((k) => k.sort),
            branch,
          ),
        ) as never,
      );
    return part;
  });
  if (parts.length === 1) return parts[0]!;
  const outer = qb.clone(true);
  const bySubquery = dialect.compoundsBySubquery;
  if (!bySubquery) {
    const [first, ...rest] = parts as [AnyQueryBuilder, ...AnyQueryBuilder[]];
    outer.from(first.unionAll(...rest), qb.alias);
  }
  // The selected order columns hold what each key orders by (folded, for a case-insensitive key): no folding again.
  const order = outerOrder(qb, keys, dialect, platform);
  outer.orderBy(orderByOf(platform, dialect, qb.alias, order));
  outer.limit(limit);
  return bySubquery ? subqueryCompound(qb, outer, parts, platform, dialect.seekParameter) : outer;
}

/**
 * The UNION ALL page as SQLite takes it: each branch wrapped as `select * from (…)`, their compound read under the
 * root alias by `outer` (its select list, order and limit), which otherwise reads the root table. Each limit (a
 * branch's, ending it, and the outer one) is sent as `parameter` (Dialect.seekParameter). The statement is sent as
 * compiled text, on `qb`'s EntityManager and connection, mapping rows to its root entity.
 */
function subqueryCompound(
  qb: AnyQueryBuilder,
  outer: AnyQueryBuilder,
  parts: readonly AnyQueryBuilder[],
  platform: Platform,
  parameter: string,
): AnyQueryBuilder {
  const limited = (sql: string) => (sql.endsWith(LIMIT) ? `${sql.slice(0, -1)}${parameter}` : sql);
  const compiled = parts.map((part) => part.toQuery());
  const union = compiled.map((c) => `select * from (${limited(c.sql)})`).join(' union all ');
  const shell = outer.toQuery();
  // The outer query reads the root table with no condition: its FROM clause ends where its ORDER BY starts, and its
  // values (the limit) all come after that.
  const from = shell.sql.indexOf(' from ');
  const tail = shell.sql.slice(shell.sql.lastIndexOf(' order by '));
  if (from < 0 || tail.split('?').length - 1 !== shell.params.length)
    throw new Error('listql: unexpected outer query of a UNION ALL page');
  const sql = `${shell.sql.slice(0, from)} from (${union}) as ${platform.quoteIdentifier(qb.alias)}${limited(tail)}`;
  return compiledBuilder(qb, sql, [...compiled.flatMap((c) => c.params), ...shell.params]);
}

/** How a branch's statement and the outer one end, as MikroORM renders their limit. */
const LIMIT = ' limit ?';

/**
 * The order of one branch, equal to the whole order on the branch's rows: the keys it holds constant are left out,
 * and the keys it compares cannot be NULL there, so they need no NULL placement (on MySQL and MariaDB, no emulated
 * `k is null` term: an index on the keys serves the branch's order and its range at once).
 *
 * @example branchOrder([score asc nullable, id asc], branch `score = ? and id > ?`) // [id asc]
 */
export function branchOrder<K extends SortKey>(keys: readonly K[], branch: KeysetBranch): K[] {
  return keys.slice(branch.settled).map((key, i) => {
    if (i >= branch.nonNull || !key.nullable) return key;
    const { nullsFirst: _, ...rest } = key;
    return { ...rest, nullable: false } as K;
  });
}
