import { ReferenceKind } from '@mikro-orm/core';
import type { BoundSchema, SelectedField } from '../../bind/types.ts';
import type { AnyQueryBuilder } from '../../plan/plan-query.ts';
import { publicNameOf } from '../../policy/bind-field.ts';
import type { Item } from '../serialize.ts';

/**
 * Select what a `fields` request reads: the primary key's properties, then the picked ones. A to-one relation
 * (a key or a picked relation) is selected by its own columns: MikroORM replaces `alias.relation` by the joined
 * row's key whenever the relation is also joined (a sort through it), and a LEFT JOIN's key is NULL where the
 * related row is missing or filtered out, which would drop the root row's identity.
 */
export function selectPicked(qb: AnyQueryBuilder, bound: BoundSchema, fields: readonly SelectedField[]): void {
  const properties = new Set(bound.meta.primaryKeys);
  // A relation key only a nested selection needs is read by the tree's own link columns (see engine/tree/).
  for (const f of fields) if (!f.implied) properties.add(f.property);
  const columns: string[] = [];
  for (const name of properties) {
    const prop = bound.meta.properties[name]!;
    if (prop.kind === ReferenceKind.SCALAR) columns.push(`${qb.alias}.${name}`);
    else for (const column of prop.fieldNames) columns.push(`${qb.alias}.${column}`);
  }
  qb.select(columns);
}

/**
 * The item keys a `fields` request keeps: the primary key's public names and the picked fields'. A relation key that
 * only a nested selection needs (`implied`) is read but not kept: the selection's own key carries the object.
 */
export function itemKeys(bound: BoundSchema, fields: readonly SelectedField[]): ReadonlySet<string> {
  const keys = new Set(bound.meta.primaryKeys.map((pk) => publicNameOf(bound.meta.properties[pk]!)));
  for (const f of fields) if (!f.implied) keys.add(f.publicName);
  return keys;
}

/**
 * Keep only the requested keys of each item, in the order the item has them. Rows that selected only those columns
 * give such items already; a base scope's own selection or hydration may give more, and this keeps the promise.
 */
export function projectItems(items: readonly Item[], keys: ReadonlySet<string>): Item[] {
  return items.map((item) => {
    const out: Item = {};
    for (const key of Object.keys(item)) if (keys.has(key)) out[key] = item[key];
    return out;
  });
}

/** The item keys of each selection's fields (itemKeys()), kept with the fields: a repeated request reuses its own. */
const kept = new WeakMap<readonly SelectedField[], ReadonlySet<string>>();

/** itemKeys(), once per selection's fields. */
export function keptKeys(bound: BoundSchema, fields: readonly SelectedField[]): ReadonlySet<string> {
  let keys = kept.get(fields);
  if (!keys) {
    keys = itemKeys(bound, fields);
    kept.set(fields, keys);
  }
  return keys;
}

/**
 * projectItems() of items just written for this request (nothing else refers to them): the items themselves when
 * none holds a key beyond `keys`, as rows that selected only those columns give them.
 */
export function keepPicked(items: Item[], keys: ReadonlySet<string>): Item[] {
  const extra = (item: Item) => {
    for (const key in item) if (!keys.has(key)) return true;
    return false;
  };
  return items.some(extra) ? projectItems(items, keys) : items;
}
