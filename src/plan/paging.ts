import type { ResolvedQuery } from '../bind/types.ts';
import { limitExceeded } from '../errors.ts';
import { DEFAULT_PAGING } from '../limits.ts';

/** Paging bounds for apply() and the engine; each defaults to DEFAULT_PAGING. */
export interface PagingOptions {
  readonly defaultLimit?: number;
  readonly maxLimit?: number;
  readonly maxOffset?: number;
}

/** The page a query asks for, within bounds. */
export interface Paging {
  readonly limit: number;
  readonly offset?: number;
}

/** Compute the page size and offset of a query, refusing any beyond the configured bounds. */
export function resolvePaging(resolved: Pick<ResolvedQuery, 'limit' | 'offset'>, options: PagingOptions = {}): Paging {
  const maxLimit = options.maxLimit ?? DEFAULT_PAGING.maxLimit;
  const maxOffset = options.maxOffset ?? DEFAULT_PAGING.maxOffset;
  const limit = resolved.limit ?? options.defaultLimit ?? DEFAULT_PAGING.defaultLimit;
  if (limit > maxLimit) throw limitExceeded(`limit must be at most ${maxLimit}`, 'limit');
  if (resolved.offset === undefined) return { limit };
  if (resolved.offset > maxOffset) throw limitExceeded(`offset must be at most ${maxOffset}`, 'offset');
  return { limit, offset: resolved.offset };
}
