import type { BoundSchema, ResolvedQuery } from '../../bind/types.ts';
import type { CursorValue } from '../../keyset/cursor-codec.ts';
import type { CursorKey, CursorPlan } from '../../keyset/cursor-plan.ts';
import { continuePage } from '../../keyset/seek-page.ts';
import { executeSendsToQuery } from '../../orm/compat.ts';
import { compiledBuilder } from '../../orm/query-builder.ts';
import { applyRootFilters } from '../../plan/entity-filters.ts';
import type { SqlFragment } from '../../plan/fragment.ts';
import type { Paging } from '../../plan/paging.ts';
import type { AnyQueryBuilder, ApplyOptions, FilterParams } from '../../plan/plan-query.ts';
import type { ListContext } from '../config.ts';
import { countQuery } from '../count/exact.ts';
import type { Scope } from '../scope.ts';
import type { Tree } from '../tree/index.ts';
import {
  type CompiledPage,
  compiledPage,
  compilePage,
  fillPage,
  filterMarkers,
  keyMarkers,
  positionKey,
  rememberPage,
  statementKey,
} from './compiled-page.ts';
import { planData } from './data-plan.ts';
import {
  compileTemplate,
  FILTER_SQL,
  fillTemplate,
  pageTemplate,
  rememberTemplate,
  samePage,
  templateKey,
} from './page-template.ts';
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
  keyMemo?: Map<string, string>,
): (from: readonly CursorValue[] | undefined, backward: boolean) => Promise<PageStatement> {
  const { bound, keys } = scope;
  // A sort through a relation joins under aliases drawn after the filter's: its statement depends on the filter.
  const templated = filter !== undefined && !resolved.sort.some((t) => (t.target?.relations.length ?? 0) > 0);
  return async (from, backward) => {
    const key = memoKey(keyMemo, shape, filter, from, backward);
    const template = templated ? templateKey(shape, from, backward) : undefined;
    const sent = await sendCompiled(scope, key, filter, from, template, async (params, filterSql) => {
      const marked = planData(scope, resolved, plan, await copy(), options, tree, params, filterSql);
      const at = keyMarkers(from);
      const qb = continuePage(marked.qb, keys.dialect, bound.platform, marked.keys, paging, at, backward);
      return { query: qb.toQuery(), keys: marked.keys };
    });
    if (sent) return sent;
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
  keyMemo?: Map<string, string>,
): () => Promise<AnyQueryBuilder> {
  const { bound } = scope;
  const key = `count\u0001${memoKey(keyMemo, shape, filter, undefined, false)}`;
  return async () => {
    const sent = await sendCompiled(scope, key, filter, undefined, undefined, async (params) => ({
      query: countQuery(await copy(), bound, resolved.filter, options, params).toQuery(),
      keys: [],
    }));
    if (sent) return sent.qb;
    return countQuery(await copy(), bound, resolved.filter, options);
  };
}

/**
 * The statement key of a position, remembered in `keyMemo` (a request memo's, listing-memo.ts) by the position's
 * NULLs and direction: a long key is built and hashed once, not on every request.
 */
function memoKey(
  keyMemo: Map<string, string> | undefined,
  shape: string,
  filter: SqlFragment | undefined,
  at: readonly CursorValue[] | undefined,
  backward: boolean,
): string {
  if (!keyMemo) return statementKey(shape, filter, at, backward);
  const position = positionKey(at, backward);
  let key = keyMemo.get(position);
  if (key === undefined) {
    key = statementKey(shape, filter, at, backward);
    keyMemo.set(position, key);
  }
  return key;
}

/** What plans a statement with markers: in place of the filter's values, and with `filterSql`, of its SQL too. */
type MarkedPlan = (
  params: FilterParams,
  filterSql?: string,
) => Promise<{ query: { sql: string; params: readonly unknown[] }; keys: readonly CursorKey[] }>;

/**
 * The builder sending a key's compiled statement with this request's filter values and position: compiled on first
 * use (from the listing's template under `template` when there is one, else planned by `plan` with markers in place
 * of the filter's values; the position's are its own), remembered, and undefined when the shape does not compile or
 * execute() would not send compiled text (the caller plans afresh).
 */
async function sendCompiled<C extends ListContext>(
  scope: Scope<C>,
  key: string,
  filter: SqlFragment | undefined,
  at: readonly CursorValue[] | undefined,
  template: string | undefined,
  plan: MarkedPlan,
): Promise<PageStatement | undefined> {
  let page = compiledPage(scope.bound, key);
  if (page === undefined) {
    page = await compileStatement(scope.bound, filter, at, template, plan);
    rememberPage(scope.bound, key, page);
  }
  if (!page) return undefined;
  const qb = compiledBuilder(scope.base, page.sql, fillPage(page, filter?.params, at));
  // The compiled text is sent through toQuery(): where execute() reads something else, plan afresh.
  return (await executeSendsToQuery(qb)) ? { qb, keys: page.keys } : undefined;
}

/**
 * Compile a statement: the filter put in its listing's template when there is one; else planned with markers, and
 * the listing's template made on the way (kept when it gives back this very statement for this filter).
 */
async function compileStatement(
  bound: BoundSchema,
  filter: SqlFragment | undefined,
  at: readonly CursorValue[] | undefined,
  template: string | undefined,
  plan: MarkedPlan,
): Promise<CompiledPage | null> {
  const known = template === undefined ? undefined : pageTemplate(bound, template);
  const filled = known && filter && fillTemplate(known, filter);
  if (filled) return filled;
  const markers = filterMarkers(filter?.params.length ?? 0);
  // The filter the plan compiles must be this request's own (same SQL, as many values): else nothing is kept.
  let same = true;
  const planned = await plan((fragment) => {
    same &&= fragment.sql === filter?.sql && fragment.params.length === markers.length;
    return markers;
  });
  const page = same ? compilePage(planned.query, planned.keys, markers.length, at) : null;
  if (template !== undefined && known === undefined && page && filter) {
    const marked = await plan(() => [], FILTER_SQL);
    const made = compileTemplate(marked.query, marked.keys, at);
    const again = made && fillTemplate(made, filter);
    rememberTemplate(bound, template, again && samePage(again, page) ? made : null);
  }
  return page;
}
