import { QueryFlag } from '@mikro-orm/sql';
import type { BoundSchema, ResolvedFilter } from '../../bind/types.ts';
import type { Dialect, RowEstimate, StatementGuard } from '../../dialect/index.ts';
import { invalidParameter, queryFailed } from '../../errors.ts';
import { joinsToMany } from '../../orm/qb-state.ts';
import { type AnyQueryBuilder, type ApplyOptions, applyFilter } from '../../plan/plan-query.ts';
import { runAbortable } from '../abort.ts';
import { executePrefixedOwned } from '../execute.ts';

/**
 * Refuse `count=estimated` where listql offers no row estimate; throws `invalid_parameter` before any query.
 * SQLite's planner gives no row estimates; MySQL's and MariaDB's EXPLAIN gives rows examined per table, not rows
 * returned, often far off for a filtered scope. A silent exact count would run the full scan the client asked to avoid.
 */
export function checkEstimateAvailable(dialect: Dialect): RowEstimate {
  if (!dialect.estimate)
    throw invalidParameter('count', `estimated counts are not available on ${dialect.label}; use count=true`);
  return dialect.estimate;
}

/**
 * Estimate how many root rows of the scope (base scope, root filters and search already on `qb`, a private copy)
 * match the filter: the planner's row estimate over the rows query (root key columns, each root row once, no order,
 * limit or offset); on PostgreSQL, "Plan Rows" of the top node of `explain (format json)`. Nothing is read but the
 * plan; values are bound.
 *
 * @example estimateRows(qb, bound, filter, options, guard, dialect)
 * // explain (format json) select "b"."id" from "book" as "b" where "b"."deleted_at" is null and ("b"."price" > $1)
 */
export async function estimateRows(
  qb: AnyQueryBuilder,
  bound: BoundSchema,
  filter: ResolvedFilter | undefined,
  options: ApplyOptions,
  guard: StatementGuard,
  dialect: Dialect,
): Promise<number> {
  const estimate = checkEstimateAvailable(dialect);
  estimateQuery(qb, bound, filter, options);
  const rows = await runAbortable(
    guard.signal,
    () => executePrefixedOwned(qb, estimate.explainPrefix, guard),
    dialect.inProcess,
  );
  const estimated = estimate.planRows(rows);
  if (estimated === undefined) throw queryFailed(new Error('listql: EXPLAIN returned no row estimate'));
  return estimated;
}

/**
 * Narrow a copy of the scope to the filter and shape it as the rows the estimate is about: the root key only (a
 * base scope's own selection does not change how many rows match), `distinct` when the scope joins to-many.
 */
export function estimateQuery(
  qb: AnyQueryBuilder,
  bound: BoundSchema,
  filter: ResolvedFilter | undefined,
  options: ApplyOptions,
): AnyQueryBuilder {
  if (filter) applyFilter(qb, bound, filter, options);
  qb.select(bound.meta.primaryKeys.map((pk) => `${qb.alias}.${pk}`) as never);
  if (joinsToMany(qb)) {
    qb.setFlag(QueryFlag.DISABLE_PAGINATE);
    qb.setFlag(QueryFlag.DISTINCT);
  }
  qb.limit(undefined).offset(undefined).orderBy([]);
  return qb;
}
