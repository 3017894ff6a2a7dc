import type { ResolvedQuery } from '../../bind/types.ts';
import type { CursorValue } from '../../keyset/cursor-codec.ts';
import type { CursorKey, CursorPlan } from '../../keyset/cursor-plan.ts';
import { continuePage } from '../../keyset/seek-page.ts';
import { executeSendsToQuery } from '../../orm/compat.ts';
import { compiledBuilder } from '../../orm/query-builder.ts';
import { applyRootFilters } from '../../plan/entity-filters.ts';
import type { SqlFragment } from '../../plan/fragment.ts';
import type { Paging } from '../../plan/paging.ts';
import type { AnyQueryBuilder, ApplyOptions } from '../../plan/plan-query.ts';
import type { ListContext } from '../config.ts';
import { countQuery } from '../count/exact.ts';
import type { Scope } from '../scope.ts';
import type { Tree } from '../tree/index.ts';
import {
  compiledPage,
  compilePage,
  fillPage,
  filterMarkers,
  keyMarkers,
  rememberPage,
  statementKey,
} from './compiled-page.ts';
import { planData } from './data-plan.ts';
import { applySearch } from './search.ts';

/**
 * The key under which a scoped engine builds a request's data statement and sends nothing (the request path's own
 * cost, measured by `npm run bench`). Not part of the public interface.
 */
export const PAGE_STATEMENT: unique symbol = Symbol.for('listql.pageStatement') as never;

/** The engine's own copy of the scope, shared by data and count: root filters, then the search. */
export async function scopeCopy<C extends ListContext>(
  scope: Scope<C>,
  ctx: C,
  resolved: ResolvedQuery,
): Promise<AnyQueryBuilder> {
  const scoped = scope.base.clone();
  await applyRootFilters(scoped, scope.filters);
  if (resolved.search !== undefined && scope.settings.search)
    await applySearch(scope.settings.search, ctx, scoped, resolved.search);
  return scoped;
}

/** A page's statement, continued after its position, and the planned sort keys its rows carry. */
export interface PageStatement {
  readonly qb: AnyQueryBuilder;
  readonly keys: readonly CursorKey[];
}

/**
 * The statements of a listing whose shape compiles: each position's statement is looked up by the shape, the
 * filter's SQL and the position's NULLs, compiled on first use (planned once with markers in place of the values),
 * and sent with this request's filter values and position in its slots. A shape that does not compile is planned
 * afresh each time, as any other request.
 */
export function compiledData<C extends ListContext>(
  scope: Scope<C>,
  resolved: ResolvedQuery,
  plan: CursorPlan,
  paging: Paging,
  options: ApplyOptions,
  shape: string,
  filter: SqlFragment | undefined,
  copy: () => Promise<AnyQueryBuilder>,
  tree: Tree | undefined,
): (from: readonly CursorValue[] | undefined, backward: boolean) => Promise<PageStatement> {
  const { bound, keys } = scope;
  const markers = filterMarkers(filter?.params.length ?? 0);
  return async (from, backward) => {
    const key = statementKey(shape, filter, from, backward);
    let page = compiledPage(bound, key);
    if (page === undefined) {
      const check = markedFilter(filter, markers);
      const marked = planData(scope, resolved, plan, await copy(), options, tree, check.params);
      const at = keyMarkers(from);
      const qb = continuePage(marked.qb, keys.dialect, bound.platform, marked.keys, paging, at, backward);
      page = check.same() ? compilePage(qb.toQuery(), marked.keys, markers.length, from) : null;
      rememberPage(bound, key, page);
    }
    if (page) {
      const qb = compiledBuilder(scope.base, page.sql, fillPage(page, filter?.params, from));
      // The compiled text is sent through toQuery(): where execute() reads something else, plan afresh.
      if (await executeSendsToQuery(qb)) return { qb, keys: page.keys };
    }
    const data = planData(scope, resolved, plan, await copy(), options, tree);
    return {
      qb: continuePage(data.qb, keys.dialect, bound.platform, data.keys, paging, from, backward),
      keys: data.keys,
    };
  };
}

/**
 * The exact count of a listing whose shape compiles, as the data statement is: compiled on first use with markers in
 * place of the filter's values, then sent with this request's values. The builder answers executeCountOwned().
 */
export function compiledCount<C extends ListContext>(
  scope: Scope<C>,
  resolved: ResolvedQuery,
  options: ApplyOptions,
  shape: string,
  filter: SqlFragment | undefined,
  copy: () => Promise<AnyQueryBuilder>,
): () => Promise<AnyQueryBuilder> {
  const { bound } = scope;
  const markers = filterMarkers(filter?.params.length ?? 0);
  const key = `count\u0001${statementKey(shape, filter, undefined, false)}`;
  return async () => {
    let page = compiledPage(bound, key);
    if (page === undefined) {
      const check = markedFilter(filter, markers);
      const qb = countQuery(await copy(), bound, resolved.filter, options, check.params);
      page = check.same() ? compilePage(qb.toQuery(), [], markers.length, undefined) : null;
      rememberPage(bound, key, page);
    }
    if (page) {
      const qb = compiledBuilder(scope.base, page.sql, fillPage(page, filter?.params, undefined));
      if (await executeSendsToQuery(qb)) return qb;
    }
    return countQuery(await copy(), bound, resolved.filter, options);
  };
}

/** The marker hook of a compilation, and whether the filter it planned was the request's own (same SQL, same values). */
function markedFilter(filter: SqlFragment | undefined, markers: readonly string[]) {
  let same = true;
  return {
    params: (fragment: SqlFragment) => {
      same &&= fragment.sql === filter?.sql && fragment.params.length === markers.length;
      return markers;
    },
    same: () => same && (filter === undefined || markers.length === filter.params.length),
  };
}
