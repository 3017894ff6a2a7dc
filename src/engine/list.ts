import type { EntityManager, FilterOptions } from '@mikro-orm/core';
import { QueryFlag } from '@mikro-orm/sql';
import { resolveQuery } from '../bind/index.ts';
import type { BoundRelation, BoundSchema, ResolvedQuery } from '../bind/types.ts';
import { type CursorValue, decodeCursor } from '../cursor/codec.ts';
import { invalidParameter } from '../errors.ts';
import { type AnyQueryBuilder, type ApplyOptions, planResolved } from '../plan/apply-resolved.ts';
import { prepareFilters } from '../plan/filters.ts';
import { keysetPredicate } from '../plan/keyset.ts';
import { effectiveSort } from '../plan/order.ts';
import { type Paging, resolvePaging } from '../plan/paging.ts';
import type { ParsedQuery } from '../syntax/ast.ts';
import { abortWith, runAbortable, throwIfAborted } from './abort.ts';
import type { EngineSettings, ListContext } from './config.ts';
import { countRows } from './count.ts';
import { execute } from './execute.ts';
import {
  type CursorPlan,
  cursorAfter,
  cursorPlanOf,
  dropKeys,
  type KeyContext,
  keysetColumns,
  selectKeys,
  takeKeys,
} from './keys.ts';
import { joinsToMany } from './qb-state.ts';
import { applySearch } from './search.ts';
import { type Item, serializeRows } from './serialize.ts';

/** Paging facts of one page (spec §2.4); `count` only when the request asked for it. */
export interface PageInfo {
  readonly limit: number;
  readonly offset: number;
  readonly hasMore: boolean;
  /** Continues after the last item; present whenever `hasMore`, offset pages included. */
  readonly nextCursor?: string;
  readonly count?: number;
}

/** A list response: the page's items and its paging facts. */
export interface Page<I = Item> {
  readonly items: I[];
  readonly page: PageInfo;
}

/** Everything one scoped engine needs to list: settings, bound schema, key context, base scope and filters. */
export interface Scope<C extends ListContext> {
  readonly settings: EngineSettings<C>;
  readonly bound: BoundSchema;
  readonly keys: KeyContext;
  /** The EntityManager items are hydrated with (in a throw-away fork). */
  readonly em: EntityManager;
  readonly base: AnyQueryBuilder;
  readonly filters?: FilterOptions | undefined;
}

/** A request checked in full, before any query: resolved, paged, with its cursor plan and decoded cursor. */
interface Checked {
  readonly resolved: ResolvedQuery;
  readonly paging: Paging;
  readonly plan: CursorPlan;
  readonly after?: readonly CursorValue[];
}

/**
 * List one page: check the whole request first (no query runs for a client error), then one data query of
 * `limit + 1` rows and, with `count=true`, one count query. Both carry the base scope, the root's MikroORM filters,
 * the search and the filter; only the data query is sorted, continued after the cursor and limited.
 */
export async function listPage<C extends ListContext>(scope: Scope<C>, parsed: ParsedQuery, ctx: C): Promise<Page> {
  const checked = check(scope, parsed);
  const { resolved, paging } = checked;
  const signal = ctx.signal;
  throwIfAborted(signal);

  // The engine's own copy of the scope, shared by data and count: root filters, then the search.
  const scoped = scope.base.clone();
  await scoped.applyFilters(scope.filters ?? {});
  if (resolved.search !== undefined && scope.settings.search)
    await applySearch(scope.settings.search, ctx, scoped, resolved.search);
  // Related entities' filters as em.find applies them (em.addFilter, filter params, async conditions included).
  const options: ApplyOptions = {
    ...applyOptions(scope),
    filterConditions: await prepareFilters(scoped, scope.bound, resolved, scope.filters),
  };

  const data =
    paging.limit > 0 ? await fetchPage(scope, checked, scoped, options, signal) : { items: [], hasMore: false };
  const count = resolved.count
    ? await countRows(scoped, scope.bound, scope.keys.dialect, resolved.filter, options, signal)
    : undefined;
  return {
    items: data.items,
    page: {
      limit: paging.limit,
      offset: paging.offset ?? 0,
      hasMore: data.hasMore,
      ...(data.nextCursor === undefined ? {} : { nextCursor: data.nextCursor }),
      ...(count === undefined ? {} : { count }),
    },
  };
}

/** Check everything a request can get wrong, in the order the client would fix it; runs no query. */
function check<C extends ListContext>(scope: Scope<C>, parsed: ParsedQuery): Checked {
  const { settings, bound } = scope;
  if (parsed.count === true && !settings.allowCount)
    throw invalidParameter('count', 'count is not enabled for this endpoint');
  if (parsed.search !== undefined && !settings.search)
    throw invalidParameter('search', 'search is not enabled for this endpoint');
  const resolved = resolveQuery(bound, parsed);
  const paging = resolvePaging(resolved, settings.paging);
  // Relation keys get a stand-in alias per path here (the planner names the real joins later): same keys, same order.
  const plan = cursorPlanOf(scope.keys, effectiveSort(bound, resolved.sort, pathAlias));
  if (resolved.cursor === undefined) return { resolved, paging, plan };
  const after = decodeCursor(resolved.cursor, {
    signature: plan.signature,
    keys: plan.keys.map((k) => k.spec),
    maxCursorBytes: settings.limits.maxCursorBytes,
  });
  return { resolved, paging, plan, after };
}

async function fetchPage<C extends ListContext>(
  scope: Scope<C>,
  checked: Checked,
  scoped: AnyQueryBuilder,
  options: ApplyOptions,
  signal: AbortSignal | undefined,
): Promise<{ items: Item[]; hasMore: boolean; nextCursor?: string }> {
  const { resolved, paging, after } = checked;
  const planned = planResolved(scoped, scope.bound, resolved, options);
  if (planned.sort.length !== checked.plan.keys.length) throw new Error('listql: the planned sort changed its keys');
  // The planned keys carry the aliases the planner gave relation sorts; the checked plan carries types.
  const keys = checked.plan.keys.map((k, i) => ({ ...k, sort: planned.sort[i]! }));
  const qb = planned.qb;
  qb.limit(paging.limit + 1);
  if (joinsToMany(qb)) {
    // A to-many join in the base scope repeats root rows. MikroORM's pagination sub-query would keep the join in the
    // outer query (rows still repeat) and cannot order by listql's keys; `distinct` over root columns and keys gives
    // each root row once, in keyset order, with one plain query.
    qb.setFlag(QueryFlag.DISABLE_PAGINATE);
    qb.setFlag(QueryFlag.DISTINCT);
  }
  if (after) {
    const predicate = keysetPredicate(keysetColumns(qb, keys, scope.bound.platform), after);
    qb.andWhere(predicate.sql, [...predicate.params]);
  }
  selectKeys(qb, keys, scope.keys);
  abortWith(qb, signal, scope.keys.dialect);
  const rows = await runAbortable(signal, () => execute<Item>(qb));

  const hasMore = rows.length > paging.limit;
  const pageRows = hasMore ? rows.slice(0, paging.limit) : rows;
  const last = pageRows.at(-1);
  const nextCursor = hasMore && last ? cursorAfter(checked.plan, takeKeys(last, keys)) : undefined;
  for (const row of pageRows) dropKeys(row, keys);
  const items = serializeRows(scope.em, scope.bound.meta.class, pageRows);
  return nextCursor === undefined ? { items, hasMore } : { items, hasMore, nextCursor };
}

function pathAlias(relations: readonly BoundRelation[]): string {
  return `path:${relations.map((r) => r.property).join('/')}`;
}

function applyOptions<C extends ListContext>(scope: Scope<C>): ApplyOptions {
  return scope.filters === undefined
    ? { ...scope.settings.paging }
    : { ...scope.settings.paging, filters: scope.filters };
}
