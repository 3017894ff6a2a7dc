import { type FilterQuery, Utils } from '@mikro-orm/core';

/**
 * Prefix every property key of a filter condition with `alias` (through `$and`, `$or` and `$not`), so MikroORM
 * resolves it on that table. Unqualified join conditions are resolved on the first alias of the same entity:
 * a self-referencing join (`category.parent`) would filter the root row instead of the joined one.
 *
 * @example qualify({ $or: [{ deletedAt: null }, { name: 'x' }] }, 'lq2') → { $or: [{ 'lq2.deletedAt': null }, { 'lq2.name': 'x' }] }
 */
export function qualify(cond: FilterQuery<any>, alias: string): FilterQuery<any> {
  if (!Utils.isPlainObject(cond)) return cond;
  const out: Record<string | symbol, unknown> = {};
  for (const key of Reflect.ownKeys(cond)) {
    const value = (cond as Record<string | symbol, unknown>)[key];
    // Raw-fragment keys are symbols, operators start with `$`, and a dotted key already names its alias.
    if (typeof key === 'symbol' || key.includes('.')) out[key] = value;
    else if (key === '$and' || key === '$or')
      out[key] = Array.isArray(value) ? value.map((c) => qualify(c as FilterQuery<any>, alias)) : value;
    else if (key === '$not') out[key] = qualify(value as FilterQuery<any>, alias);
    else if (key.startsWith('$')) out[key] = value;
    else out[`${alias}.${key}`] = value;
  }
  return out as FilterQuery<any>;
}
