import type { BoundSchema, ResolvedFilter } from '../bind/types.ts';
import { type AnyQueryBuilder, type ApplyOptions, applyFilter } from '../plan/apply-resolved.ts';
import type { Dialect } from '../plan/dialect.ts';
import { abortWith, runAbortable } from './abort.ts';
import { executeCountOwned } from './execute.ts';

/**
 * Count the rows of the scope (base scope, root filters and search already on `qb`, a private copy the count
 * may change) that match the filter: exact, each root row once even when the base scope joins to-many or selects
 * distinct, with no sort joins and no cursor, limit or offset. Runs one query, with bound parameters.
 */
export async function countRows(
  qb: AnyQueryBuilder,
  bound: BoundSchema,
  dialect: Dialect,
  filter: ResolvedFilter | undefined,
  options: ApplyOptions,
  signal: AbortSignal | undefined,
): Promise<number> {
  if (filter) applyFilter(qb, bound, filter, options);
  abortWith(qb, signal, dialect);
  return runAbortable(signal, () => executeCountOwned(qb));
}
