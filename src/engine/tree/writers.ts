import type { EntityManager, EntityMetadata } from '@mikro-orm/core';
import type { BoundSchema, SelectedField } from '../../bind/types.ts';
import { compileItemWriter } from '../../orm/item-writer.ts';
import { compileRowWriter, mapDriverRows } from '../../orm/row-writer.ts';
import {
  type CheckedItemWriter,
  type CheckedRowWriter,
  checkedItemWriter,
  checkedRowWriter,
  entityRows,
} from '../../orm/writer-check.ts';
import { keepPicked, keptKeys } from '../page/picked-fields.ts';
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

/** The row writer of each nested target (driver rows straight to items), checked layout by layout as the root's is. */
const rowWriters = new WeakMap<EntityMetadata, CheckedRowWriter | null>();

/**
 * The checked row writer of a level's target, or null when the entity has none (its items need hydration): only
 * then may a level's compiled statement be read unmapped (driver rows, statement.ts).
 */
export function rowWriterOf(em: EntityManager, meta: EntityMetadata): CheckedRowWriter | null {
  let writer = rowWriters.get(meta);
  if (writer === undefined) {
    const compiled = compileRowWriter(em, meta);
    writer = compiled
      ? checkedRowWriter(compiled, (raw) =>
          serializeRows(em, meta.class, entityRows(mapDriverRows(em, meta, raw), meta)),
        )
      : null;
    rowWriters.set(meta, writer);
  }
  return writer;
}

/**
 * Write a level's rows as items. `driver`: the rows are the driver's (column names, driver values, listql's extra
 * columns still in them), written by the row writer; where a layout declines, they are mapped as MikroORM maps them
 * and written as mapped rows are.
 */
export function writeRows(
  em: EntityManager,
  target: BoundSchema,
  fields: readonly SelectedField[],
  rows: readonly Item[],
  driver: boolean,
): Item[] {
  if (!driver) return writeLevelItems(em, target, fields, rows);
  if (rows.length === 0) return [];
  const { meta } = target;
  const items = rowWriterOf(em, meta)?.(rows);
  if (items) return keepPicked(items, keptKeys(target, fields));
  return writeLevelItems(em, target, fields, entityRows(mapDriverRows(em, meta, rows), meta));
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
  return keepPicked(items, keptKeys(target, fields));
}

/**
 * Read a row's identity: a value that is equal (as a Map key) for two rows exactly when they hold the same primary
 * key: a single key's value itself when it is a string or a number (a Map tells 1 from '1'), else the key's JSON
 * (bigints marked). `driver`: the rows are the driver's, their key under its columns' names. The key's names are
 * looked up once for all of a level's rows.
 */
export function identityReader(meta: EntityMetadata, driver = false): (row: Item) => unknown {
  const names = driver ? pkColumns(meta) : meta.primaryKeys;
  const only = names.length === 1 ? names[0]! : undefined;
  return (row) => {
    if (only !== undefined) {
      const value = row[only];
      if (typeof value === 'number' || typeof value === 'string') return value;
    }
    return JSON.stringify(
      names.map((name) => row[name]),
      (_, value) => (typeof value === 'bigint' ? `${value}n` : value),
    );
  };
}

const pkColumnsOf = new WeakMap<EntityMetadata, readonly string[]>();

/** The primary key's columns as a driver row names them (a composite foreign key's every column). */
function pkColumns(meta: EntityMetadata): readonly string[] {
  let columns = pkColumnsOf.get(meta);
  if (!columns) {
    columns = meta.getPrimaryProps().flatMap((prop) => prop.fieldNames ?? []);
    pkColumnsOf.set(meta, columns);
  }
  return columns;
}
