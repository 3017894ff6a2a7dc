import { executionFailed, isListError } from '../../errors.ts';
import type { AnyQueryBuilder } from '../../plan/plan-query.ts';
import type { ListContext, SearchCallback } from '../config.ts';

/**
 * Run the endpoint's search callback on `qb` (the engine's own copy of the scope) and insist it narrows that very
 * QueryBuilder. Returning anything else could be an unscoped query, so it is a failure, never a fallback.
 */
export async function applySearch<C extends ListContext>(
  search: SearchCallback<C>,
  ctx: C,
  qb: AnyQueryBuilder,
  term: string,
): Promise<void> {
  let result: unknown;
  try {
    result = await search(ctx, qb, term);
  } catch (err) {
    if (isListError(err)) throw err;
    throw executionFailed('the search callback failed', err);
  }
  if (result !== qb) throw executionFailed('the search callback must return the QueryBuilder it was given, narrowed');
}
