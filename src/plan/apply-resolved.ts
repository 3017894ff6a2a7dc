import type { FilterOptions } from '@mikro-orm/core';
import type { QueryBuilder } from '@mikro-orm/sql';
import type { BoundSchema, ResolvedFilter, ResolvedQuery } from '../bind/types.ts';
import { ListError } from '../errors.ts';
import { dialectOf } from './dialect.ts';
import { effectiveSort, orderByOf, type SortKey } from './order.ts';
import { type Paging, resolvePaging } from './paging.ts';
import { compileFilter } from './predicate.ts';
import { assertApplicable } from './support.ts';

/**
 * A QueryBuilder in any state of MikroORM's type-level tracking (selected fields, joins, aliases), so a base
 * scope such as `em.createQueryBuilder(Book, 'b').select(['id', 'title'])` is accepted and its type comes back.
 */
export type AnyQueryBuilder = QueryBuilder<any, any, any, any, any, any, any>;

/** Paging bounds of apply(); each defaults to DEFAULT_PAGING. */
export interface ApplyOptions {
  defaultLimit?: number;
  maxLimit?: number;
  maxOffset?: number;
  /**
   * MikroORM filter options (`{ softDelete: false }`, `false`) for the entities the query reaches through
   * relationships; the root's own filters are the caller's QueryBuilder's business.
   */
  filters?: FilterOptions;
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
 * Plan a resolved query on a copy of `qb`: filter ANDed into its where, its order replaced by the effective sort,
 * limit and offset set. Cursor and search are left to the caller (the engine). Throws ListError before any SQL.
 */
export function planResolved<T extends object, Q extends AnyQueryBuilder = QueryBuilder<T>>(
  qb: Q,
  bound: BoundSchema,
  resolved: ResolvedQuery,
  options: ApplyOptions = {},
): PlannedQuery<Q> {
  const paging = resolvePaging(resolved, options);
  assertRoot(qb, bound);
  const sort = effectiveSort(bound, resolved.sort);

  // Work on a copy: the caller's base scope is reused across requests and must never change or be finalized.
  const out = qb.clone() as Q;
  if (resolved.filter) applyFilter(out, bound, resolved.filter, options);
  out.orderBy(orderByOf(bound.platform, out.alias, sort) as never);
  out.limit(paging.limit);
  if (paging.offset !== undefined) out.offset(paging.offset);
  return { qb: out, sort, paging };
}

/** AND a resolved filter into `qb` in place (the caller passes its own copy); used for data and count queries. */
export function applyFilter(
  qb: AnyQueryBuilder,
  bound: BoundSchema,
  filter: ResolvedFilter,
  _options: ApplyOptions = {},
): void {
  const where = compileFilter(filter, {
    platform: bound.platform,
    dialect: dialectOf(bound.platform),
    alias: qb.alias,
  });
  // The string form keeps `?` placeholders and their values apart; `where(raw(...))` would inline the values.
  qb.andWhere(where.sql, [...where.params]);
}

function assertRoot(qb: AnyQueryBuilder, bound: BoundSchema): void {
  const rootName = qb.mainAlias.meta.className;
  if (rootName !== bound.meta.className)
    throw new ListError(
      'invalid_schema',
      `the query builder selects ${rootName}, the schema is bound to ${bound.entityName}`,
    );
}
