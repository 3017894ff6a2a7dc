import { defineDialect } from './base.ts';
import { escapeGlob } from './pattern.ts';

/**
 * SQLite through better-sqlite3 (MikroORM's `@mikro-orm/sqlite`). Its statements run synchronously and cannot be
 * stopped: the cost budget is the guard there, and the engine checks the abort signal between statements (the
 * default executor). MikroORM stores datetimes as epoch milliseconds and decimals as REAL.
 */
export const sqlite = defineDialect({
  name: 'sqlite',
  label: 'SQLite',

  // SQLite's LIKE folds ASCII case: GLOB is its case-sensitive pattern test. Its built-in lower() folds A–Z only.
  escapePattern: escapeGlob,
  patternWildcard: '*',
  patternTest: (subject, _column, _operator, pattern) => ({ sql: `${subject} glob ?`, params: [pattern] }),

  datetimesAsEpochMillis: true,
  decimalsAsDoubles: true,
  // better-sqlite3 reads INTEGER as a double; text keeps all 64 bits. Decimals are REAL there already.
  keyReadExpression: (shape, column) => (shape.kind === 'bigint' ? `cast(${column} as text)` : column),

  // better-sqlite3 binds numbers, bigints, strings, buffers and null only; MikroORM stores dates as epoch ms.
  driverValue: (value) => {
    if (value instanceof Date) return value.getTime();
    if (typeof value === 'boolean') return value ? 1 : 0;
    return value;
  },

  // Row values on the right of IN come only from a sub-query there: `(a, b) in (values (?, ?), …)`.
  tupleIn: (columns, rows) => {
    if (columns.length === 1) return `${columns[0]} in (${Array.from({ length: rows }, () => '?').join(', ')})`;
    const row = `(${columns.map(() => '?').join(', ')})`;
    return `(${columns.join(', ')}) in (values ${Array.from({ length: rows }, () => row).join(', ')})`;
  },
  // SQLITE_MAX_VARIABLE_NUMBER since SQLite 3.32, as better-sqlite3 builds it.
  maxParameters: 32_766,

  sortIndexNote: (nullable, direction) =>
    nullable && direction === 'asc'
      ? 'SQLite sorts NULLs first in ascending indexes, so no index serves this order with NULLs last'
      : undefined,
});
