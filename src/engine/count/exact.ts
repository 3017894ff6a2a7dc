import { QueryFlag } from '@mikro-orm/sql';
import type { BoundSchema, ResolvedFilter } from '../../bind/types.ts';
import type { StatementGuard } from '../../dialect/index.ts';
import { selectsRootRows } from '../../orm/qb-state.ts';
import { type AnyQueryBuilder, type ApplyOptions, applyFilter, type FilterParams } from '../../plan/plan-query.ts';
import { runAbortable } from '../abort.ts';
import { executeCountOwned, executeOwned, shapeCount } from '../execute.ts';

/**
 * Count the rows of the scope (base scope, root filters and search already on `qb`, a private copy the count
 * may change) that match the filter: exact, each root row once even when the base scope joins to-many or selects
 * distinct, with no sort joins and no cursor, limit or offset. Runs one query, with bound parameters; `inProcess`
 * is the dialect's (an event-loop turn before the statement only where statements hold the loop: runAbortable).
 */
export async function countRows(
  qb: AnyQueryBuilder,
  bound: BoundSchema,
  filter: ResolvedFilter | undefined,
  options: ApplyOptions,
  guard: StatementGuard,
  inProcess: boolean,
): Promise<number> {
  countQuery(qb, bound, filter, options);
  if (!isPlainCount(qb)) return runAbortable(guard.signal, () => executeCountOwned(qb, guard), inProcess);
  // executeCountOwned() would shape it again as `count(distinct …)`: send the plain count as it is.
  const rows = await runAbortable(guard.signal, () => executeOwned<{ count?: unknown }>(qb, guard, false), inProcess);
  // PostgreSQL returns counts as strings (bigint); SQLite and MySQL as numbers.
  return Number(rows[0]?.count ?? 0);
}

/**
 * Narrow a copy of the scope to the filter and shape it as the count query: each root row once, no order or page.
 * A scope whose rows are its root rows (no join but to-one ones, no `distinct`, no grouping) counts `count(*)`,
 * as MikroORM's own count does; any other counts each root key once, `count(distinct …)`, which the database
 * pays for with a sort or a hash of every matching key.
 */
export function countQuery(
  qb: AnyQueryBuilder,
  bound: BoundSchema,
  filter: ResolvedFilter | undefined,
  options: ApplyOptions,
  filterParams?: FilterParams,
): AnyQueryBuilder {
  if (filter) applyFilter(qb, bound, filter, options, filterParams);
  if (!rowsAreRootRows(qb)) return shapeCount(qb);
  qb.count(undefined, false);
  qb.limit(undefined).offset(undefined).orderBy([]);
  return qb;
}

/** Whether a count query countQuery() shaped counts every row, `count(*)` (not each root key once). */
function isPlainCount(qb: AnyQueryBuilder): boolean {
  return !qb.hasFlag(QueryFlag.DISTINCT);
}

/**
 * Whether each row the scope selects is a distinct root row: it joins only to-one relations (a many-to-one or a
 * one-to-one row is at most one per root row), does not select `distinct` and does not group.
 */
function rowsAreRootRows(qb: AnyQueryBuilder): boolean {
  return !qb.hasFlag(QueryFlag.DISTINCT) && selectsRootRows(qb);
}
