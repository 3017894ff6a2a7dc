import type { StatementGuard } from './statement.ts';

/**
 * Rows as arrays. A statement whose rows only the row writer reads may ask for each row as the array of its column
 * values, in the statement's column order, instead of an object keyed by column names: a dialect's executor answers so
 * where its driver reads rows that way (SQLite: better-sqlite3's `raw` mode) and registers the rows' column names;
 * any other executor returns objects, as always. The caller tells which it got from arrayRowColumns().
 *
 * Why: better-sqlite3 builds an object row with an object literal of a function it generates per statement, and V8
 * may decide, for good, to allocate that literal's objects as old (pretenuring: a page's rows are all alive when a
 * young-generation collection meets them). A walk's rows, dead as soon as their items are written, then wait for
 * full collections. An array row is made from the values as rest parameters, which V8 never pretenures.
 */
const asked = new WeakSet<object>();
const columnsOfRows = new WeakMap<object, readonly string[]>();

/**
 * A guard that also asks for rows as arrays: `guard` itself when the caller owns it (a copy made for this one
 * statement), else a copy of it, so the request's other statements (its count, nested levels) still get objects.
 */
export function arrayRowsGuard(guard: StatementGuard, owned: boolean): StatementGuard {
  const own = owned ? guard : { ...guard };
  asked.add(own);
  return own;
}

/** Whether the statement under `guard` may answer with rows as arrays (arrayRowsGuard()). */
export function asksArrayRows(guard: StatementGuard | undefined): boolean {
  return guard !== undefined && asked.has(guard);
}

/** Register `rows` as rows of arrays holding `columns`, in that order; returns them. */
export function arrayRows<R extends readonly unknown[]>(rows: R, columns: readonly string[]): R {
  columnsOfRows.set(rows, columns);
  return rows;
}

/** The column names of rows an executor read as arrays, or undefined for rows of objects. */
export function arrayRowColumns(rows: readonly unknown[]): readonly string[] | undefined {
  return columnsOfRows.get(rows);
}

/**
 * One array row as the object the driver would have given: each column under its name, a repeated name holding its
 * last column's value (as an object literal does).
 */
export function objectRow(row: readonly unknown[], columns: readonly string[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i++) {
    const name = columns[i]!;
    if (name === '__proto__')
      Object.defineProperty(object, name, { value: row[i], enumerable: true, writable: true, configurable: true });
    else object[name] = row[i];
  }
  return object;
}
