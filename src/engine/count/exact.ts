import type { BoundSchema, ResolvedFilter } from '../../bind/types.ts';
import type { StatementGuard } from '../../dialect/index.ts';
import { type AnyQueryBuilder, type ApplyOptions, applyFilter, type FilterParams } from '../../plan/plan-query.ts';
import { runAbortable } from '../abort.ts';
import { executeCountOwned, shapeCount } from '../execute.ts';

/**
 * Count the rows of the scope (base scope, root filters and search already on `qb`, a private copy the count
 * may change) that match the filter: exact, each root row once even when the base scope joins to-many or selects
 * distinct, with no sort joins and no cursor, limit or offset. Runs one query, with bound parameters.
 */
export async function countRows(
  qb: AnyQueryBuilder,
  bound: BoundSchema,
  filter: ResolvedFilter | undefined,
  options: ApplyOptions,
  guard: StatementGuard,
): Promise<number> {
  countQuery(qb, bound, filter, options);
  return runAbortable(guard.signal, () => executeCountOwned(qb, guard));
}

/** Narrow a copy of the scope to the filter and shape it as the count query: each root row once, no order or page. */
export function countQuery(
  qb: AnyQueryBuilder,
  bound: BoundSchema,
  filter: ResolvedFilter | undefined,
  options: ApplyOptions,
  filterParams?: FilterParams,
): AnyQueryBuilder {
  if (filter) applyFilter(qb, bound, filter, options, filterParams);
  return shapeCount(qb);
}
