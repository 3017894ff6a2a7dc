import type { ParsedQuery } from '../syntax/ast.ts';
import { resolveFilter, resolveSortTerm } from './resolve.ts';
import { resolveFields } from './resolve-fields.ts';
import type { BoundSchema, ResolvedFilter, ResolvedQuery, ResolvedSortTerm } from './types.ts';

export type * from './types.ts';

/**
 * Bind a parsed query to a bound schema: resolve paths, check capabilities and convert literals; throws ListError.
 *
 * @example resolveQuery(bookPolicy.bind(orm), parseHTTP({ filter: "author/name eq 'Ann'", sort: '-price' }))
 */
export function resolveQuery(bound: BoundSchema, parsed: ParsedQuery): ResolvedQuery {
  const filter: ResolvedFilter | undefined = parsed.filter && resolveFilter(bound, parsed.filter);
  const sort: readonly ResolvedSortTerm[] = (parsed.sort ?? []).map((term) => resolveSortTerm(bound, term));
  return {
    sort,
    ...(filter === undefined ? {} : { filter }),
    ...(parsed.limit === undefined ? {} : { limit: parsed.limit }),
    ...(parsed.offset === undefined ? {} : { offset: parsed.offset }),
    ...(parsed.cursor === undefined ? {} : { cursor: parsed.cursor }),
    ...(parsed.count === undefined ? {} : { count: parsed.count }),
    ...(parsed.search === undefined ? {} : { search: parsed.search }),
    ...(parsed.fields === undefined ? {} : { fields: resolveFields(bound, parsed.fields) }),
  };
}
