import { DEFAULT_LIMITS, DEFAULT_PAGING } from '../limits.ts';
import type { ParsedQuery } from '../syntax/ast.ts';
import { resolveFilter, resolveSortTerm } from './resolve.ts';
import { resolveFacets } from './resolve-facets.ts';
import { type ResolvedLevel, resolveSelection, type SelectionBounds } from './resolve-selection.ts';
import type { BoundSchema, ResolvedFilter, ResolvedQuery, ResolvedSortTerm } from './types.ts';

export type * from './types.ts';

/** The engine bounds resolveQuery holds nested selections to; each defaults to DEFAULT_PAGING / DEFAULT_LIMITS. */
export type ResolveOptions = Partial<SelectionBounds> & { readonly maxFacetValues?: number };

/**
 * Bind a parsed query to a bound schema: resolve paths, check capabilities and convert literals; throws ListError.
 * `fields` may select related objects (`author(name)`, `reviews(stars)`), held to `options` (the engine's maxOffset
 * and maxSelectionDepth); they come back as `selections`, and `fields` keeps the root's flat names.
 *
 * @example resolveQuery(bookPolicy.bind(orm), parseHTTP({ filter: "author/name eq 'Ann'", sort: '-price' }))
 */
export function resolveQuery(bound: BoundSchema, parsed: ParsedQuery, options: ResolveOptions = {}): ResolvedQuery {
  const filter: ResolvedFilter | undefined = parsed.filter && resolveFilter(bound, parsed.filter);
  const sort: readonly ResolvedSortTerm[] = (parsed.sort ?? []).map((term) => resolveSortTerm(bound, term));
  const picked = resolvePicked(bound, parsed, options);
  const facets =
    parsed.facets && resolveFacets(bound, parsed.facets, options.maxFacetValues ?? DEFAULT_LIMITS.maxFacetValues);
  return {
    sort,
    ...(filter === undefined ? {} : { filter }),
    ...(parsed.limit === undefined ? {} : { limit: parsed.limit }),
    ...(parsed.offset === undefined ? {} : { offset: parsed.offset }),
    ...(parsed.cursor === undefined ? {} : { cursor: parsed.cursor }),
    ...(parsed.count === undefined ? {} : { count: parsed.count }),
    ...(parsed.search === undefined ? {} : { search: parsed.search }),
    ...(parsed.fields === undefined || picked === undefined ? {} : { fields: picked.fields }),
    ...(picked === undefined || picked.selections.length === 0 ? {} : { selections: picked.selections }),
    ...(facets === undefined ? {} : { facets }),
  };
}

/**
 * `fields` and the nested list parameters: the root's flat fields (with the keys its to-one selections need, marked
 * `implied`) and its nested selections; undefined when the request names neither.
 */
function resolvePicked(bound: BoundSchema, parsed: ParsedQuery, options: ResolveOptions): ResolvedLevel | undefined {
  if (parsed.fields === undefined && parsed.nested === undefined) return undefined;
  return resolveSelection(bound, parsed.fields ?? [], parsed.nested, {
    maxOffset: options.maxOffset ?? DEFAULT_PAGING.maxOffset,
    maxSelectionDepth: options.maxSelectionDepth ?? DEFAULT_LIMITS.maxSelectionDepth,
  });
}
