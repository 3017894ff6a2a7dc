/**
 * Fuzz inputs for the request surface: random bytes (invalid UTF-8 included), whole raw query strings, grammar-aware
 * mutations of valid filters, nesting at and over the limits, huge `in` lists, odd sort/cursor/scalar values and
 * framework query objects of the wrong shape.
 */
import fc from 'fast-check';
import { KNOWN_PARAMETERS } from '../../src/syntax/parameters.ts';

const PARAMS = [...KNOWN_PARAMETERS, 'x', 'Filter', '__proto__', 'constructor', ''];

/** Percent-encode every byte, so any byte sequence (invalid UTF-8 too) reaches the strict decoder. */
export function percentBytes(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => `%${b.toString(16).padStart(2, '0')}`).join('');
}

/** A value as random bytes, percent-encoded or raw (`%`, `+`, `&` and `=` left as they fall). */
const byteValue = fc.oneof(
  fc.uint8Array({ maxLength: 40 }).map(percentBytes),
  fc.uint8Array({ maxLength: 40 }).map((b) => String.fromCharCode(...b)),
  fc.string({ unit: fc.constantFrom('%', '+', '&', '=', '?', '#', 'F', 'f', '0', 'C', '3', '8', 'a', ' ', 'é') }),
);

/** Whole raw query strings: several name=value parts with random bytes, duplicates, missing `=`. */
export const rawQueryArb: fc.Arbitrary<string> = fc
  .array(fc.tuple(fc.constantFrom(...PARAMS), fc.oneof(byteValue, fc.constant(null))), { maxLength: 6 })
  .chain((parts) =>
    fc
      .constantFrom('', '?', '/books?', 'https://x.test/b?')
      .map((prefix) => prefix + parts.map(([n, v]) => (v === null ? n : `${n}=${v}`)).join('&')),
  );

const TOKENS = [
  ' ',
  '  ',
  '\t',
  '\n',
  '(',
  ')',
  ',',
  "'",
  "''",
  '/',
  ':',
  '-',
  '.',
  'e',
  '0',
  '01',
  '1e',
  '9'.repeat(40),
  'and',
  'or',
  'not',
  'in',
  'is',
  'null',
  'eq',
  'contains',
  'any',
  'all',
  'true',
  'TRUE',
  'x',
  'name',
  'price',
  '/any(',
  '/all(',
  '\u00a0',
  '\u0000',
  'é',
  '😀',
  '\uD800',
];

/** Mutate a valid text: delete, insert a token, duplicate or swap a slice, change case, or cut it short. */
export function mutationArb(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const step = fc.tuple(fc.nat(5), fc.nat(), fc.nat(), fc.constantFrom(...TOKENS));
  return fc.tuple(valid, fc.array(step, { minLength: 1, maxLength: 4 })).map(([text, steps]) => {
    let s = text;
    for (const [kind, a, b, token] of steps) {
      const i = s.length ? a % (s.length + 1) : 0;
      const j = Math.min(s.length, i + (b % 8));
      switch (kind) {
        case 0:
          s = s.slice(0, i) + s.slice(j);
          break;
        case 1:
          s = s.slice(0, i) + token + s.slice(i);
          break;
        case 2:
          s = s.slice(0, j) + s.slice(i, j) + s.slice(j);
          break;
        case 3:
          s = s.slice(0, i) + s.slice(i, j).toUpperCase() + s.slice(j);
          break;
        case 4:
          s = s.slice(0, i);
          break;
        default:
          s = s.slice(0, i) + s.slice(j) + s.slice(i, j);
      }
    }
    return s;
  });
}

/** Filters built to sit at, just under and just over each structural limit (and far over it). */
export const limitFilterArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('paren', 'not', 'and', 'or', 'path', 'in', 'quantifier', 'literal', 'tokens', 'mixed'),
    fc.oneof(fc.integer({ min: 1, max: 140 }), fc.constantFrom(4, 8, 16, 17, 100, 101, 127, 128, 129, 512, 513, 5000)),
  )
  .map(([shape, n]) => {
    switch (shape) {
      case 'paren':
        return `${'('.repeat(n)}id eq 1${')'.repeat(n)}`;
      case 'not':
        return `${'not '.repeat(n)}id eq 1`;
      case 'and':
        return Array.from({ length: n }, (_, i) => `id eq ${i}`).join(' and ');
      case 'or':
        return Array.from({ length: n }, (_, i) => `(id eq ${i} or stock gt ${i})`).join(' and ');
      case 'path':
        return `${Array.from({ length: n }, () => 'a').join('/')} eq 1`;
      case 'in':
        return `id in (${Array.from({ length: n }, (_, i) => i).join(', ')})`;
      case 'quantifier': {
        const depth = Math.min(n, 40);
        let inner = `v${depth}/x eq 1`;
        for (let i = depth; i >= 1; i--) inner = `${i === 1 ? '' : `v${i - 1}/`}r/any(v${i}: ${inner})`;
        return inner;
      }
      case 'literal':
        return `name eq '${'x'.repeat(n * 40)}'`;
      case 'tokens':
        return `id in (${'1,'.repeat(n)}1)`;
      default:
        return `${'('.repeat(n % 130)}not (id eq 1 or ${'name eq 1 and '.repeat(n % 60)}id eq 2)${')'.repeat(n % 130)}`;
    }
  });

/** Sort values: paths, signs, commas and junk. */
export const sortArb: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom('id', '-id', 'name', '-price', 'a/b', 'asc', '--id', '-', '', ' ', 'id ', 'author/name', 'x/'),
      // Modifiers, well-formed and not: `:ci`, NULL placements, repeats, empty, spaced, unknown, misplaced.
      fc.constantFrom('name:ci', '-price:nullsfirst', 'id:nullslast:ci', 'name:ci:ci', 'id:', ':ci', 'id :ci'),
      fc.constantFrom('id: nullsfirst', 'id:nullsfirst:nullslast', 'a/b:ci', 'id:desc', 'id::ci', '-:ci', 'id:CI'),
      fc.string({ maxLength: 6 }),
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(','));

/** Cursor values: base64url-looking text, padding, junk, and JSON of almost the right shape. */
export const cursorArb: fc.Arbitrary<string> = fc.oneof(
  fc.base64String({ maxLength: 80 }),
  fc.string({ unit: fc.constantFrom(...'ABCxyz019-_=+/.'), maxLength: 60 }),
  fc
    .oneof(
      fc.json(),
      fc
        .tuple(fc.constantFrom(0, 1, 2, '1'), fc.string({ maxLength: 30 }), fc.array(fc.jsonValue(), { maxLength: 5 }))
        .map(([v, s, k]) => JSON.stringify({ v, s, k })),
    )
    .map((json) => Buffer.from(json).toString('base64url')),
  fc.constant('A'.repeat(5000)),
);

/** Scalar values for limit, offset, count and search. */
export const scalarArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('0', '1', '01', '-1', '+1', ' 1', '1 ', '1e3', '100', '101', '9007199254740991', '9007199254740992'),
  fc.constantFrom('true', 'false', 'TRUE', 'True', '1', ''),
  fc.string({ maxLength: 20 }),
  fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
  fc.constant('s'.repeat(300)),
);

/** Framework query objects: nested objects, arrays, numbers and null where strings belong. */
export const objectQueryArb: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(
  fc.constantFrom(...PARAMS),
  fc.oneof(
    fc.string({ maxLength: 10 }),
    fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
    fc.integer(),
    fc.constant(null),
    fc.constant(undefined),
    fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
    fc.array(fc.integer(), { maxLength: 2 }),
  ),
  { maxKeys: 5 },
);

/** A cursor key as JSON carries it. */
export type FuzzKey = string | number | boolean | null;

/** Keys at and past the edges of every field kind: integer widths, bigints, decimals, dates, times, text. */
const EDGE_KEYS: readonly FuzzKey[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  127,
  128,
  32767,
  32768,
  -32769,
  2147483647,
  2147483648,
  -2147483649,
  3000000000,
  4294967296,
  2 ** 53 - 1,
  -(2 ** 53 - 1),
  1e39,
  -1e39,
  1e-50,
  5e-324,
  1.1000000001,
  3.4028235e38,
  253402300800000,
  -62135596800001,
  '0',
  '-0',
  '01',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  '1.5',
  '1.50',
  '-0.00',
  '0.1',
  '9999999999.99',
  '99999999999.999',
  '1e3',
  '2024-02-29',
  '2023-02-29',
  '2024-13-01',
  '2024-04-31',
  '0000-01-01',
  '2024-01-01T00:00:00.000000',
  '2024-01-01T00:00:00.000000Z',
  '2024-02-30T00:00:00.000000Z',
  '2024-01-01T25:00:00.000000Z',
  '2024-01-01T23:60:00.000000Z',
  '2024-01-01T23:59:60.000000Z',
  '2024-01-01T00:00:00.000Z',
  '2024-01-01 00:00:00.000000+00',
  '0b6a1c52-5f3c-4f0e-9f5e-000000000001',
  '0B6A1C52-5F3C-4F0E-9F5E-000000000001',
  'draft',
  'Draft',
  '',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x'.repeat(300),
];

/** Change one character of a text: a digit to another digit, or any character to a random one or U+0000. */
function mutateText(text: string, at: number, pick: number): string {
  if (text.length === 0) return ['\u0000', '0', 'a'][pick % 3]!;
  const i = at % text.length;
  const c = text[i]!;
  const replacement = /\d/.test(c) ? String(pick % 10) : ['\u0000', '9', '-', 'Z', ' ', 'é'][pick % 6]!;
  return text.slice(0, i) + replacement + text.slice(i + 1);
}

/** Forge a key near a valid one: an edge value, a one-character change, or the valid value pushed out of range. */
export function forgedKeyArb(valid: FuzzKey): fc.Arbitrary<FuzzKey> {
  const near: fc.Arbitrary<FuzzKey>[] = [fc.constantFrom(...EDGE_KEYS), fc.constant(valid)];
  if (typeof valid === 'string')
    near.push(
      fc.tuple(fc.nat(), fc.nat()).map(([at, pick]) => mutateText(valid, at, pick)),
      fc.constantFrom(`${valid}0`, `-${valid}`, `${valid}\u0000`, `${valid}.0`, valid.toUpperCase()),
    );
  if (typeof valid === 'number')
    near.push(
      fc.constantFrom(valid * 2 ** 31, valid + 2 ** 32, -valid - 1, valid + 0.5, valid * 1e30),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
    );
  return fc.oneof(...near);
}

/**
 * Forge cursor tokens that pass every structural check (canonical JSON, the right signature and key count), so
 * only the key values are wrong, or right: each key is a forgedKeyArb of the valid token's key at its place.
 */
export function forgedCursorArb(valid: string): fc.Arbitrary<string> {
  const doc = JSON.parse(Buffer.from(valid, 'base64url').toString('utf8')) as { s: string; k: FuzzKey[] };
  return fc
    .tuple(...doc.k.map((key) => forgedKeyArb(key)))
    .map((k) => Buffer.from(JSON.stringify({ v: 1, s: doc.s, k }), 'utf8').toString('base64url'));
}
