import { QueryFlag } from '@mikro-orm/sql';
import { resolveQuery } from '../bind/index.ts';
import type { BoundRelation, ResolvedQuery } from '../bind/types.ts';
import { type CursorValue, decodeCursor } from '../cursor/codec.ts';
import { invalidParameter } from '../errors.ts';
import { type AnyQueryBuilder, type ApplyOptions, planInPlace } from '../plan/apply-resolved.ts';
import { prepareFilters, reachesRelation } from '../plan/filters.ts';
import { keysetBranches, keysetPredicate } from '../plan/keyset.ts';
import { effectiveSort } from '../plan/order.ts';
import { type Paging, resolvePaging } from '../plan/paging.ts';
import type { ParsedQuery } from '../syntax/ast.ts';
import { abortWith, runAbortable, throwIfAborted } from './abort.ts';
import type { ListContext } from './config.ts';
import { countRows } from './count.ts';
import { executeOwned } from './execute.ts';
import { connectionOf, inTransaction, useConnection } from './internals.ts';
import {
  type CursorKey,
  type CursorPlan,
  cursorAfter,
  cursorPlanFor,
  dropKeys,
  keysetColumns,
  selectKeys,
  takeKeys,
} from './keys.ts';
import type { Scope } from './list.ts';
import { seeksByUnion, unionPage } from './seek.ts';
import { joinsToMany } from './qb-state.ts';
import { applySearch } from './search.ts';
import { type Item, serializeRows } from './serialize.ts';

/** One page of rows turned into items, and where the next page starts. */
export interface PageData {
  readonly items: Item[];
  readonly hasMore: boolean;
  readonly nextCursor?: string;
  /** The key values nextCursor carries, so a walk continues without decoding its own cursor. */
  readonly nextKeys?: readonly CursorValue[];
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
  /** Fetch `limit` items after the given key values (undefined: from the start, or the request's offset). */
  fetch(after: readonly CursorValue[] | undefined): Promise<PageData>;
  /** Count the matching rows (base scope, filters, search, filter); only when the request asked for it. */
  count(): Promise<number>;
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
  if (parsed.search !== undefined && !settings.search)
    throw invalidParameter('search', 'search is not enabled for this endpoint');
  const resolved = resolveQuery(bound, parsed);
  const checked = resolvePaging(resolved, settings.paging);
  const paging = pageSize === undefined ? checked : { ...checked, limit: pageSize };
  // Relation keys get a stand-in alias per path here (the planner names the real joins later): same keys, same order.
  const plan = cursorPlanFor(keys, resolved.sort, () => effectiveSort(bound, resolved.sort, pathAlias));
  const after =
    resolved.cursor === undefined
      ? undefined
      : decodeCursor(resolved.cursor, {
          signature: plan.signature,
          keys: plan.keys.map((k) => k.spec),
          maxCursorBytes: settings.limits.maxCursorBytes,
        });
  const signal = ctx.signal;
  throwIfAborted(signal);

  // The engine's own copy of the scope, shared by data and count: root filters, then the search.
  const scoped = scope.base.clone();
  await scoped.applyFilters(scope.filters ?? {});
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
    async fetch(from) {
      if (!data) return { items: [], hasMore: false };
      const qb = reuse || used ? data.qb.clone() : data.qb;
      used = true;
      return fetchPage(scope, plan, data.keys, qb, paging, from, signal, connection);
    },
    async count() {
      if (!counter) throw new Error('listql: count() of a request that did not ask for it');
      return countRows(counter, bound, keys.dialect, resolved.filter, options, signal);
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
  signal: AbortSignal | undefined,
  connection: object | undefined,
): Promise<PageData> {
  const qb = after ? continueAfter(scope, keys, planned, paging, after) : planned;
  if (connection) useConnection(qb, connection);
  abortWith(qb, signal, scope.keys.dialect);
  const rows = await runAbortable(signal, () => executeOwned<Item>(qb));

  const hasMore = rows.length > paging.limit;
  const pageRows = hasMore ? rows.slice(0, paging.limit) : rows;
  const last = pageRows.at(-1);
  const nextKeys = hasMore && last ? takeKeys(last, keys) : undefined;
  const nextCursor = nextKeys && cursorAfter(plan, nextKeys);
  // The item writer reads entity properties only; hydration gets rows without the key columns.
  const items =
    scope.writer?.(pageRows) ??
    serializeRows(
      scope.em,
      scope.bound.meta.class,
      pageRows.map((row) => dropKeys(row, keys)),
    );
  return nextKeys === undefined ? { items, hasMore } : { items, hasMore, nextCursor: nextCursor!, nextKeys };
}

/** Narrow the planned page query to the rows after `after`: one predicate, or a UNION ALL of seekable branches. */
function continueAfter<C extends ListContext>(
  scope: Scope<C>,
  keys: readonly CursorKey[],
  qb: AnyQueryBuilder,
  paging: Paging,
  after: readonly CursorValue[],
): AnyQueryBuilder {
  const { platform } = scope.bound;
  const columns = keysetColumns(qb, keys, platform);
  const branches = seeksByUnion(scope.keys.dialect, keys) ? keysetBranches(columns, after) : undefined;
  if (branches) return unionPage(qb, branches, keys, platform, paging.limit + 1);
  const predicate = keysetPredicate(columns, after);
  return qb.andWhere(predicate.sql, [...predicate.params]);
}

function pathAlias(relations: readonly BoundRelation[]): string {
  return `path:${relations.map((r) => r.property).join('/')}`;
}
