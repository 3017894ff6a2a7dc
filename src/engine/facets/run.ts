import type { EntityProperty } from '@mikro-orm/core';
import { withoutOwnClauses } from '../../bind/cross-filter.ts';
import type { ResolvedFacet, ResolvedQuery } from '../../bind/types.ts';
import type { StatementGuard } from '../../dialect/index.ts';
import { useConnection } from '../../orm/connection.ts';
import { filterLookup, prepareFiltersAlso, reachesRelation } from '../../plan/entity-filters.ts';
import { planFacet } from '../../plan/facet.ts';
import type { AnyQueryBuilder, ApplyOptions } from '../../plan/plan-query.ts';
import { runAbortable } from '../abort.ts';
import type { ListContext } from '../config.ts';
import { type ExplainedFacet, explainStatement } from '../describe/explain.ts';
import { executePrefixedOwned } from '../execute.ts';
import type { Scope } from '../scope.ts';
import { type FacetBucket, type Facets, facetReader } from './values.ts';

export type { FacetBucket, Facets } from './values.ts';

/** Where one request's facet statements come from: a fresh copy of its scope each, and how to plan them. */
export interface FacetSource<C extends ListContext> {
  readonly scope: Scope<C>;
  readonly resolved: ResolvedQuery;
  /** A private copy of the scope: base scope, root filters and search. */
  readonly copy: () => Promise<AnyQueryBuilder>;
  /** The listing's options (paging bounds, related filters). */
  readonly options: ApplyOptions;
}

/**
 * Count each facet of a request (docs/facets.md): one grouped statement per facet, each on its own copy of the scope
 * under the filter without the facet's own clauses, sent one after another under the request's one deadline
 * (`guard`) and on its connection (a read replica's, when the request reads from one). Answers the facets by name,
 * in the order requested.
 */
export async function runFacets<C extends ListContext>(
  source: FacetSource<C>,
  guard: StatementGuard,
  connection: object | undefined,
): Promise<Facets> {
  const facets = source.resolved.facets ?? [];
  const planned = await planFacets(source);
  const out: Record<string, readonly FacetBucket[]> = {};
  const inProcess = source.scope.keys.dialect.inProcess;
  for (let i = 0; i < facets.length; i++) {
    const facet = facets[i]!;
    const qb = planned[i]!;
    if (connection) useConnection(qb, connection);
    const rows = await runAbortable(guard.signal, () => executePrefixedOwned(qb, '', guard), inProcess);
    out[facet.name] = facetReader(source.scope.bound.platform, facet)(rows);
  }
  return out;
}

/** Build each facet's statement as runFacets() sends it, and send none (explain()). */
export async function explainFacets<C extends ListContext>(source: FacetSource<C>): Promise<ExplainedFacet[]> {
  const facets = source.resolved.facets ?? [];
  const planned = await planFacets(source);
  const out: ExplainedFacet[] = [];
  for (let i = 0; i < facets.length; i++)
    out.push({ name: facets[i]!.name, ...(await explainStatement(planned[i]!, 'all', false)) });
  return out;
}

/** Plan every facet's statement on its own copy of the scope, the related entities' filters prepared once. */
async function planFacets<C extends ListContext>(source: FacetSource<C>): Promise<AnyQueryBuilder[]> {
  const { scope, resolved } = source;
  const facets = resolved.facets ?? [];
  const joined = facets.flatMap((f) => (f.target.kind === 'relation' ? [f.target.relation.prop] : []));
  const options = await withFacetFilters(source, joined);
  const out: AnyQueryBuilder[] = [];
  for (const facet of facets) {
    const qb = await source.copy();
    const lookup = filterLookup(qb, options.filterConditions, options.filters);
    out.push(planFacet(qb, scope.bound, facet, ownFilter(resolved, facet), options, lookup));
  }
  return out;
}

/** The listing's options, with the related filters of the facets' relations prepared beside the filter's own. */
async function withFacetFilters<C extends ListContext>(
  source: FacetSource<C>,
  joined: readonly EntityProperty[],
): Promise<ApplyOptions> {
  const { scope, resolved, options } = source;
  if (joined.length === 0 && (options.filterConditions || !reachesRelation(resolved))) return options;
  const prepared = await prepareFiltersAlso(scope.base, scope.bound, resolved, scope.filters, joined);
  return { ...options, filterConditions: prepared };
}

function ownFilter(resolved: ResolvedQuery, facet: ResolvedFacet) {
  return withoutOwnClauses(resolved.filter, facet.target);
}
