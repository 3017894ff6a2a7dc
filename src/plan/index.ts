export { ALIAS_PREFIX, type AliasGenerator, createAliasGenerator, tableNamesOf } from './alias.ts';
export { apply } from './apply.ts';
export { type FilterConditions, prepareFilters } from './entity-filters.ts';
export type { SqlFragment } from './fragment.ts';
export { type JoinAliasOf, joinSortPaths } from './joins.ts';
export { escapeGlob, escapeLike, likeFragment } from './like.ts';
export { effectiveSort, orderByOf, type SortKey } from './order.ts';
export { type Paging, type PagingOptions, resolvePaging } from './paging.ts';
export {
  type AnyQueryBuilder,
  type ApplyOptions,
  applyFilter,
  applyResolved,
  type PlannedQuery,
  planResolved,
} from './plan-query.ts';
export { compileFilter, type PredicateContext } from './predicate.ts';
