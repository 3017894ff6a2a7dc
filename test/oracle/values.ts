/**
 * The reference's typed values and their order, written without any listql code. Each kind keeps one exact
 * JavaScript representation: strings as strings, integers and floats as numbers, bigints as BigInt, decimals as
 * exact decimal strings, date-times as epoch milliseconds, dates as 'YYYY-MM-DD' strings.
 *
 * Strings compare the way the test database's column does (its collation, see DbModel): by code point on SQLite
 * (binary) and on the test PostgreSQL database (C.UTF-8), which is the byte order of UTF-8; under MariaDB's default
 * `utf8mb4_general_ci`, by per-character weights with case and accents folded and trailing spaces ignored.
 */

/**
 * How the database compares what the oracle compares: the collation of string columns, and whether a native ENUM
 * column sorts by its items' declared order (MariaDB/MySQL ENUM) or as text.
 */
export interface DbModel {
  readonly strings: Collation;
  readonly enumOrder: 'text' | 'declared';
  /** The years date and date-time columns hold, where narrower than 1–9999 (MySQL/MariaDB: 1000–9999). */
  readonly dateTimeYears?: readonly [number, number];
}

/** `binary`: code points (SQLite, PostgreSQL "C"); `general_ci`: MariaDB's utf8mb4_general_ci. */
export type Collation = 'binary' | 'general_ci';

/** How the test databases of a dialect compare (test/helpers/db.ts creates them with their server's defaults). */
export function dbModelFor(dialect: string): DbModel {
  return dialect === 'mariadb' ? { strings: 'general_ci', enumOrder: 'declared', dateTimeYears: [1000, 9999] } : BINARY;
}

/** SQLite and PostgreSQL (C collation); what the oracle assumes when told nothing. */
export const BINARY: DbModel = { strings: 'binary', enumOrder: 'text' };

/** The field kinds of DESIGN §3, as the reference understands them. */
export type Kind =
  | 'string'
  | 'enum'
  | 'uuid'
  | 'integer'
  | 'bigint'
  | 'decimal'
  | 'float'
  | 'boolean'
  | 'datetime'
  | 'date';

/** One value of a field; `null` is SQL NULL. */
export type Value = string | number | bigint | boolean | null;

/** Compare two strings by Unicode code point, which is the byte order of their UTF-8 encodings. */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** Compare two plain decimal strings (`-12.50`, `0.001`) exactly, digit by digit. */
export function compareDecimals(a: string, b: string): number {
  const [sa, ia, fa] = splitDecimal(a);
  const [sb, ib, fb] = splitDecimal(b);
  const zeroA = /^0*$/.test(ia + fa);
  const zeroB = /^0*$/.test(ib + fb);
  const signA = zeroA ? 0 : sa ? -1 : 1;
  const signB = zeroB ? 0 : sb ? -1 : 1;
  if (signA !== signB) return signA < signB ? -1 : 1;
  if (signA === 0) return 0;
  const magnitude = compareMagnitude(ia, fa, ib, fb);
  return signA < 0 ? -magnitude : magnitude;
}

function splitDecimal(text: string): [boolean, string, string] {
  const m = DECIMAL.exec(text);
  if (!m) throw new Error(`oracle: not a plain decimal: ${text}`);
  return [m[1] === '-', (m[2] ?? '').replace(/^0+/, ''), (m[3] ?? '').replace(/0+$/, '')];
}

function compareMagnitude(ia: string, fa: string, ib: string, fb: string): number {
  if (ia.length !== ib.length) return ia.length < ib.length ? -1 : 1;
  if (ia !== ib) return ia < ib ? -1 : 1;
  const width = Math.max(fa.length, fb.length);
  const x = fa.padEnd(width, '0');
  const y = fb.padEnd(width, '0');
  return x === y ? 0 : x < y ? -1 : 1;
}

/**
 * The weight of one character under utf8mb4_general_ci (MariaDB 10.11), for the characters the pools and generators
 * use. The collation compares strings character by character on these weights, the shorter one padded with spaces
 * (PAD SPACE): ASCII letters weigh as their upper case; the accented Latin letters and ß weigh as their base letter
 * in upper case (é = É = E, ß = S, İ = I); characters outside the BMP all weigh U+FFFD (so 😀 = \uFFFD); characters
 * without case or decomposition (digits, punctuation, controls, CJK, combining marks, private use) weigh their own
 * code point. A character outside what this models throws, so a new pool value cannot be compared by guesswork;
 * property-root's first test checks every modelled character against the server.
 */
export function generalCiWeight(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp > 0xffff) return 0xfffd;
  if (cp < 0x80) return cp >= 0x61 && cp <= 0x7a ? cp - 0x20 : cp;
  const known = GENERAL_CI[ch];
  if (known !== undefined) return known.charCodeAt(0);
  if (ch.toUpperCase() === ch && ch.toLowerCase() === ch && ch.normalize('NFD') === ch) return cp;
  throw new Error(`oracle: no utf8mb4_general_ci weight modelled for U+${cp.toString(16).toUpperCase()} (${ch})`);
}

/** Non-ASCII letters whose general_ci weight the oracle knows (checked against the server by property-root). */
const GENERAL_CI: Readonly<Record<string, string>> = {
  é: 'E',
  É: 'E',
  è: 'E',
  È: 'E',
  ê: 'E',
  Ê: 'E',
  ä: 'A',
  Ä: 'A',
  à: 'A',
  À: 'A',
  ö: 'O',
  Ö: 'O',
  ü: 'U',
  Ü: 'U',
  ß: 'S',
  İ: 'I',
  ñ: 'N',
  Ñ: 'N',
};

/**
 * Every character whose general_ci weight the oracle models and the server check covers: printable ASCII, the
 * letters above, and some without case (CJK, private use, U+FFFD, a combining mark, one outside the BMP).
 */
export const MODELLED_CHARACTERS: readonly string[] = [
  ...Array.from({ length: 0x5f }, (_, i) => String.fromCharCode(0x20 + i)),
  ...Object.keys(GENERAL_CI),
  '日',
  '本',
  '😀',
  '\uFFFD',
  '\uE000',
  '\u0301',
];

/** Compare two strings under utf8mb4_general_ci: per-character weights, the shorter padded with spaces. */
export function compareGeneralCi(a: string, b: string): number {
  const x = [...a].map(generalCiWeight);
  const y = [...b].map(generalCiWeight);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i] ?? 0x20;
    const q = y[i] ?? 0x20;
    if (p !== q) return p < q ? -1 : 1;
  }
  return 0;
}

/** Compare two strings as a column of collation `collation` does. */
export function compareStrings(a: string, b: string, collation: Collation): number {
  return collation === 'general_ci' ? compareGeneralCi(a, b) : compareCodePoints(a, b);
}

/**
 * Compare two non-null values of one kind, as the database `db` does: negative, zero or positive. `items` (enum
 * fields) are the declared items, which a native ENUM column sorts by where `db.enumOrder` is `declared`; `sorting`
 * says whether this is ORDER BY (equality and WHERE comparisons of an ENUM compare its text).
 */
export function compareValues(
  kind: Kind,
  a: Value,
  b: Value,
  db: DbModel = BINARY,
  sorting?: { readonly items?: readonly string[] },
): number {
  switch (kind) {
    case 'string':
      return compareStrings(a as string, b as string, db.strings);
    case 'enum': {
      const items = sorting?.items;
      if (db.enumOrder === 'declared' && items) {
        const c = items.indexOf(a as string) - items.indexOf(b as string);
        return Math.sign(c);
      }
      return compareStrings(a as string, b as string, db.strings);
    }
    case 'date':
      return compareCodePoints(a as string, b as string);
    case 'uuid':
      return compareStrings((a as string).toLowerCase(), (b as string).toLowerCase(), db.strings);
    case 'decimal':
      return compareDecimals(a as string, b as string);
    case 'integer':
    case 'float':
    case 'datetime':
    case 'bigint':
    case 'boolean': {
      const x = typeof a === 'boolean' ? Number(a) : (a as number | bigint);
      const y = typeof b === 'boolean' ? Number(b) : (b as number | bigint);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    default: {
      const never: never = kind;
      throw new Error(`oracle: unknown kind ${String(never)}`);
    }
  }
}
