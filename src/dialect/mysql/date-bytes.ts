/**
 * DATETIME and TIMESTAMP values of a prepared statement's rows, read as their bytes and written as text here: the
 * text mysql2 gives with `dateStrings` (which MikroORM's MySQL and MariaDB drivers set), character for character, at a
 * fraction of its cost (mysql2 pads and joins each part of each value; an export reads one per row).
 */

/** mysql2 column types (mysql2/lib/constants/types.js) and the binary character set. */
const TIMESTAMP = 7;
const DATETIME = 12;
const BLOB = 0xfc;
const BINARY = 63;

/** The parts of a mysql2 column definition its binary row parser reads. */
interface ParserField {
  readonly columnType: number;
  readonly characterSet?: number;
  readonly decimals: number;
  readonly name: string;
}

/** The parts of mysql2's Execute command (the object connection.execute() returns) this module uses. */
interface ExecuteCommand {
  buildParserFromFields?: (this: ExecuteCommand, fields: readonly ParserField[], connection: unknown) => unknown;
  readonly options?: { readonly disableEval?: unknown; readonly typeCast?: unknown; readonly dateStrings?: unknown };
}

/** The parts of a mysql2 connection's settings that decide how it reads a DATETIME. */
interface ReadSettings {
  readonly dateStrings?: unknown;
  readonly typeCast?: unknown;
  readonly disableEval?: unknown;
}

/**
 * Have the statement `command` runs read its DATETIME and TIMESTAMP columns as bytes (a Buffer each), which
 * textLike() then writes as the text mysql2 would have given: only where mysql2 would give text (`dateStrings: true`,
 * no typeCast of the application's, generated parsers) and the command is mysql2's Execute as this module knows it;
 * otherwise the statement reads them as before. Only this statement's parser changes: mysql2 compiles and caches
 * parsers per column list, and this one's DATETIME columns are listed as binary strings.
 */
export function readDatesAsBytes(command: unknown, config: object | undefined): void {
  const settings = config as ReadSettings | undefined;
  const execute = command as ExecuteCommand | undefined;
  const build = execute?.buildParserFromFields;
  if (typeof build !== 'function' || !settings) return;
  // The command's own options are the connection's once it has started (mysql2 copies them in).
  const options = execute!.options ?? {};
  if (settings.dateStrings !== true || (options.dateStrings ?? true) !== true) return;
  if (settings.typeCast !== true || (options.typeCast ?? true) !== true) return;
  if (settings.disableEval || options.disableEval) return;
  execute!.buildParserFromFields = function (fields, connection) {
    return build.call(this, fields.map(asBytes), connection);
  };
}

function asBytes(field: ParserField): ParserField {
  if (!isDateTime(field.columnType)) return field;
  // mysql2 reads a binary-charset string column as `packet.readLengthCodedBuffer()`: the value's length byte and
  // bytes, which is how the binary protocol sends a DATETIME.
  return {
    name: field.name,
    columnType: BLOB,
    characterSet: BINARY,
    decimals: field.decimals,
    flags: (field as { flags?: number }).flags ?? 0,
    table: (field as { table?: string }).table,
  } as ParserField;
}

/** Per statement guard: the DATETIME/TIMESTAMP columns whose rows feed only a row writer that reads them as UTC. */
const utcColumns = new WeakMap<object, ReadonlySet<string>>();

/**
 * Have the statement run under `guard` (a guard of its own) give the `columns` named here as Dates where their bytes
 * hold a plain value (utcDateOfBytes()), the rest as text: for rows read only by a writer that would parse that text
 * as UTC (`new Date(text + 'Z')`), which then finds the Date it would have made.
 */
export function readDatesAsUtc(guard: object, columns: ReadonlySet<string>): void {
  if (columns.size > 0) utcColumns.set(guard, columns);
}

/** A copy of a statement's guard (its own signal) reads dates as the guard does; returns the copy. */
export function sameDates<T extends object>(guard: object, copy: T): T {
  const columns = utcColumns.get(guard);
  if (columns) utcColumns.set(copy, columns);
  return copy;
}

/** The columns readDatesAsUtc() named for a statement's guard, if any. */
export function utcDateColumnsOf(guard: object): ReadonlySet<string> | undefined {
  return utcColumns.get(guard);
}

/**
 * The Date that utcDateText() reads from the text dateTimeText() writes for these bytes, made from the bytes
 * themselves; undefined wherever that reading would not give one (a zero date, a year before 1000, a part out of
 * range, a day past the month's end, a fraction the column does not declare), where the text is kept.
 */
export function utcDateOfBytes(bytes: Uint8Array, decimals: number): Date | undefined {
  const length = bytes.length;
  if ((length !== 4 && length !== 7 && length !== 11) || !(decimals >= 0)) return undefined;
  const y = bytes[0]! | (bytes[1]! << 8);
  const m = bytes[2]!;
  const d = bytes[3]!;
  if (y < 1000 || y > 9999 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m)) return undefined;
  const h = length > 4 ? bytes[4]! : 0;
  const min = length > 4 ? bytes[5]! : 0;
  const s = length > 4 ? bytes[6]! : 0;
  if (h > 23 || min > 59 || s > 59) return undefined;
  let ms = 0;
  if (length === 11) {
    const micros = (bytes[7]! | (bytes[8]! << 8) | (bytes[9]! << 16) | (bytes[10]! << 24)) >>> 0;
    // The text carries `decimals` digits of the six, all six past 6 (MariaDB's 31: not fixed), and mysql2's own
    // unpadded count at 0, which is left to the text.
    if (micros > 999_999 || decimals === 0) return undefined;
    // The reader keeps the first three digits of those the text carries.
    const kept = Math.min(decimals, 3);
    const unit = kept === 3 ? 1000 : kept === 2 ? 10_000 : 100_000;
    ms = Math.floor(micros / unit) * (unit / 1000);
  }
  return new Date(Date.UTC(y, m - 1, d, h, min, s, ms));
}

/** Days in month `m` (1 to 12) of year `y` of the proleptic Gregorian calendar. */
function daysIn(y: number, m: number): number {
  if (m === 2) return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

export function isDateTime(columnType: number): boolean {
  return columnType === DATETIME || columnType === TIMESTAMP;
}

/**
 * The text of a DATETIME or TIMESTAMP value from its binary-protocol bytes (the length byte left out): what mysql2's
 * `readDateTimeString(decimals)` gives, with a declared fraction's zeros kept as textLike() keeps them
 * (`2024-01-15 10:00:00.000` for a DATETIME(3) at a whole second).
 */
export function dateTimeText(bytes: Uint8Array, decimals: number): string {
  const length = bytes.length;
  const y = length > 3 ? bytes[0]! | (bytes[1]! << 8) : 0;
  const m = length > 3 ? bytes[2]! : 0;
  const d = length > 3 ? bytes[3]! : 0;
  const h = length > 6 ? bytes[4]! : 0;
  const min = length > 6 ? bytes[5]! : 0;
  const s = length > 6 ? bytes[6]! : 0;
  const micros =
    length > 10 ? (bytes[7]! | (bytes[8]! << 8) | (bytes[9]! << 16) | (bytes[10]! << 24)) >>> 0 : undefined;
  // mysql2 writes four digits of year and two of every other part, and a fraction only where bytes carry one.
  const plain = y <= 9999 && m <= 99 && d <= 99 && h <= 99 && min <= 99 && s <= 99;
  if (plain && micros === undefined && decimals >= 0 && decimals <= 6)
    return fractionText(y, m, d, h, min, s, 0, decimals);
  if (plain && micros !== undefined && micros <= 999_999 && decimals >= 1 && decimals <= 6)
    return fractionText(y, m, d, h, min, s, micros, decimals);
  return generalText(length, y, m, d, h, min, s, micros, decimals);
}

/**
 * `YYYY-MM-DD HH:MM:SS` and `decimals` fraction digits of a six-digit microsecond count, as one flat string (one
 * String.fromCharCode() call: joined parts would make a string its reader must first flatten).
 */
function fractionText(
  y: number,
  m: number,
  d: number,
  h: number,
  min: number,
  s: number,
  micros: number,
  decimals: number,
): string {
  const f = String.fromCharCode;
  const y0 = 48 + Math.floor(y / 1000);
  const y1 = 48 + (Math.floor(y / 100) % 10);
  const y2 = 48 + (Math.floor(y / 10) % 10);
  const y3 = 48 + (y % 10);
  const m0 = 48 + Math.floor(m / 10);
  const m1 = 48 + (m % 10);
  const d0 = 48 + Math.floor(d / 10);
  const d1 = 48 + (d % 10);
  const h0 = 48 + Math.floor(h / 10);
  const h1 = 48 + (h % 10);
  const n0 = 48 + Math.floor(min / 10);
  const n1 = 48 + (min % 10);
  const s0 = 48 + Math.floor(s / 10);
  const s1 = 48 + (s % 10);
  if (decimals === 0) return f(y0, y1, y2, y3, 45, m0, m1, 45, d0, d1, 32, h0, h1, 58, n0, n1, 58, s0, s1);
  const u0 = 48 + Math.floor(micros / 100_000);
  const u1 = 48 + (Math.floor(micros / 10_000) % 10);
  const u2 = 48 + (Math.floor(micros / 1000) % 10);
  if (decimals === 3)
    return f(y0, y1, y2, y3, 45, m0, m1, 45, d0, d1, 32, h0, h1, 58, n0, n1, 58, s0, s1, 46, u0, u1, u2);
  const u3 = 48 + (Math.floor(micros / 100) % 10);
  const u4 = 48 + (Math.floor(micros / 10) % 10);
  const u5 = 48 + (micros % 10);
  if (decimals === 6)
    return f(y0, y1, y2, y3, 45, m0, m1, 45, d0, d1, 32, h0, h1, 58, n0, n1, 58, s0, s1, 46, u0, u1, u2, u3, u4, u5);
  const all = [u0, u1, u2, u3, u4, u5];
  return f(y0, y1, y2, y3, 45, m0, m1, 45, d0, d1, 32, h0, h1, 58, n0, n1, 58, s0, s1, 46, ...all.slice(0, decimals));
}

/** mysql2's readDateTimeString() and textLike()'s padding, step by step, for values outside the plain ranges. */
function generalText(
  length: number,
  y: number,
  m: number,
  d: number,
  h: number,
  min: number,
  s: number,
  micros: number | undefined,
  decimals: number,
): string {
  let text = length > 3 ? `${leftPad(4, y)}-${leftPad(2, m)}-${leftPad(2, d)}` : '0000-00-00';
  text += length > 6 ? ` ${leftPad(2, h)}:${leftPad(2, min)}:${leftPad(2, s)}` : ' 00:00:00';
  if (micros !== undefined) {
    let fraction = String(micros);
    if (decimals) {
      fraction = leftPad(6, micros);
      if (fraction.length > decimals) fraction = fraction.substring(0, decimals);
    }
    text += `.${fraction}`;
  }
  return decimals > 0 && decimals <= 6 ? padFraction(text, decimals) : text;
}

function leftPad(width: number, value: number): string {
  const text = String(value);
  return text.length >= width ? text : ('000000000000' + text).slice(-width);
}

/** The zeros of a fraction the column declares, which the binary protocol leaves out (`10:00:00` for `10:00:00.000`). */
export function padFraction(v: string, decimals: number): string {
  const dot = v.lastIndexOf('.');
  if (dot === -1) return `${v}.${'0'.repeat(decimals)}`;
  const have = v.length - dot - 1;
  return have >= decimals ? v : v + '0'.repeat(decimals - have);
}
