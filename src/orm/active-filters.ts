import {
  type Dictionary,
  type EntityManager,
  type EntityMetadata,
  type EntityProperty,
  type FilterDef,
  type FilterOptions,
  type FilterQuery,
  QueryHelper,
  Utils,
} from '@mikro-orm/core';
import { invalidSchema } from '../errors.ts';

/**
 * MikroORM's filter computation, run synchronously: `em.applyFilters()` is asynchronous (it awaits conditions and
 * sees `em.addFilter()` filters), which apply() cannot be. This mirrors it with QueryHelper, a class MikroORM marks
 * internal (getActiveFilters, processWhere, mergePropertyFilters).
 *
 * Checked against MikroORM 7.2.1 (the development pin), 7.2.2 with SQLite and 7.2.5 with PostgreSQL (`npm run
 * compat`). When a version differs: a missing QueryHelper member throws `invalid_schema` naming it, before any SQL
 * is sent, rather than filter related rows otherwise than `em.find` would.
 */

type HelperName = 'getActiveFilters' | 'processWhere' | 'mergePropertyFilters';

function helper<K extends HelperName>(name: K): (typeof QueryHelper)[K] {
  const member = (QueryHelper as unknown as Record<string, unknown>)[name];
  if (typeof member !== 'function')
    throw invalidSchema(
      `this MikroORM version has no QueryHelper.${name}(), which listql uses to apply MikroORM filters as em.find does`,
    );
  return member.bind(QueryHelper) as (typeof QueryHelper)[K];
}

/** Merge a relation's own `filters` setting with the query's filter options, as MikroORM does (the query's win). */
export function relationFilterOptions(
  prop: EntityProperty,
  options: FilterOptions | undefined,
): FilterOptions | undefined {
  return helper('mergePropertyFilters')(prop.filters, options) as FilterOptions | undefined;
}

/**
 * Compute an entity's active filter condition synchronously: ORM-wide and entity filters, with the precedence and
 * arguments em.applyFilters uses; not `em.addFilter()` ones (MikroORM keeps them private). Throws `invalid_schema`
 * for a filter missing its arguments or with an asynchronous condition.
 */
export function activeFilterCondition(
  em: EntityManager,
  meta: EntityMetadata,
  opts: FilterOptions | undefined,
): FilterQuery<any> | undefined {
  const active = new Map<string, FilterDef>();
  const activeFilters = helper('getActiveFilters');
  // Same precedence as em.applyFilters: ORM-wide filters first, then the entity's own.
  for (const source of [em.config.get('filters') as Dictionary<FilterDef>, meta.filters as Dictionary<FilterDef>])
    for (const def of activeFilters(meta, opts, source)) if (!active.has(def.name)) active.set(def.name, def);
  const conds: FilterQuery<any>[] = [];
  for (const def of active.values()) {
    let cond: unknown = def.cond;
    if (typeof cond === 'function') {
      const given = (opts as Dictionary | undefined)?.[def.name];
      const args = Utils.isPlainObject(given) ? given : em.getFilterParams(def.name);
      if (!args && cond.length > 0 && def.args !== false)
        throw invalidSchema(`no arguments provided for filter '${def.name}'`);
      cond = cond(args, 'read', em, undefined, meta.className);
      if (cond instanceof Promise || typeof (cond as PromiseLike<unknown>)?.then === 'function')
        throw invalidSchema(
          `filter '${def.name}' of ${meta.className} has an asynchronous condition, which apply() cannot await: ` +
            'pass filterConditions from prepareFilters()',
        );
    }
    const where = helper('processWhere')({
      where: cond as FilterQuery<any>,
      entityName: meta.class,
      metadata: em.getMetadata(),
      platform: em.getPlatform(),
      aliased: true,
    });
    if (!isEmpty(where)) conds.push(where);
  }
  if (conds.length === 0) return undefined;
  return conds.length === 1 ? conds[0] : { $and: conds };
}

function isEmpty(cond: unknown): boolean {
  return cond === undefined || cond === null || (Utils.isPlainObject(cond) && Reflect.ownKeys(cond).length === 0);
}
