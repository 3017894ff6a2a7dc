import { QueryFlag } from '@mikro-orm/sql';
import type { BoundSchema, ResolvedFilter } from '../bind/types.ts';
import { invalidParameter, ListError } from '../errors.ts';
import { type AnyQueryBuilder, type ApplyOptions, applyFilter } from '../plan/apply-resolved.ts';
import { dialectOf } from '../plan/dialect.ts';
import { runAbortable } from './abort.ts';
import { executePrefixedOwned } from './execute.ts';
import { joinsToMany } from './qb-state.ts';
import type { StatementGuard } from './statement-guard.ts';

/** What precedes the row query to get its plan instead of its rows. */
export const ESTIMATE_PREFIX = 'explain (format json) ';

/**
 * Refuse `count=estimated` where listql offers no row estimate; throws `invalid_parameter` before any query.
 * SQLite's planner gives no row estimates; MySQL's and MariaDB's EXPLAIN gives rows examined per table, not rows
 * returned, often far off for a filtered scope. A silent exact count would run the full scan the client asked to avoid.
 */
export function checkEstimateAvailable(bound: BoundSchema): void {
  const dialect = dialectOf(bound.platform);
  if (dialect !== 'postgresql')
    throw invalidParameter(
      'count',
      `estimated counts are not available on ${dialect === 'sqlite' ? 'SQLite' : 'MySQL or MariaDB'}; use count=true`,
    );
}

/**
 * Estimate how many root rows of the scope (base scope, root filters and search already on `qb`, a private copy)
 * match the filter: the planner's "Plan Rows" of the top node of `explain (format json)` over the rows query
 * (root key columns, each root row once, no order, limit or offset). Nothing is read but the plan; values are bound.
 *
 * @example estimateRows(qb, bound, filter, options, guard)
 * // explain (format json) select "b"."id" from "book" as "b" where "b"."deleted_at" is null and ("b"."price" > $1)
 */
export async function estimateRows(
  qb: AnyQueryBuilder,
  bound: BoundSchema,
  filter: ResolvedFilter | undefined,
  options: ApplyOptions,
  guard: StatementGuard,
): Promise<number> {
  estimateQuery(qb, bound, filter, options);
  const rows = await runAbortable(guard.signal, () => executePrefixedOwned(qb, ESTIMATE_PREFIX, guard));
  return planRows(rows);
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

/** Read the top plan node's row estimate from PostgreSQL's JSON plan; a plan of another shape is a failure. */
function planRows(rows: readonly Record<string, unknown>[]): number {
  let plan = rows[0]?.['QUERY PLAN'];
  if (typeof plan === 'string') plan = JSON.parse(plan);
  const top = Array.isArray(plan) ? (plan[0] as { Plan?: { 'Plan Rows'?: unknown } } | undefined) : undefined;
  const estimate = top?.Plan?.['Plan Rows'];
  if (typeof estimate !== 'number' || !Number.isFinite(estimate) || estimate < 0)
    throw new ListError('execution_failed', 'the query failed', {
      cause: new Error('listql: EXPLAIN returned no row estimate'),
    });
  return Math.round(estimate);
}
