import { defineDialect } from './base.ts';
import { caselessTest } from './mysql/caseless.ts';
import { readDatesAsUtc } from './mysql/date-bytes.ts';
import { executeMysql } from './mysql/execute.ts';
import { readMysqlPlan } from './mysql/plan-estimate.ts';
import { keysetHint } from './mysql/statement-text.ts';
import { escapeLike } from './pattern.ts';
import type { Dialect, KeyColumn } from './types.ts';

const MYSQL_FLOAT = /^float\s*(?:\(\s*(\d+)\s*(?:,\s*\d+\s*)?\))?(?:\s+unsigned)?$/i;
const ASCII_UPPER = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];

/**
 * Build the MySQL family's dialect (MikroORM's `@mikro-orm/mysql` and `@mikro-orm/mariadb`): one SQL for both
 * servers, apart from `mariaDb`'s few differences (`create index if not exists`, how a statement's time limit is
 * written, how FLOAT values print).
 *
 * size: one object literal, the family's whole table of flags and rules, reads best in one piece.
 */
function mysqlFamily(mariaDb: boolean): Dialect {
  return defineDialect({
    name: 'mysql',
    label: 'MySQL or MariaDB',
    mariaDb,

    // Real unsigned types of every width (`bigint unsigned` up to 18446744073709551615).
    storedIntegerRange: (range) => range,
    // `float` and `float(p)` with p ≤ 24 (their `real` and `float(p)` with p > 24 are doubles). `float(M, D)`
    // (deprecated) is single precision too; only `float(p)` with one argument above 24 is a double.
    isSinglePrecision: (columnType) => {
      const m = MYSQL_FLOAT.exec(columnType);
      return m !== null && (m[1] === undefined || /,/.test(columnType) || Number(m[1]) <= 24);
    },
    narrowTimestamps: true,
    enumsSortByPosition: true,
    // Literals of 82 or more digits turn into another number there (decimal-scale.ts, clampDecimal).
    decimalDigits: 65,

    // lower() folds every letter its character set knows; replace() matches case-sensitively, letter by letter.
    foldedColumn: (column) =>
      ASCII_UPPER.reduce((inner, c) => `replace(${inner}, '${c}', '${c.toLowerCase()}')`, column),
    // MariaDB: the `i` operators test the column's bytes against a caseless regular expression in one pass
    // (mysql/caseless.ts), where folding the column letter by letter took 26 replace() calls per row. MySQL 8's ICU
    // expressions fold every letter Unicode knows and refuse binary strings: it keeps folding letter by letter.
    insensitiveTest: mariaDb ? caselessTest : undefined,
    // Comparisons follow the column's collation (case-insensitive by default): compare the bytes instead.
    caseSensitive: (expression) => `binary ${expression}`,
    // A backslash inside a MySQL string literal is itself an escape: `!` is written alike everywhere.
    escapePattern: (value) => escapeLike(value, '!'),
    // `startswith` adds the same test under the collation first: a superset an index on the column serves as a range.
    patternTest: (subject, column, operator, pattern) => {
      const exact = `binary ${subject} like ? escape '!'`;
      if (operator !== 'startswith') return { sql: exact, params: [pattern] };
      return { sql: `(${column} like ? escape '!' and ${exact})`, params: [pattern, pattern] };
    },

    emulatesNullsOrder: true,
    // A guard of its own (its copy of the request's), marked for execute.ts to read those columns from their bytes.
    writerDatesGuard: (guard, utcColumns) => {
      const own = { ...guard };
      readDatesAsUtc(own, utcColumns);
      return own;
    },
    collationSortsCaselessly: true,
    // NULLs are the smallest value: `asc` puts them first and `desc` last; the other two lead with an `is null` term,
    // as MikroORM writes them in ORDER BY.
    orderTerm: (column, direction, nulls) => {
      if (nulls === 'any' || (nulls === 'first') === (direction === 'asc')) return `${column} ${direction}`;
      return `${column} is ${nulls === 'last' ? '' : 'not '}null, ${column} ${direction}`;
    },
    // MariaDB reads `(a, id) > (?, ?)` as a filter over a full index scan, never a range.
    rowValueSeek: false,
    seeksNullableByUnion: true,
    // MariaDB weighs merging the indexes of the keyset predicate's `or` branches: up to 15 times the first page's
    // planning. Marked so that its executor turns index merge off when no other `or` is in the statement.
    keysetHint: mariaDb ? keysetHint : undefined,
    // Each branch is read along the sort key's index and runs its sub-queries row by row there (not materialized
    // once, as a plain page does): measured 2 to 6 times a plain page's cost per branch.
    unionBranchCost: 4,
    // Joining and ordering every row took up to 1.5 s there where PostgreSQL and SQLite took under 0.4 s.
    relationSortCost: 6,

    // MySQL casts to SIGNED, DECIMAL(65, 30) (the widest it has: avg() keeps 4 more digits than its input) and DOUBLE.
    numberParameter: (kind) =>
      kind === 'integer'
        ? 'cast(? as signed)'
        : kind === 'decimal'
          ? 'cast(? as decimal(65, 30))'
          : 'cast(? as double)',
    keyReadExpression,
    sortedExpression,
    // A FLOAT key is read as the double it compares as: exactly a single-precision value.
    singleFloatKeyHolds: (value) => Math.fround(value) === value,

    backslashEscapes: true,
    driverValue: (value, platform) => {
      // The text MikroORM would inline (its configured time zone, milliseconds), without the quotes around it.
      if (value instanceof Date) return platform.escape(value).replace(/^'|'$/g, '');
      if (typeof value === 'bigint') return value.toString();
      if (typeof value === 'boolean') return value ? 1 : 0;
      return value;
    },
    // Statements run as prepared statements on the driver's mysql2 pool (mysql/execute.ts).
    connectionMethods: ['getNativeClient'],
    execute: (run) => executeMysql(run, mariaDb),
    stopsStatements: true,
    planEstimate: { explainPrefix: 'explain format=json ', costName: 'rows examined', read: readMysqlPlan },

    // MariaDB cannot index an expression (an index on a generated column is not used for the same expression
    // written in a query), so the `i` operators scan there.
    foldedIndexOperators: [],
    // MariaDB accepts `if not exists` on create index; MySQL does not.
    createIndexIfNotExists: mariaDb,
    foreignKeyIndexNote:
      'InnoDB already indexes the columns of a foreign key constraint: this index is needed only where there is none',
    sortIndexNote: (nullable, direction) => {
      if (nullable && direction === 'asc')
        return (
          'MySQL and MariaDB sort NULLs first in ascending indexes: listql reads the values and the NULLs of this ' +
          'order as separate index ranges (an offset page sorts the rows it selects)'
        );
      if (direction === 'desc')
        return 'a descending index key needs MySQL 8.0 or MariaDB 10.8 or later (earlier versions ignore `desc`)';
      return undefined;
    },
  });
}

/**
 * BIGINT (signed or unsigned) and DECIMAL as exact text, which the server compares back with the column exactly (as
 * integers / decimals, not doubles); DATETIME and TIMESTAMP with all six fractional digits (a column declared with
 * fewer stores zeros there), a string the server reads back as the same DATETIME(6) value; FLOAT widened to the
 * double it compares as (a single-precision value read as text would be rounded to 6 digits); a native ENUM as its
 * position, the order it sorts in. TINYINT(1) booleans are read as 0 / 1 (keyset/key-values.ts, readKeyValue).
 *
 * TIMESTAMP and time zones: the server stores a TIMESTAMP as UTC and shows and reads it in the session's time
 * zone. The key is that wall-clock text, and the bound key is read back in the same session zone, so the
 * comparison is exact whenever the zone has no daylight-saving fall-back (UTC, or any fixed offset, which
 * MikroORM assumes: it writes dates as UTC text). Under a zone with a fall-back hour, two instants of that
 * hour show the same text, as they do to every client of the server; use UTC sessions for such columns.
 */
function keyReadExpression(shape: KeyColumn, column: string): string {
  if (shape.kind === 'bigint' || shape.kind === 'decimal') return `cast(${column} as char)`;
  if (shape.kind === 'datetime') return `date_format(${column}, '%Y-%m-%dT%H:%i:%s.%f')`;
  if (shape.kind === 'date') return `date_format(${column}, '%Y-%m-%d')`;
  if (shape.kind === 'float') return `cast(${column} as double)`;
  return sortedExpression(shape, column);
}

/** A native ENUM sorts by its item's position (`col + 0`), so a key, or a UNION's outer order, uses it too. */
function sortedExpression(shape: KeyColumn, column: string): string {
  return shape.kind === 'enum' && shape.ordinalEnum ? `(${column} + 0)` : column;
}

/** MySQL (MikroORM's `@mikro-orm/mysql`). */
export const mysql = mysqlFamily(false);

/** MariaDB (MikroORM's `@mikro-orm/mariadb`). */
export const mariadb = mysqlFamily(true);
