import { isDeepStrictEqual } from 'node:util';
import type { EntityMetadata } from '@mikro-orm/core';
import { objectRow } from '../dialect/array-rows.ts';
import type { ItemWriter, Row } from './item-writer.ts';
import type { RowLayout, RowWriter } from './row-writer.ts';

/** Where a checked item writer stands: not yet compared with serialize(), agreeing with it, or set aside. */
export type WriterState = 'unchecked' | 'trusted' | 'declined';

/** An item writer that is compared once with MikroORM's serialize() before it is trusted. */
export interface CheckedItemWriter extends ItemWriter {
  /** The writer's standing so far (for tests and diagnostics). */
  readonly state: WriterState;
}

/**
 * Guard the compiled item writer (which reproduces MikroORM's serialize() without hydrating) against a MikroORM
 * release whose serialize() writes items differently: the first page the writer answers is also serialized by
 * MikroORM itself (`reference`); when the two differ in any value or key order, the writer is set aside for good
 * and hydration answers every page, so a user never sees items that serialize() would not give.
 *
 * Checked against MikroORM 7.2.1 (the development pin), 7.2.2 with SQLite and 7.2.5 with PostgreSQL (`npm run
 * compat`). That fallback is the safe path when a version serializes differently.
 */
export function checkedItemWriter(writer: ItemWriter, reference: (rows: readonly Row[]) => Row[]): CheckedItemWriter {
  let state: WriterState = 'unchecked';
  const write = (rows: readonly Row[]): Row[] | undefined => {
    if (state === 'declined') return undefined;
    if (state === 'trusted' || rows.length === 0) return writer(rows);
    // The writer's rows stay untouched: the reference copies what it hands to hydration.
    const items = writer(rows);
    if (items === undefined) return undefined;
    const expected = reference(rows);
    if (sameItems(items, expected)) {
      state = 'trusted';
      return items;
    }
    state = 'declined';
    return expected;
  };
  return Object.defineProperty(write, 'state', { get: () => state, enumerable: true }) as CheckedItemWriter;
}

/** A row writer whose layouts are each compared once with MikroORM's serialize() before they are trusted. */
export interface CheckedRowWriter {
  /** Items of a page of driver rows, or undefined: map the rows and take the mapped path. */
  (rows: readonly Row[]): Row[] | undefined;
  /** Items of a page of rows read as arrays of `columns`, or undefined: make the rows objects and call the writer. */
  readonly arrays: (rows: readonly (readonly unknown[])[], columns: readonly string[]) => Row[] | undefined;
  /** Where each layout seen so far stands, by layout key (for tests and diagnostics). */
  readonly states: ReadonlyMap<string, WriterState>;
}

/**
 * Guard the row writer (which folds MikroORM's result mapper into the item writer) as checkedItemWriter() guards
 * the item writer, layout by layout: the first page of a layout is also mapped and serialized by MikroORM itself
 * (`reference`, given the driver's rows); a layout whose items differ in any value or key order is set aside for
 * good, and its pages take the mapped path (MikroORM's mapping, then the item writer or hydration).
 */
export function checkedRowWriter(writer: RowWriter, reference: (rows: readonly Row[]) => Row[]): CheckedRowWriter {
  const states = new Map<string, WriterState>();
  // `objects`: the rows as the reference reads them (arrays made objects).
  const checked = (layout: RowLayout | undefined, rows: readonly Row[], objects: () => readonly Row[]) => {
    if (!layout) return undefined;
    const state = states.get(layout.key);
    if (state === 'declined') return undefined;
    const items = layout.write(rows);
    if (state === 'trusted' || items === undefined) return items;
    // The writer reads the rows without changing them: the reference maps the same rows.
    const expected = reference(objects());
    const agrees = sameItems(items, expected);
    states.set(layout.key, agrees ? 'trusted' : 'declined');
    return agrees ? items : expected;
  };
  const write = (rows: readonly Row[]): Row[] | undefined =>
    rows.length === 0 ? [] : checked(writer.layout(rows[0]!), rows, () => rows);
  const arrays: CheckedRowWriter['arrays'] = (rows, columns) =>
    rows.length === 0
      ? []
      : checked(writer.arrayLayout?.(columns), rows as unknown as Row[], () => rows.map((r) => objectRow(r, columns)));
  Object.defineProperty(write, 'arrays', { value: arrays, enumerable: true });
  return Object.defineProperty(write, 'states', { value: states, enumerable: true }) as CheckedRowWriter;
}

/** Copy rows keeping only the entity's properties (no cursor-key columns), as hydration expects them. */
export function entityRows(rows: readonly Row[], meta: EntityMetadata): Row[] {
  return rows.map((row) => {
    const copy: Row = {};
    for (const key of Object.keys(row)) if (key in meta.properties) copy[key] = row[key];
    return copy;
  });
}

/** Tell whether two item lists are equal value for value, with the same keys in the same order at every level. */
function sameItems(a: readonly Row[], b: readonly Row[]): boolean {
  return a.length === b.length && a.every((item, i) => sameKeyOrder(item, b[i]) && isDeepStrictEqual(item, b[i]));
}

function sameKeyOrder(a: unknown, b: unknown): boolean {
  if (!isPlainObject(a) || !isPlainObject(b)) return true;
  const keys = Object.keys(a);
  const other = Object.keys(b);
  return keys.length === other.length && keys.every((k, i) => k === other[i] && sameKeyOrder(a[k], b[k]));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
