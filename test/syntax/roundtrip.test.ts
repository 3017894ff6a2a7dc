import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isListError, positionAt } from '../../src/errors.ts';
import { parseFilter } from '../../src/syntax/index.ts';
import { show } from '../helpers/ast.ts';

/** A generated filter: its text, and the AST summary the parser must give back. */
export interface Gen {
  readonly text: string;
  readonly ast: string;
  /** 0 = or, 1 = and, 2 = not / leaf: decides where parentheses are needed. */
  readonly level: number;
}

const name = fc.constantFrom('a', 'price', 'TRUE', 'android', 'order', 'x_1', 'notes');
const ws = fc.constantFrom(' ', '  ', '\t', '\n', ' \r\n');
const literal = fc.oneof(
  fc.string({ maxLength: 6 }).map((s) => {
    const clean = s.replace(/[\x00-\x1f\x7f]/g, '');
    return { text: `'${clean.replaceAll("'", "''")}'`, ast: `'${clean}'` };
  }),
  fc.constantFrom('0', '-0', '12', '3.50', '1e6', '-2.5E-3').map((n) => ({ text: n, ast: n })),
  fc.constantFrom('true', 'false').map((b) => ({ text: b, ast: b })),
);

function path(scopes: readonly string[]): fc.Arbitrary<string> {
  const tail = fc.array(name, { minLength: scopes.length > 0 ? 1 : 0, maxLength: 2 });
  const head = scopes.length > 0 ? fc.constantFrom(...scopes) : name;
  return fc.tuple(head, tail).map(([h, t]) => [h, ...t].join('/'));
}

function leaf(scopes: readonly string[]): fc.Arbitrary<Gen> {
  const op = fc.constantFrom(
    'eq',
    'ne',
    'gt',
    'gte',
    'lt',
    'lte',
    'contains',
    'startswith',
    'endswith',
    'ieq',
    'ine',
    'icontains',
    'istartswith',
    'iendswith',
  );
  return fc.oneof(
    fc.tuple(path(scopes), ws, op, ws, literal).map(([p, s1, o, s2, l]) => ({
      text: `${p}${s1}${o}${s2}${l.text}`,
      ast: `cmp(${p} ${o} ${l.ast})`,
      level: 2,
    })),
    fc.tuple(path(scopes), fc.boolean(), fc.array(literal, { minLength: 1, maxLength: 3 })).map(([p, neg, ls]) => ({
      text: `${p} ${neg ? 'not in' : 'in'} (${ls.map((l) => l.text).join(', ')})`,
      ast: `${neg ? 'nin' : 'in'}(${p} [${ls.map((l) => l.ast).join(',')}])`,
      level: 2,
    })),
    fc.tuple(path(scopes), fc.boolean()).map(([p, neg]) => ({
      text: `${p} is ${neg ? 'not ' : ''}null`,
      ast: `${neg ? 'notnull' : 'null'}(${p})`,
      level: 2,
    })),
  );
}

const VARIABLES = ['v', 'w', 'q'];
const wrap = (g: Gen, min: number): string => (g.level < min ? `(${g.text})` : g.text);

export function expr(depth: number, scopes: readonly string[]): fc.Arbitrary<Gen> {
  if (depth === 0) return leaf(scopes);
  const sub = expr(depth - 1, scopes);
  const free = VARIABLES.filter((v) => !scopes.includes(v));
  return fc.oneof(
    { arbitrary: leaf(scopes), weight: 3 },
    sub.map((g) => ({ text: `not ${wrap(g, 2)}`, ast: `not(${g.ast})`, level: 2 })),
    ...(['and', 'or'] as const).map((op) => {
      const level = op === 'or' ? 0 : 1;
      return fc.tuple(sub, sub).map(([l, r]) => ({
        // Left-associative: the left operand may be the same operator unparenthesized, the right may not.
        text: `${wrap(l, level)} ${op} ${wrap(r, level + 1)}`,
        ast: `${op}(${l.ast}, ${r.ast})`,
        level,
      }));
    }),
    ...(free.length === 0
      ? []
      : [
          fc.tuple(path(scopes), fc.constantFrom('any', 'all'), fc.constantFrom(...free)).chain(([p, q, v]) =>
            expr(depth - 1, [...scopes, v]).map((body) => ({
              text: `${p}/${q}(${v}: ${body.text})`,
              ast: `${q}(${p} ${v}: ${body.ast})`,
              level: 2,
            })),
          ),
        ]),
  );
}

test('printed random filters parse back to the same tree', () => {
  fc.assert(
    fc.property(expr(3, []), (g) => {
      assert.is(show(parseFilter(g.text)), g.ast, g.text);
    }),
    { numRuns: 300 },
  );
});

const CODES = new Set(['invalid_token', 'invalid_syntax', 'invalid_relationship', 'limit_exceeded']);
export const piece = fc.constantFrom(
  'a',
  'b/c',
  ' ',
  'eq',
  'and',
  'or',
  'not',
  'in',
  'is',
  'null',
  '(',
  ')',
  ',',
  '/',
  ':',
  'any',
  "'x'",
  "'",
  '1',
  '-',
  '.',
  'e',
  '0',
  'é',
  '\n',
);

test('any input either parses or fails with a filter error located inside it', () => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 14 }), (pieces) => {
      const text = pieces.join('');
      try {
        parseFilter(text);
      } catch (error) {
        if (!isListError(error)) throw error;
        assert.ok(CODES.has(error.code), error.code);
        assert.is(error.parameter, 'filter');
        const offset = error.position?.offset ?? -1;
        assert.ok(offset >= 0 && offset <= positionAt(text, text.length).offset, `${offset} in ${text}`);
      }
    }),
    { numRuns: 1000 },
  );
});

test.run();
