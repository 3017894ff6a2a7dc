import type { EntityManager, EntityMetadata } from '@mikro-orm/core';
import type { BoundSchema, SelectedField } from '../../bind/types.ts';
import { compileItemWriter } from '../../orm/item-writer.ts';
import { type CheckedItemWriter, checkedItemWriter, entityRows } from '../../orm/writer-check.ts';
import { itemKeys, projectItems } from '../page/picked-fields.ts';
import { type Item, serializeRows } from '../serialize.ts';

/**
 * The item writer of each nested target, compiled once per entity (its metadata belongs to one ORM) and checked
 * against serialize() on its first rows as the root's is (orm/writer-check.ts); null when the entity needs hydration.
 */
const writers = new WeakMap<EntityMetadata, CheckedItemWriter | null>();

function writerOf(em: EntityManager, meta: EntityMetadata): CheckedItemWriter | null {
  let writer = writers.get(meta);
  if (writer === undefined) {
    const compiled = compileItemWriter(em, meta);
    writer = compiled
      ? checkedItemWriter(compiled, (rows) => serializeRows(em, meta.class, entityRows(rows, meta)))
      : null;
    writers.set(meta, writer);
  }
  return writer;
}

/**
 * Write a level's rows (entity properties only, each identity once) as items, exactly as the top level writes its
 * own: the item writer, else serialize() of hydrated rows; then keep the target's primary key and the picked fields.
 */
export function writeLevelItems(
  em: EntityManager,
  target: BoundSchema,
  fields: readonly SelectedField[],
  rows: readonly Item[],
): Item[] {
  if (rows.length === 0) return [];
  const { meta } = target;
  const items = writerOf(em, meta)?.(rows) ?? serializeRows(em, meta.class, rows);
  return projectItems(items, itemKeys(target, fields));
}

/**
 * A value that is equal (as a Map key) for two rows exactly when they hold the same primary key: a single key's value
 * itself when it is a string or a number (a Map tells 1 from '1'), else the key's JSON (bigints marked).
 */
export function identityOf(row: Item, meta: EntityMetadata): unknown {
  if (meta.primaryKeys.length === 1) {
    const value = row[meta.primaryKeys[0]!];
    if (typeof value === 'number' || typeof value === 'string') return value;
  }
  return JSON.stringify(
    meta.primaryKeys.map((name) => row[name]),
    (_, value) => (typeof value === 'bigint' ? `${value}n` : value),
  );
}
