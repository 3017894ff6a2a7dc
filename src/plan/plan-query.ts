import type { FilterOptions } from '@mikro-orm/core';
import type { QueryBuilder } from '@mikro-orm/sql';
import type { BoundSchema, ResolvedAggregate, ResolvedFilter, ResolvedQuery } from '../bind/types.ts';
import { dialectFor } from '../dialect/index.ts';
import { invalidParameter, invalidSchema } from '../errors.ts';
import type { Limits } from '../limits.ts';
import { deferSql } from '../orm/deferred-sql.ts';
import { snapshotKey } from '../orm/qb-snapshot.ts';
import { aliasesOf } from '../orm/qb-state.ts';
import { type AnyQueryBuilder, entityManagerOf } from '../orm/query-builder.ts';
import { aggregateExpression } from './aggregate.ts';
import { type AliasGenerator, aliasGeneratorSkipping, tableNamesOf } from './alias.ts';
import { type FilterConditions, filterLookup } from './entity-filters.ts';
import { compileFilterCached } from './filter-cache.ts';
import type { SqlFragment } from './fragment.ts';
import { joinSortPaths } from './joins.ts';
import { effectiveSort, orderByOf, orderEntries, orderTerms, type SortKey } from './order.ts';
import { type Paging, resolvePaging } from './paging.ts';
import { compileFilter } from './predicate.ts';
import { shapedBuilder } from './prepared.ts';
import type { SubQueryContext } from './sub-query-context.ts';

export type { AnyQueryBuilder } from '../orm/query-builder.ts';

/** Paging bounds of apply(), each defaulting to DEFAULT_PAGING, and how related rows are filtered. */
export interface ApplyOptions {
  defaultLimit?: number;
  maxLimit?: number;
  maxOffset?: number;
  /**
   * MikroORM filter options (`{ softDelete: false }`, `false`) for the entities the query reaches through
   * relationships, as `em.find(…, { filters })` takes them; the root's own filters are the caller's QueryBuilder's
   * business (`await qb.applyFilters(filters)`). Ignored when `filterConditions` is given.
   */
  filters?: FilterOptions;
  /**
   * The related entities' filter conditions from `await prepareFilters(…)`: exactly what `em.find` applies,
   * `em.addFilter()` filters and asynchronous conditions included. Without it, conditions are computed
   * synchronously from the ORM's global and the entities' own filters.
   */
  filterConditions?: FilterConditions;
  /** apply() only: the request bounds, of which apply() checks the cost budget (maxSubqueries …); defaults otherwise. */
  limits?: Partial<Limits>;
}

/** A planned query: the narrowed copy of the QueryBuilder, the effective sort it orders by, and its page. */
export interface PlannedQuery<Q> {
  readonly qb: Q;
  readonly sort: readonly SortKey[];
  readonly paging: Paging;
}

/** Narrow a copy of `qb` by an already resolved query; throws ListError before any SQL is built. */
export function applyResolved<T extends object, Q extends AnyQueryBuilder = QueryBuilder<T>>(
  qb: Q,
  bound: BoundSchema,
  resolved: ResolvedQuery,
  options: ApplyOptions = {},
): Q {
  assertApplicable(resolved);
  return planResolved<T, Q>(qb, bound, resolved, options).qb;
}

/**
 * Plan a resolved query on a copy of `qb`: filter ANDed into its where (relationships as correlated EXISTS
 * sub-queries), to-one sort paths LEFT JOINed, its order replaced by the effective sort, limit and offset set.
 * Cursor and search are left to the caller (the engine). Throws ListError before any SQL.
 */
export function planResolved<T extends object, Q extends AnyQueryBuilder = QueryBuilder<T>>(
  qb: Q,
  bound: BoundSchema,
  resolved: ResolvedQuery,
  options: ApplyOptions = {},
): PlannedQuery<Q> {
  assertRoot(qb, bound);
  const key = reusesShape(resolved) ? baseKeyOf(qb) : undefined;
  // Work on a copy: the caller's base scope is reused across requests and must never change or be finalized.
  if (key === undefined) return planInPlace(qb.clone() as Q, bound, resolved, options);
  // The same steps as planInPlace(), with the filter's SQL and the order known before the copy is made: a shape
  // planned before is copied with this request's values (prepared.ts) rather than planned through MikroORM again.
  const paging = resolvePaging(resolved, options);
  const sub = subQueryContext(qb, bound, options);
  const where = resolved.filter ? fragmentIn(qb, bound, resolved.filter, sub) : undefined;
  const sort = effectiveSort(bound, resolved.sort);
  const terms = orderTerms(bound.platform, dialectFor(bound.platform), qb.alias, sort);
  const out = shapedBuilder(qb, key, where, terms, (copy) => {
    if (where) copy.andWhere(where.sql, [...where.params]);
    copy.orderBy(orderEntries(terms) as never);
  });
  setPage(out, paging);
  return { qb: out, sort, paging };
}

/** A plan without sort joins or aggregate keys: its builder depends on the base, the filter's SQL and the order. */
function reusesShape(resolved: ResolvedQuery): boolean {
  return resolved.sort.every((t) => t.aggregate === undefined && (t.target?.relations.length ?? 0) === 0);
}

/** The base's snapshotKey(), or undefined when its state cannot be keyed (or reading it fails). */
function baseKeyOf(qb: AnyQueryBuilder): string | undefined {
  try {
    return snapshotKey(qb);
  } catch {
    return undefined;
  }
}

function setPage(qb: AnyQueryBuilder, paging: Paging): void {
  qb.limit(paging.limit);
  if (paging.offset !== undefined) qb.offset(paging.offset);
}

/**
 * Plan a resolved query on `qb` itself, as planResolved() does on a copy; for a QueryBuilder the caller owns and
 * has copied already (the engine's private scope), so the plan costs no second copy. Throws ListError before any SQL.
 */
export function planInPlace<Q extends AnyQueryBuilder>(
  qb: Q,
  bound: BoundSchema,
  resolved: ResolvedQuery,
  options: ApplyOptions = {},
  filterParams?: FilterParams,
  filterSql?: string,
): PlannedQuery<Q> {
  const paging = resolvePaging(resolved, options);
  assertRoot(qb, bound);
  const sub = subQueryContext(qb, bound, options);
  if (resolved.filter) andWhereFilter(qb, bound, resolved.filter, sub, filterParams, filterSql);
  const joins = resolved.sort.some((t) => t.target !== undefined && t.target.relations.length > 0)
    ? joinSortPaths(qb, resolved.sort, sub.nextAlias, sub.filterOf)
    : undefined;
  const sort = effectiveSort(bound, resolved.sort, joins, (a) => aggregateKeySql(a, qb, bound, sub));
  qb.orderBy(orderByOf(bound.platform, dialectFor(bound.platform), qb.alias, sort) as never);
  setPage(qb, paging);
  return { qb, sort, paging };
}

/**
 * AND a resolved filter into `qb` in place (the caller passes its own copy); used for data and count queries.
 * Relationships become correlated sub-queries, never joins, so counting the result counts each root row once.
 */
export function applyFilter(
  qb: AnyQueryBuilder,
  bound: BoundSchema,
  filter: ResolvedFilter,
  options: ApplyOptions = {},
  filterParams?: FilterParams,
): void {
  andWhereFilter(qb, bound, filter, subQueryContext(qb, bound, options), filterParams);
}

/**
 * The values a planned filter sends, given its compiled fragment: the engine's statement compiler (engine/page/
 * compiled-page.ts) puts markers there to learn where each value lands in the whole statement. With `filterSql` (a
 * marker text), planInPlace() puts that text where the filter's SQL would stand, to learn where any filter goes.
 */
export type FilterParams = (fragment: SqlFragment) => readonly unknown[];

function andWhereFilter(
  qb: AnyQueryBuilder,
  bound: BoundSchema,
  filter: ResolvedFilter,
  sub: SubQueryContext,
  filterParams?: FilterParams,
  filterSql?: string,
): void {
  const where = fragmentIn(qb, bound, filter, sub);
  // The string form keeps `?` placeholders and their values apart; `where(raw(...))` would inline the values.
  qb.andWhere(filterSql ?? where.sql, [...(filterParams ? filterParams(where) : where.params)]);
}

/**
 * The SQL and values a resolved filter adds to `qb`'s where clause when planned on it (as planInPlace() would,
 * before any join), without changing `qb`: the compiled-statement path reads a request's filter values this way.
 */
export function filterFragment(
  qb: AnyQueryBuilder,
  bound: BoundSchema,
  filter: ResolvedFilter,
  options: ApplyOptions = {},
): SqlFragment {
  return fragmentIn(qb, bound, filter, subQueryContext(qb, bound, options));
}

function fragmentIn(qb: AnyQueryBuilder, bound: BoundSchema, filter: ResolvedFilter, sub: SubQueryContext) {
  const ctx = { platform: bound.platform, dialect: dialectFor(bound.platform), alias: qb.alias, relations: sub };
  // Generated aliases skip the ones the base scope uses, so those are part of what the compiled SQL depends on.
  return compileFilterCached(bound, filter, ctx, aliasesOf(qb).join(','));
}

/**
 * The SQL an aggregate sort key orders, selects and seeks by: its correlated sub-query behind a marker, so that the
 * inner filter's values and the related rows' filter values stay bound in the select list and ORDER BY too.
 */
function aggregateKeySql(aggregate: ResolvedAggregate, qb: AnyQueryBuilder, bound: BoundSchema, sub: SubQueryContext) {
  const ctx = { platform: bound.platform, dialect: dialectFor(bound.platform), alias: qb.alias, relations: sub };
  return deferSql(aggregateExpression(aggregate, ctx, compileFilter));
}

/**
 * One alias generator per planned query, skipping every table name and every alias the base scope uses; built on
 * first use, since most queries reach no relation and need no alias.
 */
function subQueryContext(qb: AnyQueryBuilder, bound: BoundSchema, options: ApplyOptions): SubQueryContext {
  const em = entityManagerOf(qb);
  let generate: AliasGenerator | undefined;
  const nextAlias: AliasGenerator = () => {
    generate ??= aliasGeneratorSkipping(tableNamesOf(em.getMetadata()), [qb.alias, ...aliasesOf(qb)]);
    return generate();
  };
  return {
    em,
    platform: bound.platform,
    nextAlias,
    filterOf: filterLookup(qb, options.filterConditions, options.filters),
  };
}

/** Refuse what apply() cannot build, before any SQL exists: a cursor, a search or fields (they need the engine). */
function assertApplicable(resolved: ResolvedQuery): void {
  if (resolved.cursor !== undefined)
    throw invalidParameter('cursor', 'cursor needs the engine: use createEngine().from(qb).list()');
  if (resolved.search !== undefined)
    throw invalidParameter('search', 'search needs the engine: use createEngine().from(qb).list()');
  if (resolved.fields !== undefined)
    throw invalidParameter('fields', 'fields needs the engine: use createEngine().from(qb).list()');
  if (resolved.facets !== undefined)
    throw invalidParameter('facets', 'facets needs the engine: use createEngine().from(qb).list()');
}

function assertRoot(qb: AnyQueryBuilder, bound: BoundSchema): void {
  const rootName = qb.mainAlias.meta.className;
  if (rootName !== bound.meta.className)
    throw invalidSchema(`the query builder selects ${rootName}, the schema is bound to ${bound.entityName}`);
}
