import type { Dialect } from '../dialect/index.ts';
import type { CursorValue } from './cursor-codec.ts';
import type { KeyShape } from './key-shape.ts';
import { plainDecimal } from './key-values.ts';

const BIGINT = /^(?:0|-?[1-9]\d*)$/;
const DECIMAL = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{6}(Z?)$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UUID_LOWER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UUID_ANY_CASE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Epoch milliseconds of 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. */
const MIN_EPOCH_MS = -62135596800000;
const MAX_EPOCH_MS = 253402300799999;
/**
 * A MySQL / MariaDB TIMESTAMP holds 1970-01-01 00:00:01 to 2038-01-19 03:14:07.999999 UTC; its keys are read in the
 * session's time zone, UTC as MikroORM assumes (see readExpression), so they are compared as text in this range.
 */
const MYSQL_TIMESTAMP_MIN = '1970-01-01T00:00:01.000000';
const MYSQL_TIMESTAMP_MAX = '2038-01-19T03:14:07.999999';

/**
 * Tell whether a cursor key (already of the right JSON type) is a value its column can hold, written exactly as
 * the engine writes that column's keys on this dialect. A key that passes can be bound against the column without
 * the database refusing it, and a token whose key fails is `invalid_cursor` before any statement runs.
 */
export function keyHolds(value: Exclude<CursorValue, null>, shape: KeyShape, dialect: Dialect): boolean {
  switch (shape.kind) {
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) && inRange(BigInt(value), shape);
    case 'bigint':
      return typeof value === 'string' && BIGINT.test(value) && inRange(BigInt(value), shape);
    case 'enum':
      // A MySQL native ENUM's key is its position, 1 to n (a strict server stores no other value there).
      if (shape.ordinalEnum)
        return (
          typeof value === 'number' &&
          Number.isSafeInteger(value) &&
          value >= 1 &&
          value <= (shape.enumItems ?? []).length
        );
      return (shape.enumItems ?? []).includes(value as string | number);
    case 'string':
      return typeof value === 'string' && holdsText(value, shape.maxLength);
    case 'uuid':
      // PostgreSQL's uuid type writes lowercase; elsewhere a uuid is text as stored (MySQL: varchar(36)).
      return typeof value === 'string' && (dialect.lowercaseUuids ? UUID_LOWER : UUID_ANY_CASE).test(value);
    case 'decimal':
      return typeof value === 'string' && holdsDecimal(value, shape, dialect);
    case 'float':
      if (typeof value !== 'number' || !shape.single) return typeof value === 'number';
      // PostgreSQL reads a `real` as its shortest text; MySQL a FLOAT as the double it compares as.
      return dialect.singleFloatKeyHolds(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'date': {
      // Every dialect stores years 0001–9999 (MySQL's and MariaDB's DATE too, below the 1000 their manuals name).
      return typeof value === 'string' && realDate(DATE.exec(value)) !== undefined;
    }
    case 'datetime':
      if (dialect.datetimesAsEpochMillis)
        return (
          typeof value === 'number' && Number.isSafeInteger(value) && value >= MIN_EPOCH_MS && value <= MAX_EPOCH_MS
        );
      if (typeof value !== 'string' || !holdsTimestamp(value, shape.timezone)) return false;
      // A MySQL / MariaDB DATETIME holds years 0001–9999 like the others; only a TIMESTAMP is narrower.
      if (!shape.epochRange) return true;
      return value >= MYSQL_TIMESTAMP_MIN && value <= MYSQL_TIMESTAMP_MAX;
    default: {
      const never: never = shape.kind;
      return never;
    }
  }
}

/** Within the range the column stores (already narrowed to what the database holds: see storedRange). */
function inRange(value: bigint, shape: KeyShape): boolean {
  const range = shape.range;
  return range === undefined || (value >= range.min && value <= range.max);
}

/** No U+0000 (PostgreSQL text cannot hold it), no lone surrogate, and at most the declared length in characters. */
function holdsText(value: string, maxLength: number | undefined): boolean {
  if (value.includes('\u0000') || LONE_SURROGATE.test(value)) return false;
  if (maxLength === undefined || value.length <= maxLength) return true;
  let characters = 0;
  for (const _ of value) if (++characters > maxLength) return false;
  return true;
}

/**
 * PostgreSQL writes a `numeric(p, s)` value with exactly s fractional digits (an unconstrained numeric keeps the
 * digits it was given), and never as negative zero; so do MySQL and MariaDB a `DECIMAL(p, s)` (which always has a
 * scale). SQLite keeps decimals as doubles, which the engine writes as the shortest plain decimal of that double.
 * Either way the value fits the declared precision and scale.
 */
function holdsDecimal(value: string, shape: KeyShape, dialect: Dialect): boolean {
  const m = DECIMAL.exec(value);
  if (!m) return false;
  const [, sign = '', whole = '', fraction = ''] = m;
  if (sign && /^0*$/.test(whole + fraction)) return false;
  if (dialect.decimalsAsDoubles) {
    const number = Number(value);
    if (!Number.isFinite(number) || plainDecimal(number) !== value) return false;
  }
  if (shape.scale === undefined || shape.precision === undefined) return true;
  if (dialect.decimalsAsDoubles ? fraction.length > shape.scale : fraction.length !== shape.scale) return false;
  return whole === '0' || whole.length <= shape.precision - shape.scale;
}

/**
 * `YYYY-MM-DDTHH:MM:SS.ffffff`, with `Z` exactly when the column keeps a time zone, as PostgreSQL keys are read
 * (MySQL and MariaDB keys never have one).
 */
function holdsTimestamp(value: string, timezone: boolean): boolean {
  const m = TIMESTAMP.exec(value);
  if (!m || realDate(m) === undefined) return false;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59) return false;
  return (m[7] === 'Z') === timezone;
}

/** A real calendar date in years 0001–9999, from a match whose groups 1–3 are year, month and day. */
function realDate(m: RegExpExecArray | null): number | undefined {
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return undefined;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = mo === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(mo) ? 30 : 31;
  return d <= days ? y : undefined;
}
