/**
 * The fast parser (src/syntax/fast-parser.ts) against the normative Ohm grammar (grammar.ohm + build.ts), on the
 * grammar tests' inputs, the whole fuzz corpus of fuzz-surface.test.ts and generated filters, valid and nearly
 * valid, under default and random tight limits. For each input:
 * - the fast parser accepts exactly what Ohm accepts (it may leave nothing valid to Ohm at these limits), with the
 *   same AST: deep-equal, spans included, and the same JSON text, so even field order agrees;
 * - whatever Ohm rejects, parseFilter (fast path, then Ohm) throws exactly Ohm's error: code, message, position.
 */
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isListError, type ListErrorJSON } from '../../src/errors.ts';
import { DEFAULT_LIMITS, type Limits, MAX_OPEN_PARENTHESES } from '../../src/limits.ts';
import type { FilterNode } from '../../src/syntax/ast.ts';
import { overflowAt } from '../../src/syntax/bytes.ts';
import { limitsKey } from '../../src/syntax/cache.ts';
import { fastParseFilter } from '../../src/syntax/fast-parser.ts';
import { parseFilter, parseWithOhm } from '../../src/syntax/filter.ts';
import { fromQueryString } from '../../src/syntax/query-string.ts';
import { filterArb, spacingArb } from '../oracle/arbitraries.ts';
import { budget, SEED } from '../oracle/budget.ts';
import { productSpec } from '../oracle/catalog.ts';
import { printFilter } from '../oracle/filter.ts';
import { limitFilterArb, mutationArb, percentBytes, rawQueryArb } from '../oracle/fuzz.ts';
import { bookSpec } from '../oracle/library.ts';
import { accepted, messages, rejected } from './filter.test.ts';
import { expr, piece } from './roundtrip.test.ts';

type Outcome = { readonly ast: FilterNode } | { readonly error: ListErrorJSON };

/** Inputs each parser accepted, so a family that never reaches one side shows up as a failure, not a pass. */
const seen = { accepted: 0, rejected: 0, refused: 0 };
const checked = new Set<string>();

function ohm(text: string, limits: Limits): Outcome {
  try {
    return { ast: parseWithOhm(text, limits) };
  } catch (error) {
    if (!isListError(error)) throw error;
    return { error: error.toJSON() };
  }
}

/**
 * The fast parser's answer: its AST, undefined when it leaves the input to Ohm, or the error it refuses a well-formed
 * filter with (a limit or scope rule broken), which must then be exactly Ohm's.
 */
function fast(text: string, limits: Limits): FilterNode | ListErrorJSON | undefined {
  try {
    return fastParseFilter(text, limits);
  } catch (error) {
    if (!isListError(error)) throw error;
    return error.toJSON();
  }
}

function isRefusal(outcome: FilterNode | ListErrorJSON | undefined): outcome is ListErrorJSON {
  return outcome !== undefined && 'code' in outcome;
}

function short(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…(${text.length})` : text);
}

/**
 * Assert that both parsers give the same answer for one input; `wired` also runs parseFilter itself. Only with
 * `mayRefuse` (nesting past the fast parser's own bound, under loose limits) may the fast parser leave a valid
 * filter to Ohm.
 */
function agree(text: string, limits: Limits = DEFAULT_LIMITS, wired = false, mayRefuse = false): void {
  // Generators repeat inputs (the limit corpus often): an input already compared adds nothing but time.
  const key = `${limitsKey(limits)}\u0000${text}`;
  if (checked.has(key)) return;
  checked.add(key);
  // parseFilter rejects an over-size value before either parser runs.
  if (overflowAt(text, limits.maxFilterBytes) !== undefined) return;
  const quick = fast(text, limits);
  const slow = ohm(text, limits);
  if ('ast' in slow) {
    seen.accepted++;
    if (isRefusal(quick)) assert.unreachable(`fast parser refused ${short(text)} (${quick.message}); Ohm accepts it`);
    if (quick === undefined) {
      if (!mayRefuse) assert.unreachable(`fast parser refused ${short(text)}, which Ohm accepts`);
      if (wired) assert.equal(parseFilter(text, limits), slow.ast, `parseFilter ${short(text)}`);
      return;
    }
    assert.is(JSON.stringify(quick), JSON.stringify(slow.ast), `AST of ${short(text)}`);
    assert.equal(quick, slow.ast, `AST of ${short(text)}`);
    if (wired) assert.equal(parseFilter(text, limits), slow.ast, `parseFilter ${short(text)}`);
    return;
  }
  seen.rejected++;
  if (isRefusal(quick)) {
    seen.refused++;
    assert.equal(quick, slow.error, `fast refusal of ${short(text)}`);
  } else if (quick !== undefined) {
    assert.unreachable(`fast parser accepted ${short(text)}; Ohm says ${slow.error.code}: ${slow.error.message}`);
  }
  if (!wired) return;
  try {
    parseFilter(text, limits);
    assert.unreachable(`parseFilter accepted ${short(text)}`);
  } catch (error) {
    if (!isListError(error)) throw error;
    assert.equal(error.toJSON(), slow.error, `error for ${short(text)}`);
  }
}

/** Run a property over an arbitrary with this run's seed, counting what each side accepted. */
function family<T>(name: string, arb: fc.Arbitrary<T>, runs: number, check: (value: T) => void): void {
  test(`${budget(runs)} × ${name}`, () => {
    const before = { ...seen };
    fc.assert(fc.property(arb, check), { seed: SEED, numRuns: budget(runs) });
    assert.ok(seen.accepted + seen.rejected > before.accepted + before.rejected, 'no input reached the parsers');
  });
}

const withLimits = (over?: Partial<Limits>): Limits => (over ? { ...DEFAULT_LIMITS, ...over } : DEFAULT_LIMITS);

// ---------------------------------------------------------------------------------------------------------------
// (a) Every input of the grammar tests, through parseFilter too (errors must come out exactly as Ohm's)
// ---------------------------------------------------------------------------------------------------------------

test('the grammar tests: accepted, rejected and message rows', () => {
  for (const [input, , over] of accepted) agree(input, withLimits(over), true);
  for (const [input, , , over] of rejected) agree(input, withLimits(over), true);
  for (const [input] of messages) agree(input, DEFAULT_LIMITS, true);
});

/** Nesting, sizes and counts at, just under and just over each limit, alone and combined. */
function atTheLimits(): [string, Partial<Limits>?, boolean?][] {
  const rows: [string, Partial<Limits>?, boolean?][] = [];
  const p = MAX_OPEN_PARENTHESES;
  for (const n of [p - 1, p, p + 1]) rows.push([`${'('.repeat(n)}a eq 1${')'.repeat(n)}`]);
  for (const n of [15, 16, 17]) {
    rows.push([`${'not '.repeat(n)}a eq 1`]);
    rows.push([`${'('.repeat(p)}${'not '.repeat(n)}a eq 1${')'.repeat(p)}`]);
    rows.push([`${'not ('.repeat(n)}a eq 1${')'.repeat(n)}`]);
    rows.push([`${'('.repeat(p - n)}${'not ('.repeat(n)}a eq 1${')'.repeat(n)}${')'.repeat(p - n)}`]);
  }
  // Quantifiers nested 4 and 5 deep, inside 120 parentheses and under `not`s, up to depth 16 and past it.
  for (const depth of [3, 4, 5]) {
    let inner = `v${depth}/x eq 1`;
    for (let i = depth; i >= 1; i--) inner = `${i === 1 ? '' : `v${i - 1}/`}r/any(v${i}: not ${inner})`;
    for (const nots of [0, 7, 8, 9]) {
      const text = `${'not '.repeat(nots)}${inner}`;
      rows.push([text], [`${'('.repeat(120)}${text}${')'.repeat(120)}`]);
      rows.push([text, { maxQuantifierDepth: 5 }]);
    }
  }
  for (const n of [99, 100, 101]) {
    rows.push([Array.from({ length: Math.ceil(n / 2) }, (_, i) => `a eq ${i}`).join(n % 2 ? ' or ' : ' and ')]);
    rows.push([`id in (${Array.from({ length: n }, (_, i) => i).join(',')})`]);
  }
  for (const n of [7, 8, 9]) rows.push([`${Array.from({ length: n }, (_, i) => `s${i}`).join('/')} eq 1`]);
  for (const n of [4095, 4096, 4097]) {
    rows.push([`a eq '${'x'.repeat(n)}'`], [`a eq '${'é'.repeat(n >> 1)}x'`], [`a eq '${"''".repeat(n >> 1)}'`]);
  }
  for (const n of [510, 511, 512, 513]) rows.push([`id in (${'1,'.repeat(Math.floor((n - 4) / 2))}1)`]);
  // Larger limits than the defaults: the fast parser follows until its own nesting bound, then leaves it to Ohm.
  const loose = { maxExpressionDepth: 400, maxNodes: 1000, maxTokens: 5000, maxFilterBytes: 20_000 };
  for (const n of [100, 150, 200]) rows.push([`${'not '.repeat(n)}a eq 1`, loose, n > 150]);
  return rows;
}

test('nesting, sizes and counts at and over the limits', () => {
  for (const [input, over, mayRefuse] of atTheLimits()) agree(input, withLimits(over), true, mayRefuse);
});

test('the fast parser takes the typical filter and the deepest valid nesting at the default limits', () => {
  const typical = "price gte 10 and title startswith 'The' and score lt 90 and reviews/any(r: r/stars gte 4)";
  assert.ok(fastParseFilter(typical, DEFAULT_LIMITS));
  const deepest = `${'('.repeat(MAX_OPEN_PARENTHESES)}${'not '.repeat(15)}a eq 1${')'.repeat(MAX_OPEN_PARENTHESES)}`;
  assert.ok(fastParseFilter(deepest, DEFAULT_LIMITS));
});

// ---------------------------------------------------------------------------------------------------------------
// (b) The fuzz corpus of fuzz-surface.test.ts: same arbitraries, seed and budgets, filter values only
// ---------------------------------------------------------------------------------------------------------------

/** The filter a raw query string carries, when it decodes to exactly one. */
function filterOf(query: string): string | undefined {
  try {
    const value = fromQueryString(query).filter;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

const validFilter = fc
  .tuple(filterArb(productSpec, { depth: 3, hops: 0, quantifiers: 0 }), spacingArb)
  .map(([f, s]) => printFilter(f, s));

family('fuzz: whole raw query strings', rawQueryArb, 12000, (q) => {
  const f = filterOf(q);
  if (f !== undefined) agree(f);
});
family('fuzz: random bytes as a filter', fc.uint8Array(), 6000, (bytes) => {
  const f = filterOf(`filter=${percentBytes(bytes)}`);
  if (f !== undefined) agree(f);
});
family('fuzz: grammar-aware mutations of valid filters', mutationArb(validFilter), 15000, (f) => agree(f));
family('fuzz: valid filters, unchanged', validFilter, 3000, (f) => agree(f));
family('fuzz: nesting, lists and sizes at and over the limits', limitFilterArb, 3000, (f) => agree(f));
family('fuzz: any Unicode text', fc.string({ unit: 'binary', maxLength: 60 }), 4000, (f) => agree(f));

// ---------------------------------------------------------------------------------------------------------------
// (c) Generated filters: relations and quantifiers, random tight limits, and nearly valid spellings
// ---------------------------------------------------------------------------------------------------------------

const bookFilter = fc
  .tuple(filterArb(bookSpec, { depth: 4, hops: 1, quantifiers: 3 }), spacingArb)
  .map(([f, s]) => printFilter(f, s));

/** Limits drawn small, so generated filters land on both sides of every bound. */
const tightLimits: fc.Arbitrary<Limits> = fc
  .record({
    maxTokens: fc.integer({ min: 1, max: 80 }),
    maxLiteralBytes: fc.integer({ min: 1, max: 12 }),
    maxInValues: fc.integer({ min: 1, max: 5 }),
    maxNodes: fc.integer({ min: 1, max: 12 }),
    maxExpressionDepth: fc.integer({ min: 1, max: 6 }),
    maxPathDepth: fc.integer({ min: 1, max: 4 }),
    maxQuantifierDepth: fc.integer({ min: 1, max: 3 }),
  })
  .map((over) => ({ ...DEFAULT_LIMITS, ...over }));

family('generated filters with relations and any/all', bookFilter, 1500, (f) => agree(f));
family('generated filters under random tight limits', fc.tuple(bookFilter, tightLimits), 2500, ([f, limits]) =>
  agree(f, limits, true),
);
family('printed random filters of the round-trip test', expr(3, []), 1000, (g) => agree(g.text));
family('token soup of the round-trip test', fc.array(piece, { maxLength: 14 }), 2000, (p) => agree(p.join('')));

/** Replacements that keep a filter valid, or nearly: spacing, names that look like keywords, literal spellings. */
const NEAR = [
  ' ',
  '\t',
  '\r\n',
  '  \n ',
  '',
  '\f',
  '\v',
  '\u00a0',
  'TRUE',
  'True',
  'andx',
  'and_',
  'android',
  'notes',
  'inx',
  'isnull',
  'Null',
  'ORDER',
  'or',
  'and',
  'not',
  'not not',
  'is not',
  'in',
  'any',
  'all',
  'anyx',
  'ieq',
  'ine',
  'inet',
  'icontains',
  'istartswith',
  'iendswith',
  'IEQ',
  'ieq_',
  '/any(',
  '/all(',
  ':',
  ': ',
  '0',
  '-0',
  '1e5',
  '1E+5',
  '2.5e-3',
  '1.',
  '1e',
  '1.5.2',
  '01',
  '-',
  '.5',
  "''",
  "'it''s'",
  "'é€𝄞'",
  "'\ud800'",
  "'a b'",
  "'",
  "'''",
  '(',
  ')',
  ',',
  ', ',
  '/',
  '_',
  'x_1',
  'a/b',
];

/** Mutate a valid filter with NEAR pieces: insert one, replace a slice, or swap every run of spaces for one. */
const nearlyValid = fc
  .tuple(
    fc.oneof(
      bookFilter,
      validFilter,
      expr(2, []).map((g) => g.text),
    ),
    fc.array(fc.tuple(fc.nat(2), fc.nat(), fc.nat(6), fc.constantFrom(...NEAR)), { minLength: 1, maxLength: 3 }),
  )
  .map(([text, steps]) => {
    let s = text;
    for (const [kind, a, len, piece] of steps) {
      const i = a % (s.length + 1);
      if (kind === 0) s = s.slice(0, i) + piece + s.slice(i);
      else if (kind === 1) s = s.slice(0, i) + piece + s.slice(Math.min(s.length, i + len));
      else s = s.replace(/[ \t\r\n]+/g, (run, at: number) => (at % 3 === a % 3 ? piece : run));
    }
    return s;
  });

/**
 * Aggregates: `<path>/count()`, `sum/avg/min/max(<field>)`, optional inner filters (nested aggregates and quantifiers
 * among them), tested with every operator form, combined with `and`/`or`/`not` and placed inside quantifiers.
 */
const aggregateFilter: fc.Arbitrary<string> = fc.letrec<{ agg: string; inner: string; top: string }>((tie) => ({
  agg: fc
    .tuple(
      fc.constantFrom('reviews', 'a/books', 'count', 'x/sum'),
      fc.constantFrom('count', 'sum', 'avg', 'min', 'max'),
      fc.constantFrom('stars', 'count', 'sum'),
      fc.option(fc.tuple(fc.constantFrom('r', 'q'), tie('inner')), { nil: undefined, freq: 2 }),
      fc.constantFrom('gt 5', 'eq 0', 'in (1, 2.5)', 'not in (1)', 'is null', 'is not null', "lte '2026-01-01'"),
    )
    .map(([path, fn, field, inner, test]) => {
      const filter = inner ? `${inner[0]}: ${inner[1].replaceAll('$', inner[0])}` : '';
      const args = fn === 'count' ? filter : filter ? `${field}, ${filter}` : field;
      return `${path}/${fn}(${args}) ${test}`;
    }),
  inner: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('$/stars gte 4', '$/count eq 1', "$/who ne 'bot'", '$/tags/count() gt 1'),
    fc.tuple(tie('inner'), tie('inner')).map(([a, b]) => `${a} and ${b}`),
  ),
  top: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('agg'),
    tie('agg').map((a) => `not ${a}`),
    fc.tuple(tie('top'), tie('top')).map(([a, b]) => `(${a}) or ${b}`),
    tie('agg').map((a) => `rel/any(v: v/${a})`),
  ),
})).top;

family('generated aggregate filters', aggregateFilter, 1500, (f) => agree(f));
family('mutated aggregate filters', mutationArb(aggregateFilter), 3000, (f) => agree(f));
family('aggregate filters under random tight limits', fc.tuple(aggregateFilter, tightLimits), 1500, ([f, limits]) =>
  agree(f, limits, true),
);

family('nearly valid filters', nearlyValid, 4000, (f) => agree(f));
family('nearly valid filters under random tight limits', fc.tuple(nearlyValid, tightLimits), 2000, ([f, limits]) =>
  agree(f, limits, true),
);

test('both sides were reached', () => {
  assert.ok(seen.accepted > 5000, `${seen.accepted} accepted`);
  assert.ok(seen.rejected > 5000, `${seen.rejected} rejected`);
  // Well-formed filters over a limit or out of scope: the fast parser refuses them itself, with Ohm's exact error.
  assert.ok(seen.refused > 1000, `${seen.refused} refused by the fast parser`);
  const counts = `${seen.accepted} accepted, ${seen.rejected} rejected by both parsers (${seen.refused} fast refusals)`;
  process.stdout.write(`\n  differential: ${counts}\n`);
});

test.run();
