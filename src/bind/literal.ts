import type { Platform } from '@mikro-orm/core';
import type { Dialect } from '../dialect/index.ts';
import { isNarrowTimestamp, isSinglePrecision } from '../policy/field-kind.ts';
import type { Literal } from '../syntax/ast.ts';
import { clampDecimal, integerDigits } from './decimal-scale.ts';
import { dateTimeHint, decimalRefused, integerOutOfRange } from './limit-messages.ts';
import type { BoundField } from './types.ts';

/** A literal checked against a field: its database value, or why it does not fit. */
export type LiteralResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reason: string };

const INTEGER = /^-?(?:0|[1-9]\d*)$/;
const NUMBER = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Longest decimal accepted after expanding an exponent: `1e999999` must not become a megabyte string. */
const MAX_DECIMAL_DIGITS = 1000;
/** Epoch milliseconds of 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the years every dialect stores. */
const MIN_EPOCH_MS = -62135596800000;
const MAX_EPOCH_MS = 253402300799999;
/** A MySQL / MariaDB TIMESTAMP holds 1970-01-01 00:00:01 to 2038-01-19 03:14:07.999999 UTC. */
const MYSQL_TIMESTAMP_MIN_MS = 1000;
const MYSQL_TIMESTAMP_MAX_MS = 2147483647999;

const fail = (reason: string): LiteralResult => ({ ok: false, reason });
const ok = (value: unknown): LiteralResult => ({ ok: true, value });

/**
 * Check a literal against a field's type (docs/policy.md) and convert it to the value bound as a query parameter,
 * through the property's MikroORM type.
 */
export function convertLiteral(
  field: BoundField,
  literal: Literal,
  platform: Platform,
  dialect: Dialect,
): LiteralResult {
  const checked = decimalInRange(field, toJsValue(field, literal), dialect);
  if (!checked.ok) return checked;
  // PostgreSQL refuses a `real` beyond single precision (overflow and underflow alike) with an error, not a match;
  // a MySQL / MariaDB FLOAT cannot hold such a value either.
  const single = field.kind === 'float' && isSinglePrecision(field.prop, dialect);
  if (single && !fitsSingle(checked.value as number))
    return fail(`number out of range for '${field.publicName}' (single precision)`);
  const refused = timestampRange(field, checked.value, dialect);
  if (refused) return fail(refused);
  try {
    return ok(toDatabaseValue(field, checked.value, platform));
  } catch {
    // A custom type refusing the value is the client's mistake, not a server failure.
    return fail(`the value does not fit the type of '${field.publicName}'`);
  }
}

/**
 * Fold ASCII letters A–Z to a–z and leave every other character as it is: the one case folding the `i` operators
 * use, identical on every dialect (docs/language.md, Case-insensitive matching).
 */
export function foldAscii(value: string): string {
  return /[A-Z]/.test(value) ? value.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32)) : value;
}

/** Check a literal for `contains` and the `i` operators: a string, kept raw for escaping by the planner. */
export function likeLiteral(field: BoundField, literal: Literal): LiteralResult {
  return literal.kind === 'string' ? ok(literal.value) : fail(`expected a string for '${field.publicName}'`);
}

function toJsValue(field: BoundField, literal: Literal): LiteralResult {
  const name = field.publicName;
  switch (field.kind) {
    case 'string':
      return literal.kind === 'string' ? ok(literal.value) : fail(`expected a string for '${name}'`);
    case 'enum':
      return enumValue(field, literal);
    case 'uuid':
      if (literal.kind !== 'string' || !UUID.test(literal.value)) return fail(`expected a UUID string for '${name}'`);
      return ok(literal.value.toLowerCase());
    case 'integer':
    case 'bigint': {
      if (literal.kind !== 'number' || !INTEGER.test(literal.text))
        return fail(`expected an integer without fraction or exponent for '${name}'`);
      const value = BigInt(literal.text);
      const range = field.range;
      if (range && (value < range.min || value > range.max)) return fail(integerOutOfRange(field));
      return ok(field.kind === 'bigint' ? value : Number(value));
    }
    case 'decimal': {
      const text = literal.kind === 'number' ? normalizeDecimal(literal.text) : undefined;
      return text === undefined ? fail(decimalRefused(field, literal.kind === 'number', MAX_DECIMAL_DIGITS)) : ok(text);
    }
    case 'float': {
      const value = literal.kind === 'number' ? Number(literal.text) : Number.NaN;
      return Number.isFinite(value) ? ok(value === 0 ? 0 : value) : fail(`expected a finite number for '${name}'`);
    }
    case 'boolean':
      return literal.kind === 'boolean' ? ok(literal.value) : fail(`expected true or false for '${name}'`);
    case 'datetime': {
      const date = literal.kind === 'string' ? parseDateTime(literal.value) : undefined;
      return date
        ? ok(date)
        : fail(
            `expected an RFC 3339 date-time with offset, at most millisecond precision, for '${name}'` +
              (literal.kind === 'string' ? dateTimeHint(literal.value) : ''),
          );
    }
    case 'date':
      return literal.kind === 'string' && parseDate(literal.value) !== undefined
        ? ok(literal.value)
        : fail(`expected a 'YYYY-MM-DD' calendar date for '${name}'`);
    default: {
      const never: never = field.kind;
      return never;
    }
  }
}

/** A decimal beyond every value its column holds, bounded to one that compares alike (see clampDecimal). */
function decimalInRange(field: BoundField, checked: LiteralResult, dialect: Dialect): LiteralResult {
  if (field.kind !== 'decimal' || !checked.ok || typeof checked.value !== 'string') return checked;
  const digits = integerDigits(field, dialect);
  return digits === undefined ? checked : ok(clampDecimal(checked.value, digits));
}

function enumValue(field: BoundField, literal: Literal): LiteralResult {
  const items = field.enumItems ?? [];
  const found =
    literal.kind === 'string'
      ? items.find((item) => item === literal.value)
      : literal.kind === 'number' && INTEGER.test(literal.text)
        ? items.find((item) => typeof item === 'number' && BigInt(item) === BigInt(literal.text))
        : undefined;
  if (found !== undefined) return ok(found);
  const shown = items.slice(0, 10).join(', ') + (items.length > 10 ? ', …' : '');
  return fail(`expected one of ${shown} for '${field.publicName}'`);
}

function toDatabaseValue(field: BoundField, value: unknown, platform: Platform): unknown {
  const { prop } = field;
  if (prop.customType)
    return prop.customType.convertToDatabaseValue(value, platform, { fromQuery: true, key: prop.name, mode: 'query' });
  // Without a custom type MikroORM hands Dates to the platform (SQLite stores epoch milliseconds).
  if (value instanceof Date) return platform.processDateProperty(value);
  // Drivers such as better-sqlite3 cannot bind booleans; platforms without a boolean column type store 1/0.
  if (typeof value === 'boolean' && !/^bool/i.test(platform.getBooleanTypeDeclarationSQL())) return value ? 1 : 0;
  return value;
}

/** Rewrite a number literal as a plain decimal string (no exponent, no redundant zeros), exactly. */
export function normalizeDecimal(text: string): string | undefined {
  const m = NUMBER.exec(text);
  if (!m) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = m;
  const exp = Number(exponent);
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > MAX_DECIMAL_DIGITS) {
    return /^0*$/.test(whole + fraction) ? '0' : undefined;
  }
  let digits = whole + fraction;
  let point = whole.length + exp;
  const lead = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(lead);
  point -= lead;
  digits = digits.replace(/0+$/, '');
  if (digits === '') return '0';
  const length = point <= 0 ? digits.length - point : Math.max(point, digits.length);
  if (length > MAX_DECIMAL_DIGITS) return undefined;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return sign + out;
}

/**
 * The MySQL / MariaDB TIMESTAMP range, narrower than the years 0001–9999 every dialect accepts: 1970-01-01 00:00:01
 * to 2038-01-19 03:14:07 UTC. (A DATE or DATETIME stores and compares years 0001–9999 like the other dialects, though
 * the manuals promise only 1000–9999; docs/policy.md, Literal ranges per dialect.) Integers need nothing here: their
 * range (unsigned types included) is the field's own (see storedRange).
 */
function timestampRange(field: BoundField, value: unknown, dialect: Dialect): string | undefined {
  if (field.kind !== 'datetime' || !(value instanceof Date) || !isNarrowTimestamp(field.prop, dialect))
    return undefined;
  const ms = value.getTime();
  if (ms < MYSQL_TIMESTAMP_MIN_MS || ms > MYSQL_TIMESTAMP_MAX_MS)
    return `date-time out of range for '${field.publicName}' (1970-01-01T00:00:01Z to 2038-01-19T03:14:07Z)`;
  return undefined;
}

function fitsSingle(value: number): boolean {
  const single = Math.fround(value);
  return Number.isFinite(single) && (single !== 0 || value === 0);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function parseDate(text: string): readonly [number, number, number] | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Year 0000 does not exist in the calendar the databases use (PostgreSQL refuses it).
  return y >= 1 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo) ? [y, mo, d] : undefined;
}

/** Parse an RFC 3339 date-time with a required offset; refuse invalid dates and sub-millisecond digits. */
export function parseDateTime(text: string): Date | undefined {
  const m = DATETIME.exec(text);
  if (!m) return undefined;
  const date = parseDate(`${m[1]}-${m[2]}-${m[3]}`);
  const [h, mi, s] = [Number(m[4]), Number(m[5]), Number(m[6])];
  // Leap seconds (60) are refused: JavaScript dates cannot hold them.
  if (!date || h > 23 || mi > 59 || s > 59) return undefined;
  const fraction = m[7] ?? '';
  // A JS Date keeps milliseconds: refuse finer digits rather than silently truncating them.
  if (/[1-9]/.test(fraction.slice(3))) return undefined;
  const ms = Number(fraction.slice(0, 3).padEnd(3, '0'));
  let offset = 0;
  if (!m[8]) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const out = new Date(0);
  out.setUTCFullYear(date[0], date[1] - 1, date[2]);
  out.setUTCHours(h, mi - offset, s, ms);
  // An offset can push the instant out of years 0001–9999 (`0001-01-01T00:00:00+01:00`): no dialect stores it.
  return out.getTime() >= MIN_EPOCH_MS && out.getTime() <= MAX_EPOCH_MS ? out : undefined;
}
