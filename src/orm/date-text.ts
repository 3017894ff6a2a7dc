import { type EntityManager, type EntityMetadata, Platform, ReferenceKind } from '@mikro-orm/core';

/**
 * Read MySQL's and MariaDB's datetime text, `YYYY-MM-DD HH:MM:SS` with up to six fraction digits, as UTC: the Date
 * `new Date(text + 'Z')` gives (MikroORM's parse of such a column with its `timezone` at `Z`), at a fraction of the
 * general date parser's cost (it runs once per value of an export). Undefined for any text outside the plain range
 * (another shape, a year before 1000, a field out of range, a day past the month's end), which the general parser
 * then answers as MikroORM would.
 */
export function utcDateText(text: string): Date | undefined {
  const n = text.length;
  if (n < 19 || n === 20 || n > 26 || !punctuated(text, n)) return undefined;
  // Two digits at a time, -1 for anything else: every range test below also refuses a non-digit.
  const century = twoDigits(text, 0);
  const years = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  if (century < 10 || years < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23) return undefined;
  if (minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
  // The parser keeps milliseconds: the first three fraction digits, the rest dropped (but still digits).
  let ms = 0;
  for (let i = 20, scale = 100; i < n; i++, scale /= 10) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    if (i < 23) ms += digit * scale;
  }
  const date = new Date(utcInstant(century * 100 + years, month, day, hour, minute, second, ms));
  // Every month has 28 days; past them, a day the month lacks rolls over (and is the general parser's then).
  return day <= 28 || date.getUTCDate() === day ? date : undefined;
}

/** The month of the last instant read, and its first day's instant: an export's rows mostly share a month. */
let lastMonth = -1;
let lastMonthStart = 0;

/**
 * `Date.UTC(year, month - 1, day, hour, minute, second, ms)` for a year from 100 on: Date.UTC() adds the day and the
 * time to its month's first day linearly (a day or hour out of range rolls over alike), so the month's first
 * instant is all it needs to compute, and that is kept for the next value of the same month.
 */
function utcInstant(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
): number {
  const key = year * 100 + month;
  if (key !== lastMonth) {
    lastMonthStart = Date.UTC(year, month - 1, 1);
    lastMonth = key;
  }
  return lastMonthStart + (day - 1) * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms;
}

/** `-` `-` ` ` `:` `:` at their places, and `.` before a fraction. */
function punctuated(text: string, n: number): boolean {
  return (
    text.charCodeAt(4) === 45 &&
    text.charCodeAt(7) === 45 &&
    text.charCodeAt(10) === 32 &&
    text.charCodeAt(13) === 58 &&
    text.charCodeAt(16) === 58 &&
    (n === 19 || text.charCodeAt(19) === 46)
  );
}

/** The two-digit number at text[at, at + 2), or -1 when either character is not a digit. */
function twoDigits(text: string, at: number): number {
  const tens = text.charCodeAt(at) - 48;
  const ones = text.charCodeAt(at + 1) - 48;
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : -1;
}

/**
 * Read PostgreSQL's text of a timestamp with its zone, `YYYY-MM-DD HH:MM:SS` with an optional fraction and an offset
 * (`+00`, `-08`, `+05:30`, `+01:02:03`), as postgres-date reads it (MikroORM's PostgreSQL parse of such a column):
 * the instant Date.UTC() gives for the parts, less the offset, milliseconds from the first three fraction digits.
 * Undefined for any other text (no zone, a year before 100 or past 9999, ` BC`, `infinity`), which the general parser
 * then answers.
 */
export function zonedDateText(text: string): Date | undefined {
  const n = text.length;
  if (n < 22 || !punctuated(text, 19)) return undefined;
  const century = twoDigits(text, 0);
  const years = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  if (century < 1 || years < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return undefined;
  let at = 19;
  let ms = 0;
  if (text.charCodeAt(at) === 46) {
    for (let scale = 100; ++at < n; scale /= 10) {
      const digit = text.charCodeAt(at) - 48;
      if (digit < 0 || digit > 9) break;
      if (scale >= 1) ms += digit * scale;
    }
    if (at === 20) return undefined;
  }
  const sign = text.charCodeAt(at);
  if (sign !== 43 && sign !== 45) return undefined;
  let offset = 0;
  for (let part = 0, scale = 3600; part < 3 && at < n; part++, scale /= 60) {
    // The sign before the hours, a colon before the minutes and the seconds.
    if (part > 0 && text.charCodeAt(at) !== 58) return undefined;
    const value = twoDigits(text, at + 1);
    if (value < 0) return undefined;
    offset += value * scale;
    at += 3;
  }
  if (at !== n) return undefined;
  const utc = utcInstant(century * 100 + years, month, day, hour, minute, second, ms);
  return new Date(sign === 45 ? utc + offset * 1000 : utc - offset * 1000);
}

const utcColumnsByMeta = new WeakMap<EntityMetadata, ReadonlySet<string>>();

/**
 * The columns of `meta` whose driver text the row writer (and MikroORM's result mapper) reads as UTC, `new Date(text +
 * 'Z')`: one-column Date properties where the platform's timezone is `Z` and its parse is Platform's own. A driver
 * that can make that Date from the value's bytes (MySQL and MariaDB prepared statements) may give it instead of the
 * text, for rows that only these readers read; both pass a Date through as it is.
 */
export function utcDateColumns(em: EntityManager, meta: EntityMetadata): ReadonlySet<string> {
  let columns = utcColumnsByMeta.get(meta);
  if (columns) return columns;
  const platform = em.getPlatform();
  const utc = platform.getTimezone() === 'Z' && platform.parseDate === Platform.prototype.parseDate;
  const found = new Set<string>();
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const prop of meta.props)
    for (const column of prop.fieldNames ?? []) (seen.has(column) ? shared : seen).add(column);
  for (const prop of meta.props) {
    const column = prop.fieldNames?.length === 1 ? prop.fieldNames[0]! : undefined;
    // Where the result mapper parses the text (EntityComparator's mapResult): a plain, unshared Date column.
    const parsed =
      prop.kind === ReferenceKind.SCALAR && prop.runtimeType === 'Date' && !prop.embedded && !prop.polymorphic;
    if (utc && column && parsed && !shared.has(column) && !platform.isNumericProperty(prop)) found.add(column);
  }
  columns = found;
  utcColumnsByMeta.set(meta, columns);
  return columns;
}
