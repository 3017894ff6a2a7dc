import { type EntityProperty, type FilterQuery, Utils } from '@mikro-orm/core';
import { relationFilterOptions } from '../../orm/active-filters.ts';
import { entityManagerOf } from '../../orm/query-builder.ts';
import type { FilterConditions } from '../../plan/entity-filters.ts';
import type { ListContext } from '../config.ts';
import type { Scope } from '../scope.ts';

// The related entities' filter conditions a remembered shape was derived under, read again (listing-memo.ts).

/** The active filter condition of each related entity in `relations`, read as prepareFilters() reads them. */
export async function relatedConditions<C extends ListContext>(
  scope: Scope<C>,
  relations: readonly EntityProperty[],
): Promise<FilterConditions> {
  const em = entityManagerOf(scope.base);
  const byRelation = new Map<EntityProperty, FilterQuery<any> | undefined>();
  for (const prop of relations) {
    const where = {};
    const found = await em.applyFilters(
      prop.targetMeta!.class,
      where,
      relationFilterOptions(prop, scope.filters),
      'read',
    );
    byRelation.set(prop, found === where || isEmpty(found) ? undefined : (found as FilterQuery<any>));
  }
  return { options: scope.filters, byRelation };
}

/** Empty as prepareFilters() tells it: no condition, or a plain object without keys. */
function isEmpty(cond: unknown): boolean {
  return cond === undefined || cond === null || (Utils.isPlainObject(cond) && Reflect.ownKeys(cond).length === 0);
}
