/**
 * Cheap refusals: a well-formed filter that breaks a limit or scope rule is refused by the fast parser itself
 * (src/syntax/refusal.ts), never by Ohm, and with exactly the error Ohm's build gives (code, parameter, message,
 * position). Generated filters are measured under loose limits, then parsed under limits drawn at, one under and
 * one over each measure, so every bound is crossed at its edge, alone and several at once; the same texts with a
 * syntax error appended must still get Ohm's syntax error; and the nested parameters that GraphQL arguments become
 * (`best.filter`) give the same refusal under their own name.
 */
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isListError, type ListErrorJSON } from '../../src/errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../../src/limits.ts';
import type { FilterNode, Literal } from '../../src/syntax/ast.ts';
import { utf8Length } from '../../src/syntax/bytes.ts';
import { fastParseFilter } from '../../src/syntax/fast-parser.ts';
import { parseFilter, parseWithOhm } from '../../src/syntax/filter.ts';
import { parseHTTP } from '../../src/syntax/parse-http.ts';
import { budget, SEED } from '../oracle/budget.ts';

/** Loose enough that every generated filter is accepted, so its measures can be read off Ohm's tree. */
const LOOSE: Limits = {
  ...DEFAULT_LIMITS,
  maxNodes: 10_000,
  maxExpressionDepth: 100,
  maxQuantifierDepth: 50,
  maxPathDepth: 50,
  maxInValues: 1000,
  maxLiteralBytes: 8000,
  maxTokens: 4000,
};

type Outcome = { readonly ast: FilterNode } | { readonly error: ListErrorJSON } | { readonly left: true };

function outcome(parse: () => FilterNode | undefined): Outcome {
  try {
    const ast = parse();
    return ast === undefined ? { left: true } : { ast };
  } catch (error) {
    if (!isListError(error)) throw error;
    return { error: error.toJSON() };
  }
}

// -------------------------------------------------------------------------------------------------------------
// Generated well-formed filters: chains, groups, not, any/all, aggregates with inner filters, lists, strings
// -------------------------------------------------------------------------------------------------------------

const spaceArb = fc.constantFrom(' ', ' ', ' ', '  ', '\t', '\n', ' \r\n ');
const stringArb = fc
  .tuple(fc.constantFrom('x', 'é', '€', '𝄞', "''", 'ab'), fc.nat(6))
  .map(([unit, n]) => `'${unit.repeat(n)}'`);
const literalArb = fc.oneof(stringArb, fc.constantFrom('1', '-2.5', '0', '1e3', 'true', 'false'));
const listArb = fc
  .tuple(fc.array(literalArb, { minLength: 1, maxLength: 7 }), spaceArb)
  .map(([values, s]) => `(${values.join(`,${s}`)})`);

/** A path: inside a scope it mostly starts with an active variable (sometimes not, or with nothing after it). */
function pathArb(scopes: readonly string[]): fc.Arbitrary<string> {
  const names = fc.array(fc.constantFrom('a', 'b', 'title', 'x_1'), { minLength: 1, maxLength: 5 });
  if (scopes.length === 0) return names.map((n) => n.join('/'));
  return fc
    .tuple(fc.constantFrom(...scopes), names, fc.nat(19))
    .map(([v, n, roll]) => (roll === 0 ? n.join('/') : roll === 1 ? v : `${v}/${n.join('/')}`));
}

function leafArb(scopes: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(
      pathArb(scopes),
      fc.oneof(
        fc.tuple(fc.constantFrom('eq', 'gt', 'contains', 'ieq'), literalArb).map(([op, v]) => `${op} ${v}`),
        listArb.map((l) => `in ${l}`),
        listArb.map((l) => `not in ${l}`),
        fc.constantFrom('is null', 'is not null'),
      ),
      spaceArb,
    )
    .map(([path, test, s]) => `${path}${s}${test}`);
}

/** A filter nested `depth` more levels at most, its paths scoped by `scopes` (the innermost last). */
function filterArb(depth: number, scopes: readonly string[]): fc.Arbitrary<string> {
  if (depth === 0) return leafArb(scopes);
  const inner = filterArb(depth - 1, scopes);
  // A variable: new most of the time, sometimes one already active (shadowing).
  const variable = fc.constantFrom('r', 'q', 'v', 'w', ...scopes.slice(-1));
  const scoped = (make: (v: string, body: string, path: string, s: string) => string) =>
    fc
      .tuple(variable, pathArb(scopes), spaceArb)
      .chain(([v, path, s]) => filterArb(depth - 1, [...scopes, v]).map((body) => make(v, body, path, s)));
  return fc.oneof(
    { depthSize: 'small' },
    leafArb(scopes),
    fc
      .tuple(fc.array(inner, { minLength: 2, maxLength: 5 }), fc.constantFrom('and', 'or'), spaceArb)
      .map(([parts, op, s]) => parts.join(`${s}${op}${s}`)),
    fc.tuple(inner, spaceArb).map(([f, s]) => `(${s}${f}${s})`),
    fc.tuple(inner, spaceArb).map(([f, s]) => `not${s}${f.startsWith('(') ? f : `(${f})`}`),
    inner.map((f) => `not not (${f})`),
    scoped((v, body, path, s) => `${path}/${v.length % 2 ? 'any' : 'all'}(${v}:${s}${body}${s})`),
    scoped((v, body, path, s) => `${path}/count(${v}: ${body})${s}gt 1`),
    scoped((v, body, path, s) => `${path}/avg(stars,${s}${v}: ${body}) in (1, 2)`),
    fc.tuple(pathArb(scopes), spaceArb).map(([path, s]) => `${path}/sum(price)${s}is not null`),
  );
}

/** The measures of a tree that each limit bounds, as the build counts them. */
interface Measures {
  nodes: number;
  depth: number;
  quantifiers: number;
  segments: number;
  values: number;
  literal: number;
}

function measure(node: FilterNode): Measures {
  const m: Measures = { nodes: 0, depth: 0, quantifiers: 0, segments: 0, values: 0, literal: 0 };
  const literal = (l: Literal) => {
    if (l.kind === 'string') m.literal = Math.max(m.literal, utf8Length(l.value));
  };
  const walk = (n: FilterNode, depth: number, parent: string | undefined, scopes: number): void => {
    const d = (n.kind === 'and' || n.kind === 'or') && parent === n.kind ? depth : depth + 1;
    m.depth = Math.max(m.depth, d);
    m.nodes++;
    switch (n.kind) {
      case 'and':
      case 'or':
        walk(n.left, d, n.kind, scopes);
        walk(n.right, d, n.kind, scopes);
        return;
      case 'not':
        walk(n.operand, d, 'not', scopes);
        return;
      case 'quantifier':
        m.quantifiers = Math.max(m.quantifiers, scopes + 1);
        m.segments = Math.max(m.segments, n.path.segments.length);
        walk(n.predicate, d, 'quantifier', scopes + 1);
        return;
      case 'aggregate':
        m.segments = Math.max(m.segments, n.call.path.segments.length);
        if (n.call.predicate) {
          m.quantifiers = Math.max(m.quantifiers, scopes + 1);
          walk(n.call.predicate, d, 'aggregate', scopes + 1);
        }
        if (n.test.kind === 'value') literal(n.test.value);
        if (n.test.kind === 'membership') {
          m.values = Math.max(m.values, n.test.values.length);
          n.test.values.forEach(literal);
        }
        return;
      default:
        m.segments = Math.max(m.segments, n.path.segments.length);
        if (n.kind === 'comparison') literal(n.value);
        if (n.kind === 'membership') {
          m.values = Math.max(m.values, n.values.length);
          n.values.forEach(literal);
        }
    }
  };
  walk(node, 0, undefined, 0);
  return m;
}

/** Limits at, one under or one over each measure (at least 1), each drawn from `edges` (-1, 0 or +1). */
function limitsAround(m: Measures, edges: readonly number[]): Limits {
  const at = (value: number, i: number) => Math.max(1, value + (edges[i] ?? 0));
  return {
    ...DEFAULT_LIMITS,
    maxNodes: at(m.nodes, 0),
    maxExpressionDepth: at(m.depth, 1),
    maxQuantifierDepth: at(m.quantifiers, 2),
    maxPathDepth: at(m.segments, 3),
    maxInValues: at(m.values, 4),
    maxLiteralBytes: at(m.literal, 5),
    maxTokens: LOOSE.maxTokens,
  };
}

/** Tight limits moved by `edges`: for filters whose scope errors keep them from being measured. */
function tightLimits(edges: readonly number[]): Limits {
  const at = (value: number, i: number) => Math.max(1, value + (edges[i] ?? 0));
  return {
    ...LOOSE,
    maxNodes: at(6, 0),
    maxExpressionDepth: at(3, 1),
    maxQuantifierDepth: at(2, 2),
    maxPathDepth: at(3, 3),
    maxInValues: at(3, 4),
    maxLiteralBytes: at(4, 5),
  };
}

/** Limits around the measures of `text` when it is accepted under LOOSE, else tight ones: both ways over its edges. */
function limitsFor(text: string, edges: readonly number[]): Limits {
  const loose = outcome(() => parseWithOhm(text, LOOSE));
  return 'ast' in loose ? limitsAround(measure(loose.ast), edges) : tightLimits(edges);
}

const seen = { refused: 0, accepted: 0, invalidRelationship: 0, syntax: 0, byLimit: new Map<string, number>() };

/**
 * The property: Ohm (prescan, match, build) and the fast parser agree on `text`; every refusal of the well-formed
 * text comes from the fast parser (never left to Ohm) and equals Ohm's error; parseFilter gives it too.
 */
function agreeAtEdges(text: string, limits: Limits): void {
  const ohm = outcome(() => parseWithOhm(text, limits));
  const fast = outcome(() => fastParseFilter(text, limits));
  if ('ast' in ohm) {
    seen.accepted++;
    assert.equal(fast, ohm, `accepted ${JSON.stringify(text)}`);
    return;
  }
  assert.ok('error' in ohm);
  // Too many tokens or open parentheses are the pre-scan's to report, before any parse; it costs one scan.
  const prescan = /tokens|open parentheses/.test(ohm.error.message);
  if (!prescan) {
    assert.equal(fast, ohm, `refusal of ${JSON.stringify(text)} under ${JSON.stringify(limits)}`);
    seen.refused++;
    const kind = ohm.error.code === 'limit_exceeded' ? ohm.error.message.replace(/\d+/g, 'N') : ohm.error.code;
    seen.byLimit.set(kind, (seen.byLimit.get(kind) ?? 0) + 1);
    if (ohm.error.code === 'invalid_relationship') seen.invalidRelationship++;
  }
  assert.equal(
    outcome(() => parseFilter(text, limits)),
    ohm,
    `parseFilter ${JSON.stringify(text)}`,
  );
}

const edgeArb = fc.array(fc.constantFrom(-1, 0, 0, 1, 5), { minLength: 6, maxLength: 6 });
const generated = fc
  .tuple(fc.integer({ min: 1, max: 4 }), fc.constant(null))
  .chain(([d]) => filterArb(d, []))
  .filter((text) => text.length < 3000);

test(`${budget(3000)} × generated filters under limits at, under and over their measures`, () => {
  fc.assert(
    fc.property(generated, edgeArb, (text, edges) => {
      agreeAtEdges(text, LOOSE);
      agreeAtEdges(text, limitsFor(text, edges));
    }),
    { seed: SEED, numRuns: budget(3000) },
  );
});

test(`${budget(1500)} × the same filters with a syntax error after them: Ohm's syntax error, never a refusal`, () => {
  const broken = fc.constantFrom(' and', ' or (', ' eq 1', ')', " and a eq 'x", ' and a eq 01', ' #');
  fc.assert(
    fc.property(generated, edgeArb, broken, (text, edges, tail) => {
      const limits = limitsFor(text, edges);
      const bad = `${text}${tail}`;
      const ohm = outcome(() => parseWithOhm(bad, limits));
      assert.ok(
        'error' in ohm && ohm.error.code !== 'limit_exceeded',
        `${JSON.stringify(bad)}: ${JSON.stringify(ohm)}`,
      );
      seen.syntax++;
      assert.equal(
        outcome(() => fastParseFilter(bad, limits)),
        { left: true },
      );
      assert.equal(
        outcome(() => parseFilter(bad, limits)),
        ohm,
      );
    }),
    { seed: SEED, numRuns: budget(1500) },
  );
});

// -------------------------------------------------------------------------------------------------------------
// The node limit at its edge: chains, nesting and quantifiers of exactly maxNodes - 1, maxNodes and maxNodes + 1
// -------------------------------------------------------------------------------------------------------------

/** `count` comparisons joined by and/or (some groups), under `nots` nots and inside `any` levels: its node count. */
function shaped(count: number, nots: number, quantifiers: number, join: readonly string[]): [string, number] {
  const vars = Array.from({ length: quantifiers }, (_, i) => `v${i}`);
  const head = vars.length ? `${vars[vars.length - 1]}/` : '';
  let body = Array.from({ length: count }, (_, i) => `${head}price gt ${i}`).reduce((acc, part, i) => {
    const op = join[i % join.length] ?? 'and';
    return i % 4 === 3 ? `(${acc}) ${op} ${part}` : `${acc} ${op} ${part}`;
  });
  body = `${'not '.repeat(nots)}${nots ? `(${body})` : body}`;
  for (let i = quantifiers - 1; i >= 0; i--) body = `${i ? `v${i - 1}/` : ''}rel/any(v${i}: ${body})`;
  return [body, count + (count - 1) + nots + quantifiers];
}

test('the node limit at its edge, in chains, under not and inside any (default and random limits)', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 60 }),
      fc.nat(3),
      fc.nat(3),
      fc.array(fc.constantFrom('and', 'or'), { minLength: 1, maxLength: 4 }),
      fc.constantFrom(-1, 0, 1, 2),
      (count, nots, quantifiers, join, edge) => {
        const [text, nodes] = shaped(count, nots, quantifiers, join);
        const limits = { ...DEFAULT_LIMITS, maxNodes: Math.max(1, nodes + edge), maxExpressionDepth: 100 };
        agreeAtEdges(text, limits);
        const error = outcome(() => fastParseFilter(text, limits));
        assert.is('error' in error, nodes > limits.maxNodes, `${nodes} nodes under maxNodes ${limits.maxNodes}`);
      },
    ),
    { seed: SEED, numRuns: budget(600) },
  );
  // The default limits: 99, 100 (accepted), 101 and 102 nodes (refused at the 101st node).
  for (const extra of [-1, 0, 1, 2]) {
    const comparisons = Array.from({ length: 50 }, (_, i) => `price gt ${i}`);
    const text = `not ${comparisons.join(' and ')}${extra > 0 ? ' or id eq 1'.repeat(extra) : ''}`;
    const trimmed = extra < 0 ? text.replace(/^not /, '') : text;
    agreeAtEdges(trimmed, DEFAULT_LIMITS);
  }
});

test('the 102-node filter of the benchmark is refused by the fast parser at the 101st node', () => {
  const parts = Array.from({ length: 50 }, (_, i) => `price ${i % 2 ? 'gt' : 'lt'} ${i}`);
  const text = `not ${parts.join(' or ').replace(/ or /g, (_m, at: number) => (at % 3 ? ' or ' : ' and '))} and id gt 0`;
  const fast = outcome(() => fastParseFilter(text, DEFAULT_LIMITS));
  const offset = text.lastIndexOf(' and ') + 1;
  const expected = {
    code: 'limit_exceeded',
    message: 'filter has more than 100 nodes',
    parameter: 'filter',
    position: { offset, line: 1, column: offset + 1 },
  };
  assert.equal(fast, { error: expected });
  assert.equal(
    outcome(() => parseWithOhm(text, DEFAULT_LIMITS)),
    { error: expected },
  );
});

test('each limit and scope rule, alone and two at once (the first in build order wins)', () => {
  const rows: [string, Partial<Limits>][] = [
    [`${'not '.repeat(17)}a eq 1`, {}],
    [`${'not ('.repeat(17)}a eq 1${')'.repeat(17)}`, {}],
    [`a eq 1 and (b eq 2 or ${'not '.repeat(15)}c eq 3)`, {}],
    [`a/b/c/d/e/f/g/h/i eq 1 and ${'not '.repeat(20)}a eq 1`, {}],
    [`${'not '.repeat(20)}a eq 1 and a/b/c/d/e/f/g/h/i eq 1`, {}],
    ['r/any(x: r/any(x: x/y eq 1))', {}],
    ['r/any(x: y eq 1)', {}],
    ['r/any(x: x eq 1)', {}],
    ['r/count(x: r/any(x: x/y eq 1)) gt 1', {}],
    ['r/count(x: y eq 1) gt 1 and a in (1,2,3)', { maxInValues: 2 }],
    ["a in (1, 'xy', 3) and b eq 'long'", { maxInValues: 2, maxLiteralBytes: 1 }],
    ["a eq 'é€' or b eq 1", { maxLiteralBytes: 4 }],
    ["a eq 'x'\nand\tb eq 'ééé'", { maxLiteralBytes: 5 }],
    ['a/any(b: b/any(c: c/any(d: d/any(e: e/any(f: f/x eq 1)))))', {}],
    ['a/any(b: b/any(c: c/any(d: d/any(e: e/count(f: f/x eq 1) gt 0))))', {}],
    ['(a eq 1 and b eq 2) and c eq 3 or d eq 4', { maxNodes: 3 }],
    ['(a eq 1 or b eq 2) and (c eq 3 or d eq 4)', { maxExpressionDepth: 1 }],
    ['a eq 1 or (b eq 2 and (c eq 3 or d eq 4))', { maxExpressionDepth: 2 }],
    ['x/y/z/sum(a) gt 1', { maxPathDepth: 2 }],
    ['x/avg(n, q: q/a/b eq 1) gt 1', { maxPathDepth: 2 }],
    // Two rules broken at one place: the build's order inside a node decides.
    ['not not not a eq 1', { maxNodes: 2, maxExpressionDepth: 2 }],
    ['a/any(x: x/b/any(y: y/c eq 1))', { maxNodes: 1, maxExpressionDepth: 1, maxQuantifierDepth: 1 }],
    ['a/any(x: x/b/any(y: y/c eq 1))', { maxExpressionDepth: 1, maxQuantifierDepth: 1 }],
    ['a/any(x: b/any(y: y/c eq 1))', { maxQuantifierDepth: 1 }],
    ['a/any(x: b/c/d/any(y: y/c eq 1))', { maxPathDepth: 2 }],
    ['a/any(x: y eq 1)', { maxNodes: 1, maxExpressionDepth: 1 }],
    ['a/any(x: y eq 1)', { maxExpressionDepth: 1 }],
    ['a/any(x: y/b/c eq 1)', { maxPathDepth: 2 }],
    ['not (a eq 1 and b eq 2)', { maxNodes: 1, maxExpressionDepth: 1 }],
    ['not (a eq 1 and b eq 2)', { maxNodes: 2, maxExpressionDepth: 2 }],
    ['a eq 1 and b eq 2 or c eq 3', { maxNodes: 1, maxExpressionDepth: 1 }],
    ["a in ('x', 'yy')", { maxInValues: 1, maxLiteralBytes: 1 }],
    ["a/count(x: x/b eq 1) in ('x', 'yy')", { maxInValues: 1, maxLiteralBytes: 1 }],
    ['r/any(x: x/count(x: x/a eq 1) gt 1)', { maxQuantifierDepth: 1 }],
    ['r/any(x: x/count(x: x/a eq 1) gt 1)', { maxNodes: 1, maxExpressionDepth: 1, maxQuantifierDepth: 1 }],
    ['r/any(x: x/count(x: x/a eq 1) gt 1)', { maxExpressionDepth: 2 }],
    ['r/any(x: x/count(y: x/a eq 1) gt 1)', { maxExpressionDepth: 2 }],
    ['r/count(x: x/a eq 1 and x/b eq 2) gt 1', { maxExpressionDepth: 2 }],
    ['r/count(x: x/a eq 1 and x/b eq 2) gt 1', { maxNodes: 2 }],
    ["a eq 'é'\n  or (b eq 1 and\r\n c eq 2)", { maxExpressionDepth: 1 }],
    ["a eq 'é'\n  or b eq 1 and\r\n c eq 2", { maxNodes: 4 }],
    ["a eq 'é'\n  or b eq 1 and\r\n c eq 'ab𝄞'", { maxLiteralBytes: 5 }],
  ];
  for (const [text, over] of rows) {
    const limits = { ...DEFAULT_LIMITS, ...over };
    const ohm = outcome(() => parseWithOhm(text, limits));
    assert.ok('error' in ohm, `${JSON.stringify(text)} is refused`);
    assert.not.equal(ohm.error.code, 'invalid_syntax', `${JSON.stringify(text)} is well-formed`);
    agreeAtEdges(text, limits);
  }
});

test("nesting past the fast parser's bound: refused there only with the answer Ohm gives even out of stack", () => {
  const loose = { ...DEFAULT_LIMITS, maxTokens: 5000, maxFilterBytes: 100_000 };
  // A run of `not` words: the depth error at the 17th, whether Ohm's recursion runs out of stack or not.
  for (const n of [161, 170, 300, 505]) {
    const text = `${'not '.repeat(n)}a eq 1`;
    const ohm = outcome(() => parseWithOhm(text, loose));
    assert.equal(
      outcome(() => fastParseFilter(text, loose)),
      ohm,
      `${n} nots`,
    );
    assert.ok('error' in ohm && ohm.error.position?.offset === 64, `${n} nots: at the 17th`);
  }
  // Parentheses or a comparison before the run: out of stack, Ohm would point elsewhere, so Ohm decides.
  for (const text of [
    `${'('.repeat(128)}${'not '.repeat(40)}a eq 1${')'.repeat(128)}`,
    `${'not ('.repeat(100)}a eq 1${')'.repeat(100)}`,
    `a eq 1 and ${'not '.repeat(300)}a eq 1`,
  ]) {
    const ohm = outcome(() => parseWithOhm(text, loose));
    assert.ok('error' in ohm);
    assert.equal(
      outcome(() => fastParseFilter(text, loose)),
      { left: true },
    );
    assert.equal(
      outcome(() => parseFilter(text, loose)),
      ohm,
    );
  }
  // Deep and malformed: Ohm's answer.
  const bad = `${'not '.repeat(200)}a eq`;
  assert.equal(
    outcome(() => fastParseFilter(bad, loose)),
    { left: true },
  );
  assert.equal(
    outcome(() => parseFilter(bad, loose)),
    outcome(() => parseWithOhm(bad, loose)),
  );
});

// -------------------------------------------------------------------------------------------------------------
// The GraphQL door: connection arguments become `filter` and `<list>.filter` parameters of the same parser
// -------------------------------------------------------------------------------------------------------------

/** Ohm's error for `text`, as a nested parameter's would read (renamed in parameter and message, same position). */
function renamedOhm(text: string, limits: Limits, parameter: string): ListErrorJSON {
  const ohm = outcome(() => parseWithOhm(text, limits));
  assert.ok('error' in ohm);
  return { ...ohm.error, parameter, message: ohm.error.message.replace(/^filter(?= )/, parameter) };
}

test(`${budget(800)} × refusals through parseHTTP, top-level and nested parameters (GraphQL arguments)`, () => {
  fc.assert(
    fc.property(generated, edgeArb, fc.constantFrom('filter', 'best.filter', 'a.b.filter'), (text, edges, name) => {
      const limits = limitsFor(text, edges);
      const ohm = outcome(() => parseWithOhm(text, limits));
      if (!('error' in ohm)) return;
      const fast = outcome(() => fastParseFilter(text, limits));
      const got = outcome(() => parseHTTP({ [name]: text }, { limits }).filter);
      assert.equal(got, { error: renamedOhm(text, limits, name) }, `${name}=${JSON.stringify(text)}`);
      assert.ok('error' in fast || /tokens|open parentheses/.test(ohm.error.message), 'refused by the fast parser');
    }),
    { seed: SEED, numRuns: budget(800) },
  );
});

test('every kind of refusal was reached', () => {
  const kinds = [...seen.byLimit.keys()].sort();
  for (const kind of [
    'filter has more than N nodes',
    'filter nests deeper than N levels',
    'filter nests more than N any/all',
    'a path has more than N segments',
    'a list has more than N values',
    'a string is longer than N bytes',
    'invalid_relationship',
  ]) {
    assert.ok(kinds.includes(kind), `no refusal "${kind}" among ${JSON.stringify(kinds)}`);
  }
  assert.ok(seen.accepted > 100, `${seen.accepted} accepted`);
  assert.ok(seen.refused > 1000, `${seen.refused} refused`);
  assert.ok(seen.syntax > 100, `${seen.syntax} malformed`);
  process.stdout.write(`\n  refusals: ${seen.refused} fast (${JSON.stringify(Object.fromEntries(seen.byLimit))})\n`);
});

test.run();
