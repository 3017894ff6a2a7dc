import { objectRow } from '../dialect/array-rows.ts';
import type { CursorKey } from '../keyset/cursor-plan.ts';
import { dropKeys } from '../keyset/key-columns.ts';
import { type AnyQueryBuilder, isCompiledBuilder } from '../orm/query-builder.ts';
import { mapDriverRows } from '../orm/row-writer.ts';
import type { ListContext } from './config.ts';
import type { Scope } from './scope.ts';
import { type Item, serializeRows } from './serialize.ts';

/**
 * Whether a page's statement is run unmapped (`execute('all', false)`), its items then written from the driver's rows
 * by the row writer: where the entity has one and the statement is a compiled one, whose rows MikroORM would map by
 * its result mapper alone (no joined entities, no result cache), so that mapping can be done here instead when needed.
 */
export function readsDriverRows<C extends ListContext>(scope: Scope<C>, qb: AnyQueryBuilder): boolean {
  return scope.rowWriter !== undefined && isCompiledBuilder(qb);
}

/**
 * The items of a page's rows (key columns already taken): from driver rows by the row writer, or, where it declines
 * (and for mapped rows), as before: the item writer, else hydration and serialize() in a throw-away fork. `columns`:
 * the driver's rows are arrays of these columns (dialect/array-rows.ts), made objects only where the writer declines.
 */
export function pageItems<C extends ListContext>(
  scope: Scope<C>,
  rows: readonly Item[],
  keys: readonly CursorKey[],
  driverRows: boolean,
  columns?: readonly string[],
): Item[] {
  let mapped = rows;
  if (driverRows && columns) {
    const arrays = rows as unknown as readonly (readonly unknown[])[];
    const items = scope.rowWriter?.arrays(arrays, columns);
    if (items) return items;
    mapped = arrays.map((row) => objectRow(row, columns));
  }
  if (driverRows) {
    const items = scope.rowWriter?.(mapped);
    if (items) return items;
    mapped = mapDriverRows(scope.em, scope.bound.meta, mapped);
  }
  // The item writer reads entity properties only; hydration gets rows without the key columns.
  return (
    scope.writer?.(mapped) ??
    serializeRows(
      scope.em,
      scope.bound.meta.class,
      mapped.map((row) => dropKeys(row, keys)),
    )
  );
}
