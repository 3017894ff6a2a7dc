import type { Dialect } from '../dialect/index.ts';
import type { CursorKeyType, CursorValue } from './cursor-codec.ts';
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
      return shape.numericEnum || shape.ordinalEnum ? 'integer' : 'string';
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
      return dialect.datetimesAsEpochMillis ? 'integer' : 'timestamp';
    case 'date':
      return 'date';
    default: {
      const never: never = shape.kind;
      throw new Error(`unknown field kind ${String(never)}`);
    }
  }
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
