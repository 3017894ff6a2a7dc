import type { ResolvedQuery } from '../../bind/types.ts';
import { type Dialect, renewDeadline, statementGuard } from '../../dialect/index.ts';
import type { CursorValue } from '../../keyset/cursor-codec.ts';
import type { CursorPlan } from '../../keyset/cursor-plan.ts';
import { continuePage } from '../../keyset/seek-page.ts';
import { inTransaction, useConnection } from '../../orm/connection.ts';
import { readConnection } from '../../orm/replicas.ts';
import { prepareFilters, reachesRelation } from '../../plan/entity-filters.ts';
import type { SqlFragment } from '../../plan/fragment.ts';
import type { Paging } from '../../plan/paging.ts';
import { type ApplyOptions, filterFragment } from '../../plan/plan-query.ts';
import type { ParsedQuery } from '../../syntax/ast.ts';
import { runAbortable, throwIfAborted } from '../abort.ts';
import type { ListContext } from '../config.ts';
import { checkEstimateAvailable, estimateQuery, estimateRows } from '../count/estimate.ts';
import { countQuery, countRows } from '../count/exact.ts';
import { type ExplainedStatement, type Explanation, explainStatement } from '../describe/explain.ts';
import { countOwned } from '../execute.ts';
import { explainFacets, type Facets, runFacets } from '../facets/run.ts';
import type { Scope } from '../scope.ts';
import { explainTree, fillTree, openTree, type Tree } from '../tree/index.ts';
import { compiledCount, compiledData, type PageStatement, scopeCopy } from './compiled-data.ts';
import { conditionsKey, listingShape, shapeable } from './compiled-page.ts';
import { planData } from './data-plan.ts';
import { type FetchOptions, fetchPage, type PageData } from './fetch-page.ts';
import { checkRemembered, type RequestMemo, rememberedShape, rememberShape, type ShapeMemo } from './listing-memo.ts';
import { literalFragment } from './literal-fragment.ts';
import { keepPicked, keptKeys } from './picked-fields.ts';

export type { FetchOptions, PageData } from './fetch-page.ts';

/**
 * A request checked in full and planned once: list() fetches one page of it, a walk fetches page after page with
 * the same plan (only the keyset values change). Nothing in it changes after it is opened.
 */
export interface Listing {
  readonly resolved: ResolvedQuery;
  readonly paging: Paging;
  /** The decoded cursor of the request, if it carried one. */
  readonly after?: readonly CursorValue[];
  /** The request's cursor pages back: fetch it with `{ backward: true }`. */
  readonly backward: boolean;
  /** Fetch `limit` items after the given key values (undefined: from the start, or the request's offset). */
  fetch(after: readonly CursorValue[] | undefined, options?: FetchOptions): Promise<PageData>;
  /**
   * Count the matching rows (base scope, filters, search, filter), exactly or, with `count=estimated`, as the
   * planner estimates them; only when the request asked for it.
   */
  count(): Promise<number>;
  /** Count the request's facets (docs/facets.md): one grouped statement each; only when the request asked for any. */
  facets(): Promise<Facets>;
  /** Build the statements the first fetch and the count would send, and run nothing. */
  explain(): Promise<Explanation>;
  /** The data statement the first fetch sends (text and values, as MikroORM renders them), built as fetch builds it. */
  statement(): Promise<{ readonly sql: string; readonly params: readonly unknown[] } | undefined>;
}

/**
 * Open a request: check everything a client can get wrong before any query (in the order the client would fix it),
 * then build the engine's private copy of the scope (root filters, search), the related entities' filter
 * conditions, and, when a page is to be read, the planned data query. `reuse`: the plan serves several pages (a
 * walk), so each fetch works on a copy of it; otherwise the one fetch uses the plan itself. `pageSize`: a server-side
 * walk's page size, which replaces the request's limit after that limit passed its checks. `backwardLists`: GraphQL
 * edges' nested lists read backward (engine/tree/check.ts).
 *
 * size: the returned Listing's fetch, count and explain close over one request's plan, scope copy and guard.
 */
export async function openListing<C extends ListContext>(
  scope: Scope<C>,
  parsed: ParsedQuery,
  ctx: C,
  reuse: boolean,
  pageSize?: number,
  backwardLists?: ReadonlySet<string>,
): Promise<Listing> {
  const { settings, bound, keys } = scope;
  // A request seen before on this engine skips its checks and, under the same filter conditions, its shape.
  const { checked, memo } = checkRemembered(scope, parsed, reuse, pageSize, ctx);
  const { resolved, paging, plan, after, backward } = checked;
  const signal = ctx.signal;
  throwIfAborted(signal);
  const guard = statementGuard(settings, ctx);
  // Nested selections: checked (their cursors among them) and planned before any statement, like the top level.
  const tree = resolved.selections?.length
    ? await openTree(scope, resolved.selections, plan.seal, backwardLists, parsed)
    : undefined;

  // A walk's own page size may exceed maxLimit: the planner sees it as the limit, and maxLimit as large.
  const bounds = pageSize === undefined ? settings.paging : { ...settings.paging, maxLimit: paging.limit };
  const options: ApplyOptions = scope.filters === undefined ? { ...bounds } : { ...bounds, filters: scope.filters };
  const planned = pageSize === undefined ? resolved : { ...resolved, limit: paging.limit };
  const reads = paging.limit > 0;
  const known = memo && (await rememberedShape(scope, memo, options));
  const { shape, filter, keyMemo } = known
    ? memo?.relit
      ? relitShape(scope, known, planned, options)
      : { shape: known.shape, filter: known.filter, keyMemo: known.keys }
    : await deriveShape(scope, planned, plan, paging, options, tree, reads || resolved.count === true, memo);
  const copy = () => scopeCopy(scope, ctx, resolved);
  const compiledCounts = shape !== undefined && resolved.count === true;
  // The count takes its own copy of the scope before any data query is planned into it.
  const scoped = (resolved.count && !compiledCounts) || (reads && shape === undefined) ? await copy() : undefined;
  const counter = resolved.count && !compiledCounts ? scoped!.clone() : undefined;
  // MikroORM picks a read replica at random per query: one request (a walk's pages, the count) stays on the one
  // it picks first, so pages never mix replicas with different lag. In a transaction it runs on the transaction.
  const connection = inTransaction(scope.base)
    ? undefined
    : readConnection(scope.base, settings.replicaFallback, guard);
  if (connection && counter) useConnection(counter, connection);
  const cold = reads && shape === undefined ? planData(scope, planned, plan, scoped!, options, tree) : undefined;
  const compiled =
    reads && shape !== undefined
      ? compiledData(scope, planned, plan, paging, options, shape, filter, copy, tree, keyMemo)
      : undefined;
  const countStatement = compiledCounts
    ? compiledCount(scope, planned, options, shape, filter, copy, keyMemo)
    : undefined;
  let used = false;
  const statement = (from: readonly CursorValue[] | undefined, back: boolean): Promise<PageStatement> => {
    if (compiled) return compiled(from, back);
    const qb = reuse || used ? cold!.qb.clone() : cold!.qb;
    used = true;
    return Promise.resolve({
      qb: continuePage(qb, keys.dialect, bound.platform, cold!.keys, paging, from, back),
      keys: cold!.keys,
    });
  };

  return {
    resolved,
    paging,
    ...(after === undefined ? {} : { after }),
    backward,
    async fetch(from, fetchOptions = {}) {
      if (!reads) return { items: [], hasMore: false, ...(fetchOptions.cursors ? { cursors: [] } : {}) };
      // One deadline per request; a walk (reuse) gives each page its own, counted from the page's start.
      const paged = reuse ? renewDeadline(guard) : guard;
      const sent = await statement(from, fetchOptions.backward === true);
      const page = await fetchPage(scope, plan, sent, paging, from, paged, connection, fetchOptions, tree);
      const items = resolved.fields ? keepPicked(page.items, keptKeys(bound, resolved.fields)) : page.items;
      if (!tree) return resolved.fields ? { ...page, items } : page;
      const { links, ...rest } = page;
      // Nested connections encode a cursor per edge whenever the top level asked for any.
      const { nestedCursors = 'all' } = fetchOptions;
      const nested = nestedCursors === 'ends' ? ('ends' as const) : nestedCursors === 'all';
      const run = { guard: paged, connection, em: scope.em, cursors: fetchOptions.cursors ? nested : false };
      await fillTree(run, tree, items, links ?? []);
      return { ...rest, items };
    },
    async explain() {
      const explained: { -readonly [K in keyof Explanation]: Explanation[K] } = {};
      if (reads) {
        const data = cold ?? planData(scope, planned, plan, await copy(), options, tree);
        const qb = data.qb.clone();
        const continued = continuePage(qb, keys.dialect, bound.platform, data.keys, paging, after, backward);
        explained.data = await explainStatement(continued, 'all');
      }
      const counted = counter ?? (resolved.count ? await copy() : undefined);
      if (counted)
        explained.count =
          resolved.count === 'estimated'
            ? prefixed(
                scope.keys.dialect,
                await explainStatement(estimateQuery(counted.clone(), bound, resolved.filter, options), 'all'),
              )
            : await explainStatement(countQuery(counted.clone(), bound, resolved.filter, options), 'get', false);
      if (tree) explained.levels = await explainTree(tree);
      if (resolved.facets) explained.facets = await explainFacets({ scope, resolved, copy, options });
      return explained;
    },
    async statement() {
      return reads ? (await statement(after, backward)).qb.toQuery() : undefined;
    },
    facets() {
      return runFacets({ scope, resolved, copy, options }, guard, connection);
    },
    async count() {
      if (countStatement) {
        const qb = await countStatement();
        if (connection) useConnection(qb, connection);
        return runAbortable(guard.signal, () => countOwned(qb, guard), scope.keys.dialect.inProcess);
      }
      if (!counter) throw new Error('listql: count() of a request that did not ask for it');
      if (resolved.count === 'estimated')
        return estimateRows(counter, bound, resolved.filter, options, guard, scope.keys.dialect);
      return countRows(counter, bound, resolved.filter, options, guard, scope.keys.dialect.inProcess);
    },
  };
}

/**
 * The related entities' filter conditions (as em.find applies them: em.addFilter, filter params, async conditions
 * included), set on `options`; then, when statements compile, the listing's shape and its filter's compiled fragment
 * (remembered on the request's memo, if any).
 */
async function deriveShape<C extends ListContext>(
  scope: Scope<C>,
  planned: ResolvedQuery,
  plan: CursorPlan,
  paging: Paging,
  options: ApplyOptions,
  tree: Tree | undefined,
  compiles: boolean,
  memo: RequestMemo | undefined,
): Promise<{
  shape?: string | undefined;
  filter?: SqlFragment | undefined;
  keyMemo?: Map<string, string> | undefined;
}> {
  const { bound } = scope;
  if (reachesRelation(planned))
    options.filterConditions = await prepareFilters(scope.base, bound, planned, scope.filters);
  // Data statements (and exact counts) of a known shape are sent as compiled text (compiled-page.ts).
  const conditions =
    compiles && shapeable(scope, planned, tree?.links)
      ? await conditionsKey(scope, options.filterConditions)
      : undefined;
  const shape = compiles ? listingShape(scope, planned, plan, paging, conditions, tree?.links) : undefined;
  if (shape === undefined) return {};
  const filter = planned.filter ? filterFragment(scope.base, bound, planned.filter, options) : undefined;
  // A request served by its template's memo leaves the template's shapes as they are (their values are its own).
  const remembered = memo?.relit
    ? undefined
    : memo && rememberShape(scope, memo, conditions!, options.filterConditions, shape, filter);
  return { shape, filter, keyMemo: remembered?.keys };
}

/**
 * The shape a request's template remembered on this scope, with the filter's fragment of this request's own values
 * (the filter cache fills the compiled shape); the template's statement keys when the fragment's SQL is its own.
 */
function relitShape<C extends ListContext>(
  scope: Scope<C>,
  known: ShapeMemo,
  planned: ResolvedQuery,
  options: ApplyOptions,
): { shape: string; filter: SqlFragment | undefined; keyMemo: Map<string, string> | undefined } {
  const filter = planned.filter ? literalFragment(scope, known, planned.filter, options) : undefined;
  const same = filter?.sql === known.filter?.sql;
  return { shape: known.shape, filter, keyMemo: same ? known.keys : undefined };
}

/** The statement an estimated count sends: the rows query behind the EXPLAIN prefix. */
function prefixed(dialect: Dialect, statement: ExplainedStatement): ExplainedStatement {
  return { ...statement, sql: checkEstimateAvailable(dialect).explainPrefix + statement.sql };
}
