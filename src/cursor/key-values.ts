import type { Dialect } from '../plan/dialect.ts';
import type { CursorKeyType, CursorValue } from './codec.ts';
import type { KeyShape } from './key-shape.ts';

/**
 * Choose how a sort column's value travels in a cursor, per dialect. The rule: a cursor carries exactly what the
 * database compares. SQLite keeps MikroORM datetimes as epoch milliseconds, so there they are integers;
 * PostgreSQL, MySQL and MariaDB timestamps are strings with all six fractional digits. A MySQL / MariaDB native
 * `ENUM` sorts by item position, so its key is that position (an integer), not the item's text.
 */
export function cursorTypeOf(shape: KeyShape, dialect: Dialect): CursorKeyType {
  switch (shape.kind) {
    case 'string':
    case 'uuid':
      return 'string';
    case 'enum':
      return shape.numericEnum || (shape.ordinalEnum && dialect === 'mysql') ? 'integer' : 'string';
    case 'integer':
      return 'integer';
    case 'bigint':
      return 'bigint';
    case 'decimal':
      return 'decimal';
    case 'float':
      return 'float';
    case 'boolean':
      return 'boolean';
    case 'datetime':
      return dialect === 'sqlite' ? 'integer' : 'timestamp';
    case 'date':
      return 'date';
    default: {
      const never: never = shape.kind;
      throw new Error(`unknown field kind ${String(never)}`);
    }
  }
}

const PG_TIMESTAMP = `'YYYY-MM-DD"T"HH24:MI:SS.US'`;
const PG_TIMESTAMP_UTC = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/**
 * Build the SQL that reads a sort column at full precision (`column` is already quoted): 64-bit integers and
 * decimals as text (JavaScript numbers would round them), PostgreSQL timestamps as UTC text with microseconds
 * (JavaScript dates keep milliseconds only), dates as `YYYY-MM-DD` whatever the session's DateStyle.
 */
export function readExpression(shape: KeyShape, dialect: Dialect, column: string): string {
  switch (dialect) {
    case 'postgresql':
      if (shape.kind === 'bigint' || shape.kind === 'decimal') return `cast(${column} as text)`;
      if (shape.kind === 'datetime')
        return shape.timezone
          ? `to_char(${column} at time zone 'UTC', ${PG_TIMESTAMP_UTC})`
          : `to_char(${column}, ${PG_TIMESTAMP})`;
      if (shape.kind === 'date') return `to_char(${column}, 'YYYY-MM-DD')`;
      return column;
    case 'sqlite':
      // better-sqlite3 reads INTEGER as a double; text keeps all 64 bits. Decimals are REAL there already.
      return shape.kind === 'bigint' ? `cast(${column} as text)` : column;
    case 'mysql':
      // BIGINT (signed or unsigned, up to 18446744073709551615) and DECIMAL as exact text, which the server
      // compares back with the column exactly (as integers / decimals, not doubles); DATETIME and TIMESTAMP with
      // all six fractional digits (a column declared with fewer stores zeros there), a string the server reads
      // back as the same DATETIME(6) value; FLOAT widened to the double it compares as (a single-precision
      // value read as text would be rounded to 6 digits); a native ENUM as its position, the order it sorts in.
      // TINYINT(1) booleans are read as 0 / 1 (readKeyValue).
      //
      // TIMESTAMP and time zones: the server stores a TIMESTAMP as UTC and shows and reads it in the session's time
      // zone. The key is that wall-clock text, and the bound key is read back in the same session zone, so the
      // comparison is exact whenever the zone has no daylight-saving fall-back (UTC, or any fixed offset, which
      // MikroORM assumes: it writes dates as UTC text). Under a zone with a fall-back hour, two instants of that
      // hour show the same text, as they do to every client of the server; use UTC sessions for such columns.
      if (shape.kind === 'bigint' || shape.kind === 'decimal') return `cast(${column} as char)`;
      if (shape.kind === 'datetime') return `date_format(${column}, '%Y-%m-%dT%H:%i:%s.%f')`;
      if (shape.kind === 'date') return `date_format(${column}, '%Y-%m-%d')`;
      if (shape.kind === 'float') return `cast(${column} as double)`;
      return sortedExpression(shape, dialect, column);
    default: {
      const never: never = dialect;
      throw new Error(`unknown dialect ${String(never)}`);
    }
  }
}

/**
 * The value a sort column is ordered by: the column itself, except a MySQL / MariaDB native ENUM, which sorts by its
 * item's position (`col + 0`), so a key, or a UNION's outer order, must use the position too.
 */
export function sortedExpression(shape: KeyShape, dialect: Dialect, column: string): string {
  return shape.kind === 'enum' && shape.ordinalEnum && dialect === 'mysql' ? `(${column} + 0)` : column;
}

/** Turn what the driver returned for a key column into the JSON value the cursor carries. */
export function readKeyValue(value: unknown, type: CursorKeyType): CursorValue | undefined {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
    case 'float':
      if (typeof value === 'number') return value;
      if (typeof value === 'bigint' && value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER)
        return Number(value);
      return undefined;
    case 'bigint':
      return typeof value === 'string' || typeof value === 'bigint' ? String(value) : undefined;
    case 'decimal':
      if (typeof value === 'string') return value;
      return typeof value === 'number' && Number.isFinite(value) ? plainDecimal(value) : undefined;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      // SQLite stores booleans as 0 / 1, MySQL and MariaDB as TINYINT(1); any other number there is no boolean.
      return value === 0 || value === 1 ? value === 1 : undefined;
    case 'string':
    case 'timestamp':
    case 'date':
      return typeof value === 'string' ? value : undefined;
    default: {
      const never: never = type;
      throw new Error(`unknown cursor key type ${String(never)}`);
    }
  }
}

/**
 * Write a decimal held as a JavaScript number (SQLite stores decimals as REAL) without an exponent, so it fits
 * the cursor's decimal form and compares as the same number: `1e-7` becomes `0.0000001`.
 */
export function plainDecimal(value: number): string {
  const text = String(value);
  if (!/e/i.test(text)) return text;
  return value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 100 });
}
