import { type EntityManager, type EntityProperty, type FilterOptions, type FilterQuery, Utils } from '@mikro-orm/core';
import type { BoundRelation, BoundSchema, ResolvedAggregate, ResolvedFilter, ResolvedQuery } from '../bind/types.ts';
import { asListError, invalidSchema } from '../errors.ts';
import { activeFilterCondition, relationFilterOptions } from '../orm/active-filters.ts';
import { aliasesOf } from '../orm/qb-state.ts';
import { type AnyQueryBuilder, entityManagerOf } from '../orm/query-builder.ts';
import { createAliasGenerator, tableNamesOf } from './alias.ts';
import { conditionOn, reachedPaths, splitCondition } from './entity-filter-condition.ts';
import type { FilterLookup } from './sub-query-context.ts';

/**
 * The active MikroORM filters of every related entity a query reaches, merged into one condition per relation
 * (keys relative to the relation's target), as `em.find` would apply them. Built by `prepareFilters`.
 */
export interface FilterConditions {
  /** The filter options the conditions were computed with. */
  readonly options: FilterOptions | undefined;
  /** The merged condition of each relation's target (undefined: no active filter), keyed by relation property. */
  readonly byRelation: ReadonlyMap<EntityProperty, FilterQuery<any> | undefined>;
}

/**
 * Compute, with `em.applyFilters`, the merged active filter condition (entity, global and `em.addFilter` filters,
 * parameters from `em.setFilterParams` or the options, asynchronous conditions awaited) of every relation the query
 * reaches; without `resolved`, of every relation the bound schema exposes. Pass the result to planResolved/apply as
 * `filterConditions`.
 *
 * @example planResolved(qb, bound, resolved, { filterConditions: await prepareFilters(qb, bound, resolved, { softDelete: false }) })
 */
export async function prepareFilters(
  source: EntityManager | AnyQueryBuilder,
  bound: BoundSchema,
  resolved?: Pick<ResolvedQuery, 'filter' | 'sort'>,
  options?: FilterOptions,
): Promise<FilterConditions> {
  return prepareFiltersAlso(source, bound, resolved, options, []);
}

/** Compute the conditions prepareFilters() computes, and those of `also`, relations a query joins besides (facets). */
export async function prepareFiltersAlso(
  source: EntityManager | AnyQueryBuilder,
  bound: BoundSchema,
  resolved: Pick<ResolvedQuery, 'filter' | 'sort'> | undefined,
  options: FilterOptions | undefined,
  also: readonly EntityProperty[],
): Promise<FilterConditions> {
  try {
    return await conditionsOf(source, bound, resolved, options, also);
  } catch (err) {
    // A filter condition MikroORM cannot compile, or a filter missing its arguments, reaches callers as a ListError.
    throw asListError(err);
  }
}

async function conditionsOf(
  source: EntityManager | AnyQueryBuilder,
  bound: BoundSchema,
  resolved: Pick<ResolvedQuery, 'filter' | 'sort'> | undefined,
  options: FilterOptions | undefined,
  also: readonly EntityProperty[],
): Promise<FilterConditions> {
  const em = 'getPlatform' in source ? source : entityManagerOf(source);
  const byRelation = new Map<EntityProperty, FilterQuery<any> | undefined>();
  // `also`: relations the query joins besides its filter and sort (a facet's).
  const pending = [...(resolved ? relationsOfQuery(resolved) : relationsOfSchema(bound)), ...also];
  if (!resolved) {
    // apply() compiles the root's own filters too: a root condition reaching through relations needs their targets'.
    const root = await em.applyFilters(bound.meta.class, {}, options ?? {}, 'read');
    const { reaching } = splitCondition(bound.meta, isEmpty(root) ? undefined : (root as FilterQuery<any>));
    if (reaching !== undefined)
      for (const reached of reachedPaths({ em }, bound.meta, reaching)) pending.push(reached.prop);
  }
  for (let prop = pending.shift(); prop; prop = pending.shift()) {
    if (byRelation.has(prop)) continue;
    const target = prop.targetMeta;
    if (!target) throw invalidSchema(`${prop.name} has no target entity`);
    const found = await em.applyFilters(target.class, {}, relationFilterOptions(prop, options), 'read');
    const cond = isEmpty(found) ? undefined : (found as FilterQuery<any>);
    byRelation.set(prop, cond);
    // A condition that reaches through relations joins their targets, whose own filters apply in those joins.
    const { reaching } = splitCondition(target, cond);
    if (reaching !== undefined)
      for (const reached of reachedPaths({ em }, target, reaching)) pending.push(reached.prop);
  }
  return { options, byRelation };
}

/** Tell whether a resolved filter or sort goes through any relation (else no related filter can apply). */
export function reachesRelation(resolved: Pick<ResolvedQuery, 'filter' | 'sort'>): boolean {
  return relationsOfQuery(resolved).length > 0;
}

/**
 * Make the filter lookup a plan uses: prepared conditions when given (each relation must be in them), otherwise
 * conditions computed synchronously from the ORM's global and the entities' own filters. The synchronous path
 * cannot see `em.addFilter()` filters (MikroORM keeps them private) and refuses asynchronous conditions.
 */
export function filterLookup(
  qb: AnyQueryBuilder,
  prepared: FilterConditions | undefined,
  options: FilterOptions | undefined,
): FilterLookup {
  if (prepared)
    return (prop) => {
      if (!prepared.byRelation.has(prop))
        throw new Error(`listql: filterConditions were prepared for another query (no entry for ${prop.name})`);
      return prepared.byRelation.get(prop);
    };
  const cache = new Map<EntityProperty, FilterQuery<any> | undefined>();
  return (prop) => {
    if (!cache.has(prop)) cache.set(prop, syncCondition(entityManagerOf(qb), prop, options));
    return cache.get(prop);
  };
}

function syncCondition(
  em: EntityManager,
  prop: EntityProperty,
  options: FilterOptions | undefined,
): FilterQuery<any> | undefined {
  const meta = prop.targetMeta;
  if (!meta) throw invalidSchema(`${prop.name} has no target entity`);
  return activeFilterCondition(em, meta, relationFilterOptions(prop, options));
}

/**
 * Compute the root entity's active filter condition synchronously, as for related entities (ORM-wide and entity
 * filters; not `em.addFilter()` ones, which MikroORM keeps private), so apply() filters root and related rows alike.
 */
export function rootFilterCondition(
  qb: AnyQueryBuilder,
  options: FilterOptions | undefined,
  prepared?: FilterConditions,
): FilterQuery<any> | undefined {
  const em = entityManagerOf(qb);
  const meta = qb.mainAlias.meta;
  return rootCondition(qb, activeFilterCondition(em, meta, options), filterLookup(qb, prepared, options));
}

/**
 * Apply the root entity's active MikroORM filters to `qb` as `qb.applyFilters()` does, except that conditions
 * reaching through relations become a correlated EXISTS with the joined entities' filters (as `em.find` applies
 * them) instead of joins into the root query, which a to-many relation would repeat rows through.
 */
export async function applyRootFilters(qb: AnyQueryBuilder, options: FilterOptions | undefined): Promise<void> {
  const em = entityManagerOf(qb);
  const meta = qb.mainAlias.meta;
  const found = await em.applyFilters(meta.class, {}, options ?? {}, 'read');
  const cond = isEmpty(found) ? undefined : (found as FilterQuery<any>);
  const { reaching } = splitCondition(meta, cond);
  const byRelation = new Map<EntityProperty, FilterQuery<any> | undefined>();
  if (reaching !== undefined)
    for (const { prop } of reachedPaths({ em }, meta, reaching)) {
      if (byRelation.has(prop) || !prop.targetMeta) continue;
      const joined = await em.applyFilters(prop.targetMeta.class, {}, relationFilterOptions(prop, options), 'read');
      byRelation.set(prop, isEmpty(joined) ? undefined : (joined as FilterQuery<any>));
    }
  const where = rootCondition(qb, cond, filterLookup(qb, { options, byRelation }, options));
  if (where !== undefined) qb.andWhere(where as never);
}

function rootCondition(
  qb: AnyQueryBuilder,
  cond: FilterQuery<any> | undefined,
  filterOf: FilterLookup,
): FilterQuery<any> | undefined {
  const meta = qb.mainAlias.meta;
  if (splitCondition(meta, cond).reaching === undefined) return cond;
  const em = entityManagerOf(qb);
  const taken = [qb.alias, ...aliasesOf(qb), ...tableNamesOf(em.getMetadata())];
  const ctx = { em, platform: em.getPlatform(), nextAlias: createAliasGenerator(taken), filterOf };
  return conditionOn(ctx, meta, cond, qb.alias);
}

function isEmpty(cond: unknown): boolean {
  return cond === undefined || cond === null || (Utils.isPlainObject(cond) && Reflect.ownKeys(cond).length === 0);
}

/** Every relation property a resolved filter or sort goes through. */
function relationsOfQuery(resolved: Pick<ResolvedQuery, 'filter' | 'sort'>): EntityProperty[] {
  const out: EntityProperty[] = [];
  const hops = (relations: readonly BoundRelation[]) => {
    for (const relation of relations) out.push(relation.prop);
  };
  const walk = (filter: ResolvedFilter): void => {
    switch (filter.kind) {
      case 'compare':
      case 'like':
      case 'in':
      case 'null':
        hops(filter.target.relations);
        return;
      case 'not':
        walk(filter.operand);
        return;
      case 'and':
      case 'or':
        walk(filter.left);
        walk(filter.right);
        return;
      case 'quantifier':
        hops(filter.relations);
        walk(filter.predicate);
        return;
      case 'relationNull':
        hops(filter.relations);
        return;
      case 'aggregate':
        aggregate(filter.aggregate);
        return;
      default: {
        const never: never = filter;
        throw new Error(`unknown filter node ${String((never as ResolvedFilter).kind)}`);
      }
    }
  };
  // An aggregate reads its relation's rows (with their filters) and, through its inner filter, any relations there.
  const aggregate = (a: ResolvedAggregate): void => {
    hops(a.relations);
    if (a.predicate) walk(a.predicate as ResolvedFilter);
  };
  if (resolved.filter) walk(resolved.filter);
  for (const term of resolved.sort) {
    if (term.aggregate) aggregate(term.aggregate);
    else hops(term.target.relations);
  }
  return out;
}

/** Every relation property reachable through a bound schema (policies are acyclic, so this ends). */
function relationsOfSchema(bound: BoundSchema): EntityProperty[] {
  const out: EntityProperty[] = [];
  const seen = new Set<BoundSchema>();
  const visit = (schema: BoundSchema): void => {
    if (seen.has(schema)) return;
    seen.add(schema);
    for (const relation of schema.relations.values()) {
      out.push(relation.prop);
      visit(relation.target);
    }
  };
  visit(bound);
  return out;
}
