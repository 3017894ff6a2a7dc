import { QueryFlag } from '@mikro-orm/sql';
import { checkBudget } from '../bind/cost.ts';
import { resolveQuery } from '../bind/index.ts';
import type { BoundRelation, ResolvedQuery } from '../bind/types.ts';
import { type CursorValue, decodePosition } from '../cursor/codec.ts';
import {
  type CursorKey,
  type CursorPlan,
  cursorAfter,
  cursorBefore,
  cursorPlanFor,
  dropKeys,
  keysetColumns,
  selectKeys,
  takeKeys,
} from '../cursor/keys.ts';
import { type Dialect, type StatementGuard, statementGuard } from '../dialect/index.ts';
import { invalidCursor, invalidParameter, WALK_BACKWARD } from '../errors.ts';
import { type AnyQueryBuilder, type ApplyOptions, planInPlace } from '../plan/apply-resolved.ts';
import { applyRootFilters, prepareFilters, reachesRelation } from '../plan/filters.ts';
import { effectiveSort, mirrorSort, orderByOf } from '../plan/order.ts';
import { type Paging, resolvePaging } from '../plan/paging.ts';
import type { ParsedQuery } from '../syntax/ast.ts';
import { runAbortable, throwIfAborted } from './abort.ts';
import type { ListContext } from './config.ts';
import { countQuery, countRows } from './count.ts';
import { checkEstimateAvailable, estimateQuery, estimateRows } from './estimate.ts';
import { executeOwned } from './execute.ts';
import { type ExplainedStatement, type Explanation, explainStatement } from './explain.ts';
import { connectionOf, inTransaction, useConnection } from './internals.ts';
import type { Scope } from './list.ts';
import { itemKeys, projectItems, selectPicked } from './picked-fields.ts';
import { joinsToMany, selectsExplicitly } from './qb-state.ts';
import { applySearch } from './search.ts';
import { seekAfter, seekFirst, seeksByUnion } from './seek.ts';
import { type Item, serializeRows } from './serialize.ts';

/** One page of rows turned into items, and where the next page starts. */
export interface PageData {
  readonly items: Item[];
  /** Forward: more rows follow the page. Backward: more rows precede it. */
  readonly hasMore: boolean;
  readonly nextCursor?: string;
  /** Pages back from the first item (see docs/pagination.md for when it is present). */
  readonly prevCursor?: string;
  /** The key values nextCursor carries, so a walk continues without decoding its own cursor. */
  readonly nextKeys?: readonly CursorValue[];
  /** With `{ cursors: true }`: per item, the cursor that continues after it (GraphQL edges). */
  readonly cursors?: readonly string[];
}

/** Options of one fetch. */
export interface FetchOptions {
  /** Encode a cursor after every item, not only after the last (GraphQL edges need one per item). */
  readonly cursors?: boolean;
  /** Read the `limit` rows before the given key values instead of after them (a backward cursor), or the last ones. */
  readonly backward?: boolean;
}

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
  /** Build the statements the first fetch and the count would send, and run nothing. */
  explain(): Promise<Explanation>;
}

/**
 * Open a request: check everything a client can get wrong before any query (in the order the client would fix it),
 * then build the engine's private copy of the scope (root filters, search), the related entities' filter
 * conditions, and, when a page is to be read, the planned data query. `reuse`: the plan serves several pages (a
 * walk), so each fetch works on a copy of it; otherwise the one fetch uses the plan itself. `pageSize`: a server-side
 * walk's page size, which replaces the request's limit after that limit passed its checks.
 */
export async function openListing<C extends ListContext>(
  scope: Scope<C>,
  parsed: ParsedQuery,
  ctx: C,
  reuse: boolean,
  pageSize?: number,
): Promise<Listing> {
  const { settings, bound, keys } = scope;
  if (parsed.count === true && !settings.allowCount)
    throw invalidParameter('count', 'count is not enabled for this endpoint');
  if (parsed.count === 'estimated') {
    if (!settings.allowEstimatedCount)
      throw invalidParameter('count', 'estimated counts are not enabled for this endpoint');
    checkEstimateAvailable(keys.dialect);
  }
  if (parsed.search !== undefined && !settings.search)
    throw invalidParameter('search', 'search is not enabled for this endpoint');
  const requested = resolveQuery(bound, parsed);
  // No `sort`: the engine's defaultSort, if any (the cursor signature then comes from it); else the primary key.
  const resolved =
    parsed.sort === undefined && scope.defaultSort ? { ...requested, sort: scope.defaultSort } : requested;
  // The cost budget bounds what the client asked for; the developer's defaultSort is not charged to it.
  checkBudget(requested, settings.limits);
  const checked = resolvePaging(resolved, settings.paging);
  const paging = pageSize === undefined ? checked : { ...checked, limit: pageSize };
  // Relation keys get a stand-in alias per path here (the planner names the real joins later): same keys, same order.
  const plan = cursorPlanFor(keys, resolved.sort, () => effectiveSort(bound, resolved.sort, pathAlias));
  // A walk (`reuse`) follows nextCursor forward only: a backward cursor is refused there, saying so.
  const position =
    resolved.cursor === undefined
      ? undefined
      : decodePosition(resolved.cursor, {
          signature: plan.signature,
          backwardSignature: plan.backwardSignature,
          keys: plan.keys.map((k) => k.spec),
          maxCursorBytes: settings.limits.maxCursorBytes,
        });
  if (reuse && position?.backward) throw invalidCursor(WALK_BACKWARD);
  const after = position?.keys;
  const backward = position?.backward ?? false;
  const signal = ctx.signal;
  throwIfAborted(signal);
  const guard = statementGuard(settings, ctx);

  // The engine's own copy of the scope, shared by data and count: root filters, then the search.
  const scoped = scope.base.clone();
  await applyRootFilters(scoped, scope.filters);
  if (resolved.search !== undefined && settings.search)
    await applySearch(settings.search, ctx, scoped, resolved.search);
  // Related entities' filters as em.find applies them (em.addFilter, filter params, async conditions included).
  // A walk's own page size may exceed maxLimit: the planner sees it as the limit, and maxLimit as large.
  const bounds = pageSize === undefined ? settings.paging : { ...settings.paging, maxLimit: paging.limit };
  const options: ApplyOptions = scope.filters === undefined ? { ...bounds } : { ...bounds, filters: scope.filters };
  if (reachesRelation(resolved))
    options.filterConditions = await prepareFilters(scoped, bound, resolved, scope.filters);

  // The count takes its own copy before the data query is planned into `scoped`.
  const counter = resolved.count ? scoped.clone() : undefined;
  // MikroORM picks a read replica at random per query: one request (a walk's pages, the count) stays on the one
  // it picks first, so pages never mix replicas with different lag. In a transaction it runs on the transaction.
  const connection = inTransaction(scoped) ? undefined : connectionOf(scoped);
  if (connection && counter) useConnection(counter, connection);
  const planned = pageSize === undefined ? resolved : { ...resolved, limit: paging.limit };
  const data = paging.limit > 0 ? planData(scope, planned, plan, scoped, options) : undefined;
  let used = false;

  return {
    resolved,
    paging,
    ...(after === undefined ? {} : { after }),
    backward,
    async fetch(from, fetchOptions = {}) {
      if (!data) return { items: [], hasMore: false, ...(fetchOptions.cursors ? { cursors: [] } : {}) };
      const qb = reuse || used ? data.qb.clone() : data.qb;
      used = true;
      const page = await fetchPage(scope, plan, data.keys, qb, paging, from, guard, connection, fetchOptions);
      return resolved.fields ? { ...page, items: projectItems(page.items, itemKeys(bound, resolved.fields)) } : page;
    },
    async explain() {
      const explained: { data?: ExplainedStatement; count?: ExplainedStatement } = {};
      if (data) {
        const qb = data.qb.clone();
        const continued = continueFrom(scope, data.keys, qb, paging, after, backward);
        explained.data = await explainStatement(continued, 'all');
      }
      if (counter)
        explained.count =
          resolved.count === 'estimated'
            ? prefixed(
                scope.keys.dialect,
                await explainStatement(estimateQuery(counter.clone(), bound, resolved.filter, options), 'all'),
              )
            : await explainStatement(countQuery(counter.clone(), bound, resolved.filter, options), 'get', false);
      return explained;
    },
    async count() {
      if (!counter) throw new Error('listql: count() of a request that did not ask for it');
      if (resolved.count === 'estimated')
        return estimateRows(counter, bound, resolved.filter, options, guard, scope.keys.dialect);
      return countRows(counter, bound, resolved.filter, options, guard);
    },
  };
}

/** The planned data query (filter, sort joins, order, limit + 1, key columns) and its cursor keys. */
interface DataPlan {
  readonly qb: AnyQueryBuilder;
  readonly keys: readonly CursorKey[];
}

function planData<C extends ListContext>(
  scope: Scope<C>,
  resolved: ResolvedQuery,
  plan: CursorPlan,
  scoped: AnyQueryBuilder,
  options: ApplyOptions,
): DataPlan {
  const planned = planInPlace(scoped, scope.bound, resolved, options);
  if (planned.sort.length !== plan.keys.length) throw new Error('listql: the planned sort changed its keys');
  // The planned keys carry the aliases the planner gave relation sorts; the cursor plan carries types.
  const keys = plan.keys.map((k, i) => ({ ...k, sort: planned.sort[i]! }));
  const qb = planned.qb;
  qb.limit(planned.paging.limit + 1);
  if (joinsToMany(qb)) {
    // A to-many join in the base scope repeats root rows. MikroORM's pagination sub-query would keep the join in the
    // outer query (rows still repeat) and cannot order by listql's keys; `distinct` over root columns and keys gives
    // each root row once, in keyset order, with one plain query.
    qb.setFlag(QueryFlag.DISABLE_PAGINATE);
    qb.setFlag(QueryFlag.DISTINCT);
  }
  // `fields`: only the picked columns and the primary key (the cursor's key columns come next, under their own
  // aliases). A base scope that selects columns itself keeps its selection; items are narrowed after the fact.
  if (resolved.fields && !selectsExplicitly(qb)) selectPicked(qb, scope.bound, resolved.fields);
  selectKeys(qb, keys, scope.keys, seeksByUnion(scope.keys.dialect, keys));
  return { qb, keys };
}

async function fetchPage<C extends ListContext>(
  scope: Scope<C>,
  plan: CursorPlan,
  keys: readonly CursorKey[],
  planned: AnyQueryBuilder,
  paging: Paging,
  after: readonly CursorValue[] | undefined,
  guard: StatementGuard,
  connection: object | undefined,
  options: FetchOptions,
): Promise<PageData> {
  // A backward fetch without a position reads the end of the list (GraphQL's `last` alone).
  const backward = options.backward === true;
  const qb = continueFrom(scope, keys, planned, paging, after, backward);
  if (connection) useConnection(qb, connection);
  const rows = await runAbortable(guard.signal, () => executeOwned<Item>(qb, guard));

  // Forward: the extra row says more rows follow. Backward: rows came in mirrored order, the extra row (read
  // first, nearest the start) says more rows precede; the page is turned back into the requested order.
  const extra = rows.length > paging.limit;
  const pageRows = extra ? rows.slice(0, paging.limit) : rows;
  if (backward) pageRows.reverse();
  // Rows before the page exist after an offset or a cursor (no extra query); on a backward page, exactly when read.
  const hasPrevious = backward ? extra : after !== undefined || (paging.offset ?? 0) > 0;
  // A backward page from a cursor always has rows after it (the cursor's own row at least): it continues after its
  // last item. One read from the end of the list has none.
  const hasNext = backward ? after !== undefined : extra;
  const rowKeys = options.cursors || pageRows.length === 1 ? pageRows.map((row) => takeKeys(row, keys)) : undefined;
  const first = pageRows[0];
  const last = pageRows.at(-1);
  const prevKeys = hasPrevious && first ? (rowKeys?.[0] ?? takeKeys(first, keys)) : undefined;
  const nextKeys = hasNext && last ? (rowKeys?.at(-1) ?? takeKeys(last, keys)) : undefined;
  const nextCursor = nextKeys && cursorAfter(plan, nextKeys);
  const prevCursor = prevKeys && cursorBefore(plan, prevKeys);
  const cursors = options.cursors ? rowKeys?.map((values) => cursorAfter(plan, values)) : undefined;
  // The item writer reads entity properties only; hydration gets rows without the key columns.
  const items =
    scope.writer?.(pageRows) ??
    serializeRows(
      scope.em,
      scope.bound.meta.class,
      pageRows.map((row) => dropKeys(row, keys)),
    );
  const data: PageData = {
    items,
    hasMore: backward ? hasPrevious : extra,
    ...(nextKeys === undefined ? {} : { nextCursor: nextCursor!, nextKeys }),
    ...(prevCursor === undefined ? {} : { prevCursor }),
  };
  return cursors ? { ...data, cursors } : data;
}

/**
 * Narrow the planned page query to the rows after `at` (or, backward, before it): one predicate, or a UNION ALL of
 * seekable branches (see seekAfter); without `at`, the first page (see seekFirst). A backward page is the forward
 * plan mirrored: every key's direction and NULL placement flip in the order and in the keyset predicate, so the
 * `limit + 1` rows nearest before the position come first, and an index serving the forward order serves this one
 * read backwards.
 */
function continueFrom<C extends ListContext>(
  scope: Scope<C>,
  planned: readonly CursorKey[],
  qb: AnyQueryBuilder,
  paging: Paging,
  at: readonly CursorValue[] | undefined,
  backward: boolean,
): AnyQueryBuilder {
  const { platform } = scope.bound;
  const keys = backward ? planned.map((k) => ({ ...k, sort: mirrorSort([k.sort])[0]! })) : planned;
  if (backward)
    qb.orderBy(
      orderByOf(
        platform,
        scope.keys.dialect,
        qb.alias,
        keys.map((k) => k.sort),
      ) as never,
    );
  // A first page: as planned, or on MySQL, seekable parts (see seekFirst); backward, the last page, mirrored.
  if (at === undefined)
    return seekFirst(qb, scope.keys.dialect, () => keysetColumns(qb, keys, platform), keys, platform, paging);
  const columns = keysetColumns(qb, keys, platform);
  return seekAfter(qb, scope.keys.dialect, columns, at, keys, platform, paging.limit + 1);
}

/** The statement an estimated count sends: the rows query behind the EXPLAIN prefix. */
function prefixed(dialect: Dialect, statement: ExplainedStatement): ExplainedStatement {
  return { ...statement, sql: checkEstimateAvailable(dialect).explainPrefix + statement.sql };
}

function pathAlias(relations: readonly BoundRelation[]): string {
  return `path:${relations.map((r) => r.property).join('/')}`;
}
