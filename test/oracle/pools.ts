/**
 * Values near the edges of each kind, shared by the data generator (so sort keys repeat and NULLs abound) and by
 * the literal generator (so filters hit real rows), and the ways one value can be written as a literal.
 */
import type { Random } from './random.ts';
import type { Kind, Value } from './values.ts';

/**
 * Strings with LIKE/GLOB wildcards, escapes, quotes, case, accent, trailing-space and Unicode traps; all valid as
 * literals. The first four (which the data favours) differ only by case or trailing space, so under a case- and
 * space-blind collation (MariaDB's default) they tie, and equality and order must follow the collation there.
 */
export const STRINGS: readonly string[] = [
  '',
  'a',
  'A',
  'a ',
  'ab',
  'Ab',
  'aB',
  'abc',
  'Alpha',
  'alpha',
  'ALPHA',
  'alpha ',
  'Alpha  ',
  'alp',
  'pha',
  '%',
  '_',
  '\\',
  '!',
  'a!b',
  "'",
  "''",
  '[',
  ']',
  '*',
  '?',
  '[a]',
  '[!a]',
  'a%b',
  'a_b',
  'a\\b',
  'a*b',
  'a?b',
  "it's",
  '100%',
  '\\%',
  'e',
  'E',
  'é',
  'É',
  'e\u0301',
  'Ü',
  'u',
  'ß',
  's',
  'ss',
  'İ',
  'i',
  '日本',
  '😀',
  'a😀',
  '\uFFFD',
  '\uE000',
  'z',
  '~',
  ' ',
  ' a',
  '0',
  '-1',
  'x'.repeat(255),
  'ab'.repeat(120),
];

/** Strings only data holds: control characters cannot be written in a literal. */
export const DATA_ONLY_STRINGS: readonly string[] = ['a\tb', 'line\nbreak', 'del\u007f'];

export const INTEGERS: readonly number[] = [0, 1, -1, 2, 7, 10, 100, -100, 2147483647, -2147483648, 2147483646];

export const BIGINTS: readonly bigint[] = [
  0n,
  1n,
  -1n,
  5n,
  9007199254740991n,
  9007199254740992n,
  9007199254740993n,
  -9007199254740993n,
  9223372036854775807n,
  -9223372036854775808n,
  9223372036854775806n,
];

/** Decimals that fit numeric(12,2), as plain decimal strings. */
export const DECIMALS: readonly string[] = [
  '0',
  '0.01',
  '-0.01',
  '0.1',
  '1',
  '-1',
  '10.5',
  '10.49',
  '10.51',
  '123.45',
  '99999.99',
  '9999999999.99',
  '-9999999999.99',
];

export const FLOATS: readonly number[] = [
  0,
  -0,
  1,
  -1,
  0.1,
  0.2,
  0.3,
  0.30000000000000004,
  1.5,
  -1.5,
  4.5,
  1e-300,
  -1e-300,
  5e-324,
  1.7976931348623157e308,
  -1.7976931348623157e308,
  123456789.123,
  2 ** 53,
  2 ** 53 + 2,
];

export const DATES: readonly string[] = [
  '1970-01-01',
  '2000-02-29',
  '2023-12-31',
  '2024-01-15',
  '2024-01-16',
  '1999-12-31',
  // The first day MySQL/MariaDB DATE and DATETIME columns promise (listql refuses earlier literals there).
  '1000-01-01',
  '9999-12-31',
];

/** Epoch milliseconds. */
export const DATETIMES: readonly number[] = [
  0, -1, 1, 1705312800000, 1705312800001, 1705312799999, 946684800000, 4102444800000, -2208988800000, 253402300799999,
];

export const UUIDS: readonly string[] = [
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '0b6a1c52-5f3c-4f0e-9f5e-00000000000a',
  '0b6a1c52-5f3c-4f0e-9f5e-00000000000b',
  'a0000000-0000-4000-8000-000000000001',
];

export const STATUSES: readonly string[] = ['draft', 'active', 'retired'];

/** The pool of one kind, as reference values. */
export function poolOf(kind: Kind, enumItems: readonly string[] = STATUSES): readonly Value[] {
  switch (kind) {
    case 'string':
      return STRINGS;
    case 'enum':
      return enumItems;
    case 'uuid':
      return UUIDS;
    case 'integer':
      return INTEGERS;
    case 'bigint':
      return BIGINTS;
    case 'decimal':
      return DECIMALS;
    case 'float':
      return FLOATS;
    case 'boolean':
      return [true, false];
    case 'datetime':
      return DATETIMES;
    case 'date':
      return DATES;
    default: {
      const never: never = kind;
      throw new Error(`oracle: unknown kind ${String(never)}`);
    }
  }
}

/** Draw a data value: NULL with probability `nulls` when nullable, else from a small prefix of the pool (repeats). */
export function drawValue(random: Random, kind: Kind, nullable: boolean, nulls = 0.3): Value {
  if (nullable && random.chance(nulls)) return null;
  const pool = kind === 'string' && random.chance(0.05) ? DATA_ONLY_STRINGS : poolOf(kind);
  // Favour the first few values so sort keys repeat often and ties need the PK tie-breaker.
  const span = random.chance(0.6) ? Math.min(4, pool.length) : pool.length;
  return pool[random.int(0, span - 1)] ?? null;
}
