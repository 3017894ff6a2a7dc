import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isListError, positionAt } from '../../src/errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../../src/limits.ts';
import { parseFilter } from '../../src/syntax/index.ts';
import { locatorFor } from '../../src/syntax/locator.ts';
import { show } from '../helpers/ast.ts';

const limits = (over: Partial<Limits>): Limits => ({ ...DEFAULT_LIMITS, ...over });

// ---------------------------------------------------------------------------------------------------------------
// Accepted inputs
// ---------------------------------------------------------------------------------------------------------------

export const accepted: [input: string, ast: string, limits?: Partial<Limits>][] = [
  ['a eq 1', 'cmp(a eq 1)'],
  ['  a eq 1  ', 'cmp(a eq 1)'],
  ['a\teq\n1', 'cmp(a eq 1)'],
  ['a\req\r\n1', 'cmp(a eq 1)'],
  ['a   eq   1', 'cmp(a eq 1)'],
  ['a ne 1', 'cmp(a ne 1)'],
  ['a gt 1', 'cmp(a gt 1)'],
  ['a gte 1', 'cmp(a gte 1)'],
  ['a lt 1', 'cmp(a lt 1)'],
  ['a lte 1', 'cmp(a lte 1)'],
  ["a contains 'x'", "cmp(a contains 'x')"],
  ["a startswith 'x'", "cmp(a startswith 'x')"],
  ["a endswith 'x'", "cmp(a endswith 'x')"],
  ["a ieq 'x'", "cmp(a ieq 'x')"],
  ["a ine 'x'", "cmp(a ine 'x')"],
  ["a icontains 'x'", "cmp(a icontains 'x')"],
  ["a istartswith 'x'", "cmp(a istartswith 'x')"],
  ["a iendswith 'x'", "cmp(a iendswith 'x')"],
  ['ieqx eq 1', 'cmp(ieqx eq 1)'],
  ['Ine eq 1', 'cmp(Ine eq 1)'],
  ['inet eq 1', 'cmp(inet eq 1)'],
  ['i/icontains_ eq 1', 'cmp(i/icontains_ eq 1)'],
  ["name eq 'it''s'", "cmp(name eq 'it's')"],
  ["name eq ''", "cmp(name eq '')"],
  ["name eq ''''", "cmp(name eq ''')"],
  ["name eq 'a\\b'", "cmp(name eq 'a\\b')"],
  ["name eq 'héllo wörld €𝄞'", "cmp(name eq 'héllo wörld €𝄞')"],
  ["name eq 'a and b or not c'", "cmp(name eq 'a and b or not c')"],
  ['n eq 0', 'cmp(n eq 0)'],
  ['n eq -0', 'cmp(n eq -0)'],
  ['n eq 12.50', 'cmp(n eq 12.50)'],
  ['n eq 1e10', 'cmp(n eq 1e10)'],
  ['n eq 1E-3', 'cmp(n eq 1E-3)'],
  ['n eq -2.5e+7', 'cmp(n eq -2.5e+7)'],
  ['n eq 0.001', 'cmp(n eq 0.001)'],
  ['n eq 123456789012345678901234567890', 'cmp(n eq 123456789012345678901234567890)'],
  ['b eq true', 'cmp(b eq true)'],
  ['b eq false', 'cmp(b eq false)'],
  ['TRUE eq true', 'cmp(TRUE eq true)'],
  ['AND eq 1', 'cmp(AND eq 1)'],
  ['android eq 1', 'cmp(android eq 1)'],
  ['order eq 1', 'cmp(order eq 1)'],
  ['isbn eq 1', 'cmp(isbn eq 1)'],
  ['notes eq 1', 'cmp(notes eq 1)'],
  ['inx eq 1', 'cmp(inx eq 1)'],
  ['nullable is null', 'null(nullable)'],
  ['_a1 eq 1', 'cmp(_a1 eq 1)'],
  ['a/b/c eq 1', 'cmp(a/b/c eq 1)'],
  ['author/anyone eq 1', 'cmp(author/anyone eq 1)'],
  ['id in (1)', 'in(id [1])'],
  ['id in (1, 2,3)', 'in(id [1,2,3])'],
  ["id in ( 'a' ,\t'b' )", "in(id ['a','b'])"],
  ["id in (true, -1.5, 'x')", "in(id [true,-1.5,'x'])"],
  ['id not in (1)', 'nin(id [1])'],
  ['id  not \n in  (1)', 'nin(id [1])'],
  ['x is null', 'null(x)'],
  ['x is not null', 'notnull(x)'],
  ['x  is\tnot  null', 'notnull(x)'],
  ['not a eq 1', 'not(cmp(a eq 1))'],
  ['not not a eq 1', 'not(not(cmp(a eq 1)))'],
  ['not (a eq 1)', 'not(cmp(a eq 1))'],
  ['not a eq 1 and b eq 2', 'and(not(cmp(a eq 1)), cmp(b eq 2))'],
  ['a eq 1 and b eq 2 or c eq 3', 'or(and(cmp(a eq 1), cmp(b eq 2)), cmp(c eq 3))'],
  ['a eq 1 or b eq 2 and c eq 3', 'or(cmp(a eq 1), and(cmp(b eq 2), cmp(c eq 3)))'],
  ['a eq 1 and b eq 2 and c eq 3', 'and(and(cmp(a eq 1), cmp(b eq 2)), cmp(c eq 3))'],
  ['a eq 1 or b eq 2 or c eq 3', 'or(or(cmp(a eq 1), cmp(b eq 2)), cmp(c eq 3))'],
  ['(a eq 1 or b eq 2) and c eq 3', 'and(or(cmp(a eq 1), cmp(b eq 2)), cmp(c eq 3))'],
  ['((a eq 1))', 'cmp(a eq 1)'],
  ['( a eq 1 )', 'cmp(a eq 1)'],
  ["tags/any(t: t/name eq 'x')", "any(tags t: cmp(t/name eq 'x'))"],
  ['tags/all(t: t/n gt 1 and t/m lt 2)', 'all(tags t: and(cmp(t/n gt 1), cmp(t/m lt 2)))'],
  ['a/b/any(t:\tt/x is null )', 'any(a/b t: null(t/x))'],
  ['tags/any(t:\n(t/x eq 1))', 'any(tags t: cmp(t/x eq 1))'],
  [
    'orders/any(o: o/items/any(i: i/qty gt 1) and o/total gt 0)',
    'any(orders o: and(any(o/items i: cmp(i/qty gt 1)), cmp(o/total gt 0)))',
  ],
  ['a/any(x: x/b/any(y: x/c eq 1 and y/d eq 2))', 'any(a x: any(x/b y: and(cmp(x/c eq 1), cmp(y/d eq 2))))'],
  ['a/any(x: x/b eq 1) and x/c eq 2', 'and(any(a x: cmp(x/b eq 1)), cmp(x/c eq 2))'],
  ['a/any(x: x/b eq 1) and a/any(x: x/c eq 2)', 'and(any(a x: cmp(x/b eq 1)), any(a x: cmp(x/c eq 2)))'],
  ['not tags/any(t: not t/x is null)', 'not(any(tags t: not(null(t/x))))'],
  ['tags/any(t: t/id in (1, 2))', 'any(tags t: in(t/id [1,2]))'],
  ['a/any(t: t/x eq 1)', 'any(a t: cmp(t/x eq 1))'],
  // Aggregates: count(), sum/avg/min/max of a field, an inner filter in quantifier form last.
  ['reviews/count() gt 5', 'agg(reviews/count() gt 5)'],
  ['reviews/count(r: r/stars gte 4) gt 2', 'agg(reviews/count(r: cmp(r/stars gte 4)) gt 2)'],
  ["reviews/avg(stars, r: r/reviewer ne 'bot') gte 4", "agg(reviews/avg(stars, r: cmp(r/reviewer ne 'bot')) gte 4)"],
  ['reviews/avg(stars ,\tr: r/x eq 1 ) gte 4', 'agg(reviews/avg(stars, r: cmp(r/x eq 1)) gte 4)'],
  ['reviews/sum(stars) in (1, 2)', 'agg(reviews/sum(stars) in [1,2])'],
  ['reviews/min(stars) not in (1)', 'agg(reviews/min(stars) nin [1])'],
  ['reviews/max(stars) is not null', 'agg(reviews/max(stars) notnull)'],
  ['a/b/count() eq 0', 'agg(a/b/count() eq 0)'],
  ['not reviews/count() eq 0 or x eq 1', 'or(not(agg(reviews/count() eq 0)), cmp(x eq 1))'],
  ['authors/any(a: a/books/count() gt 3)', 'any(authors a: agg(a/books/count() gt 3))'],
  ['r/count(x: x/n/count(y: y/v eq 1) gt 1) eq 2', 'agg(r/count(x: agg(x/n/count(y: cmp(y/v eq 1)) gt 1)) eq 2)'],
  // `count`, `sum` … are names unless "(" follows a "/" before them.
  ['stats/count eq 1', 'cmp(stats/count eq 1)'],
  ['count eq 1 and avg/max gt 2', 'and(cmp(count eq 1), cmp(avg/max gt 2))'],
  ['a/count/any(c: c/sum eq 1)', 'any(a/count c: cmp(c/sum eq 1))'],
  // Limits exactly at their bound are accepted.
  ['a eq 12345', 'cmp(a eq 12345)', { maxFilterBytes: 10 }],
  ['a eq 1', 'cmp(a eq 1)', { maxTokens: 3 }],
  ['a eq 1 and b eq 2', 'and(cmp(a eq 1), cmp(b eq 2))', { maxNodes: 3 }],
  ['a eq 1 and b eq 2 and c eq 3', 'and(and(cmp(a eq 1), cmp(b eq 2)), cmp(c eq 3))', { maxExpressionDepth: 2 }],
  ['(a eq 1 and b eq 1) and c eq 1', 'and(and(cmp(a eq 1), cmp(b eq 1)), cmp(c eq 1))', { maxExpressionDepth: 2 }],
  ['a eq 1 and (b eq 1 and c eq 1)', 'and(cmp(a eq 1), and(cmp(b eq 1), cmp(c eq 1)))', { maxExpressionDepth: 2 }],
  ['not a eq 1', 'not(cmp(a eq 1))', { maxExpressionDepth: 2 }],
  ['a/any(x: x/b eq 1)', 'any(a x: cmp(x/b eq 1))', { maxExpressionDepth: 2, maxNodes: 2 }],
  ['a/b eq 1', 'cmp(a/b eq 1)', { maxPathDepth: 2 }],
  ['a/any(x: x/b eq 1)', 'any(a x: cmp(x/b eq 1))', { maxQuantifierDepth: 1, maxPathDepth: 2 }],
  ['x in (1, 2)', 'in(x [1,2])', { maxInValues: 2 }],
  ["x eq 'abc'", "cmp(x eq 'abc')", { maxLiteralBytes: 3 }],
  ["x eq 'a''b'", "cmp(x eq 'a'b')", { maxLiteralBytes: 3 }],
  ["x eq 'éa'", "cmp(x eq 'éa')", { maxLiteralBytes: 3 }],
];

for (const [input, expected, over] of accepted) {
  test(`accepts ${JSON.stringify(input)}${over ? ` with ${JSON.stringify(over)}` : ''}`, () => {
    assert.is(show(parseFilter(input, over ? limits(over) : undefined)), expected);
  });
}

test('a chain of 30 `and` terms is depth 2; 128 nested parentheses are accepted', () => {
  const chain = Array.from({ length: 30 }, (_, i) => `f${i} eq ${i}`).join(' and ');
  assert.is(parseFilter(chain, limits({ maxExpressionDepth: 2 })).kind, 'and');
  const nested = `${'('.repeat(128)}a eq 1${')'.repeat(128)}`;
  assert.is(show(parseFilter(nested)), 'cmp(a eq 1)');
  assert.is(show(parseFilter(`${'not '.repeat(15)}a eq 1`)).split('not(').length - 1, 15);
});

// ---------------------------------------------------------------------------------------------------------------
// Spans
// ---------------------------------------------------------------------------------------------------------------

test('spans carry UTF-8 byte offsets, lines and byte columns', () => {
  const text = "name eq 'héllo'\nand price gt 10";
  const root = parseFilter(text);
  assert.is(root.kind, 'and');
  if (root.kind !== 'and' || root.left.kind !== 'comparison' || root.right.kind !== 'comparison') throw new Error();
  assert.equal(root.span, { offset: 0, line: 1, column: 1, end: 32 });
  assert.equal(root.left.span, { offset: 0, line: 1, column: 1, end: 16 });
  assert.equal(root.left.operatorSpan, { offset: 5, line: 1, column: 6, end: 7 });
  assert.equal(root.left.value.span, { offset: 8, line: 1, column: 9, end: 16 });
  assert.equal(root.right.span, { offset: 21, line: 2, column: 5, end: 32 });
  assert.equal(root.right.path.span, { offset: 21, line: 2, column: 5, end: 26 });
  assert.equal(root.right.operatorSpan, { offset: 27, line: 2, column: 11, end: 29 });
  assert.equal(root.right.value.span, { offset: 30, line: 2, column: 14, end: 32 });
});

test('spans of quantifiers, variables, membership, null checks and not', () => {
  const q = parseFilter("x eq '€'\n or tags/any(t: not t/id not in (1) and t/n is not null)");
  if (q.kind !== 'or' || q.right.kind !== 'quantifier') throw new Error(show(q));
  const quant = q.right;
  // "x eq '€'" is 10 bytes, LF at 10, " or " → tags starts at byte 15, line 2, column 5.
  assert.equal(quant.span, { offset: 15, line: 2, column: 5, end: 67 });
  assert.equal(quant.path.span, { offset: 15, line: 2, column: 5, end: 19 });
  assert.equal(quant.variable, { name: 't', span: { offset: 24, line: 2, column: 14, end: 25 } });
  const and = quant.predicate;
  if (and.kind !== 'and' || and.left.kind !== 'not' || and.right.kind !== 'nullCheck') throw new Error(show(and));
  assert.equal(and.left.span, { offset: 27, line: 2, column: 17, end: 46 });
  const member = and.left.operand;
  if (member.kind !== 'membership') throw new Error(show(member));
  assert.equal(member.operatorSpan, { offset: 36, line: 2, column: 26, end: 42 });
  assert.equal(member.values[0]?.span, { offset: 44, line: 2, column: 34, end: 45 });
  assert.equal(and.right.operatorSpan, { offset: 55, line: 2, column: 45, end: 66 });
  assert.equal(and.right.span, { offset: 51, line: 2, column: 41, end: 66 });
});

test('the locator agrees with positionAt on every character boundary', () => {
  for (const text of ["a eq 'é€𝄞'\nb\r\nc", 'plain ascii', '\n\n\nx', 'ü\nü\nü', '\ud800 lone']) {
    const loc = locatorFor(text);
    for (let i = 0; i <= text.length; i++) {
      const c = text.charCodeAt(i - 1);
      if (c >= 0xd800 && c <= 0xdbff && i < text.length) continue; // inside a surrogate pair
      assert.equal(loc.position(i), positionAt(text, i), `${JSON.stringify(text)} @ ${i}`);
    }
  }
});

// ---------------------------------------------------------------------------------------------------------------
// Rejected inputs: code and byte offset of the first byte that stops fitting the grammar
// ---------------------------------------------------------------------------------------------------------------

export type Code = 'invalid_syntax' | 'invalid_token' | 'invalid_relationship' | 'limit_exceeded';
export const rejected: [input: string, code: Code, offset: number, limits?: Partial<Limits>][] = [
  // Whitespace rules
  ['age gt(18)', 'invalid_syntax', 6],
  ['a eq 1and b eq 2', 'invalid_syntax', 6],
  ['id in(1)', 'invalid_syntax', 5],
  ['not(x eq 1)', 'invalid_syntax', 3],
  ['a / b eq 1', 'invalid_syntax', 2],
  ['a /b eq 1', 'invalid_syntax', 2],
  ['a/ b eq 1', 'invalid_syntax', 1],
  ['a/\t\tb eq 1', 'invalid_syntax', 1],
  ['a/b/ c eq 1', 'invalid_syntax', 3],
  ['a/b /c eq 1', 'invalid_syntax', 4],
  ["company/ name eq 'Acme'", 'invalid_syntax', 7],
  ["company /name eq 'Acme'", 'invalid_syntax', 8],
  ['t/ any(o: o/x eq 1)', 'invalid_syntax', 1],
  ['tags/any(t: t/ x eq 1)', 'invalid_syntax', 13],
  ['tags/any(t: t /x eq 1)', 'invalid_syntax', 14],
  ['x eq 1 and y/ z eq 2', 'invalid_syntax', 12],
  ['a eq1', 'invalid_syntax', 4],
  ['aeq 1', 'invalid_syntax', 4],
  ['x is not(null)', 'invalid_syntax', 8],
  ['x not in(1)', 'invalid_syntax', 8],
  ['x notin (1)', 'invalid_syntax', 5],
  ['t/any(o:o/x eq 1)', 'invalid_syntax', 8],
  // Aggregates: no whitespace inside `()` or before `(`; a field for sum/avg/min/max, none for count.
  ['r/count( ) gt 1', 'invalid_syntax', 8],
  ['r/count () gt 1', 'invalid_syntax', 8],
  ['r/avg( x) gt 1', 'invalid_syntax', 6],
  ['r/avg(x ) gt 1', 'invalid_syntax', 8],
  ['r/avg() gt 1', 'invalid_syntax', 6],
  ['r/count(x) gt 1', 'invalid_syntax', 9],
  ['r/count() gt1', 'invalid_syntax', 12],
  ['r/count()gt 1', 'invalid_syntax', 9],
  ['r/count(v:v/x eq 1) gt 1', 'invalid_syntax', 10],
  ['r/avg(x, v:v/x eq 1) gt 1', 'invalid_syntax', 11],
  ['r/count(v: w/x eq 1) gt 1', 'invalid_relationship', 11],
  ['r/count(v: v eq 1) gt 1', 'invalid_relationship', 11],
  ['a/any(v: r/count() gt 1)', 'invalid_relationship', 9],
  ['a/any(v: v/r/count(v: v/x eq 1) gt 1)', 'invalid_relationship', 19],
  ['r/count(v: v/x eq 1) gt 1', 'limit_exceeded', 8, { maxQuantifierDepth: 0 }],
  ['t/any( o: o/x eq 1)', 'invalid_syntax', 6],
  ['t/any(o : o/x eq 1)', 'invalid_syntax', 7],
  ['t/any (o: o/x eq 1)', 'invalid_syntax', 5],
  ['t /any(o: o/x eq 1)', 'invalid_syntax', 2],
  ['(a eq 1)and b eq 2', 'invalid_syntax', 8],
  // Lists
  ['x in (1,)', 'invalid_syntax', 8],
  ['x in ()', 'invalid_syntax', 6],
  ['x in (1 2)', 'invalid_syntax', 8],
  ['x in (1,,2)', 'invalid_syntax', 8],
  ['x in 1', 'invalid_syntax', 5],
  ['x in (1', 'invalid_syntax', 7],
  ['x in (a)', 'invalid_syntax', 6],
  // Keywords: exact lower case, reserved
  ['x eq null', 'invalid_syntax', 5],
  ['x in (null)', 'invalid_syntax', 6],
  ['x eq tru', 'invalid_syntax', 5],
  ['x eq TRUE', 'invalid_syntax', 5],
  ['x EQ 1', 'invalid_syntax', 2],
  ['x gtex 1', 'invalid_syntax', 5],
  ['a eq 1 an b eq 2', 'invalid_syntax', 7],
  ['a eq 1 AND b eq 2', 'invalid_syntax', 7],
  ['a eq 1 andx b eq 2', 'invalid_syntax', 10],
  ['and eq 1', 'invalid_syntax', 0],
  ['true eq 1', 'invalid_syntax', 0],
  ['x eq 1 and in eq 2', 'invalid_syntax', 11],
  ['a/and eq 1', 'invalid_syntax', 2],
  ['a/null is null', 'invalid_syntax', 2],
  ['x is nul', 'invalid_syntax', 5],
  ['x is not', 'invalid_syntax', 8],
  ['x not null', 'invalid_syntax', 6],
  ['asc eq 1', 'invalid_syntax', 0],
  ['ieq eq 1', 'invalid_syntax', 0],
  ['ine eq 1', 'invalid_syntax', 0],
  ['a/icontains eq 1', 'invalid_syntax', 2],
  ['x IEQ 1', 'invalid_syntax', 2],
  ['x ieqs 1', 'invalid_syntax', 5],
  ['x ine', 'invalid_syntax', 5],
  ['x iendswith 1 and istartswith eq 2', 'invalid_syntax', 18],
  // Structure
  ['', 'invalid_syntax', 0],
  ['   ', 'invalid_syntax', 3],
  ['x', 'invalid_syntax', 1],
  ['x eq', 'invalid_syntax', 4],
  ['x eq ', 'invalid_syntax', 5],
  ['x eq 1 and', 'invalid_syntax', 10],
  ['x eq 1 and ', 'invalid_syntax', 11],
  ['a eq 1 and or b eq 1', 'invalid_syntax', 11],
  ['x eq 1 x eq 2', 'invalid_syntax', 7],
  ["x eq 'a' 'b'", 'invalid_syntax', 9],
  ['(x eq 1', 'invalid_syntax', 7],
  ['x eq 1)', 'invalid_syntax', 6],
  ['x eq 1 and (y eq 2', 'invalid_syntax', 18],
  ['()', 'invalid_syntax', 1],
  ['not', 'invalid_syntax', 3],
  ['not x', 'invalid_syntax', 5],
  ['x/ eq 1', 'invalid_syntax', 1],
  ['x eq 1 -2', 'invalid_syntax', 7],
  ["x eq 1 'oops", 'invalid_syntax', 7],
  ['x eq 1x', 'invalid_syntax', 6],
  ['x eq 0x10', 'invalid_syntax', 6],
  ['tags/any(t: t/x eq 1', 'invalid_syntax', 20],
  ['tags/any(1: x eq 1)', 'invalid_syntax', 9],
  ['tags/any(t t/x eq 1)', 'invalid_syntax', 10],
  ['tags/any(t: )', 'invalid_syntax', 12],
  ['tags/nope(t: t/x eq 1)', 'invalid_syntax', 9],
  ['tags/any(t: t/x eq 1) eq 1', 'invalid_syntax', 22],
  ['tags/any(any: any/x eq 1)', 'invalid_syntax', 9],
  // Tokens: a byte that starts no token, bad numbers, bad strings
  ['x = 1', 'invalid_token', 2],
  ['x eq "a"', 'invalid_token', 5],
  ['x eq 1;', 'invalid_token', 6],
  ['x@y eq 1', 'invalid_token', 1],
  ['é eq 1', 'invalid_token', 0],
  ['x eq é', 'invalid_token', 5],
  ['nämé eq 1', 'invalid_token', 1],
  ["x eq 'é' and ü eq 1", 'invalid_token', 14],
  ['x eq\u00a01', 'invalid_token', 4],
  ['x eq\f1', 'invalid_token', 4],
  ['x eq 1\u0000', 'invalid_token', 6],
  ['x\u0001eq 1', 'invalid_token', 1],
  ['x eq 01', 'invalid_token', 6],
  ['x eq 00', 'invalid_token', 6],
  ['x eq -01', 'invalid_token', 7],
  ['x eq 1.', 'invalid_token', 7],
  ['x eq 1.e5', 'invalid_token', 7],
  ['x eq 1e', 'invalid_token', 7],
  ['x eq 1e+', 'invalid_token', 8],
  ['x eq 1else', 'invalid_token', 7],
  ['x eq .5', 'invalid_token', 5],
  ['x eq 1.5.2', 'invalid_token', 8],
  ['x eq +1', 'invalid_token', 5],
  ['x eq - 1', 'invalid_token', 6],
  ['x in (1, -)', 'invalid_token', 10],
  ["x eq 'abc", 'invalid_token', 9],
  ["x eq 'a''", 'invalid_token', 9],
  ["x eq 'a' and y eq 'b", 'invalid_token', 20],
  ["x eq 'é", 'invalid_token', 8],
  ["x eq 'a\nb'", 'invalid_token', 7],
  ["x eq 'a\tb'", 'invalid_token', 7],
  ["x eq 'a\rb'", 'invalid_token', 7],
  ["x eq 'a\u0000b'", 'invalid_token', 7],
  ["x eq 'a\u001fb'", 'invalid_token', 7],
  ["x eq 'a\u007fb'", 'invalid_token', 7],
  // Scopes
  ['tags/any(t: name eq 1)', 'invalid_relationship', 12],
  ['tags/any(t: t eq 1)', 'invalid_relationship', 12],
  ['tags/any(t: u/name eq 1)', 'invalid_relationship', 12],
  ['tags/any(t: id in (1))', 'invalid_relationship', 12],
  ['tags/any(t: x is null)', 'invalid_relationship', 12],
  ['tags/any(t: t/a eq 1 and b eq 2)', 'invalid_relationship', 25],
  ['a/any(x: x/b/any(x: x/c eq 1))', 'invalid_relationship', 17],
  ['a/any(x: x/b/any(y: y/c/any(x: x/d eq 1)))', 'invalid_relationship', 28],
  ['a/any(x: x/b/any(y: z/c eq 1))', 'invalid_relationship', 20],
  ['a/any(x: b/any(y: y/c eq 1))', 'invalid_relationship', 9],
  ['a/any(x: x/any(y: y/c eq 1))', 'invalid_relationship', 9],
  ['a/any(x: x/b/any(y: x eq 1))', 'invalid_relationship', 20],
  // Limits, just over their bound
  ['a eq 123456', 'limit_exceeded', 10, { maxFilterBytes: 10 }],
  ["x eq 'éé'", 'limit_exceeded', 8, { maxFilterBytes: 9 }],
  ["a eq 1\nand b eq 'éé'", 'limit_exceeded', 17, { maxFilterBytes: 18 }],
  ["a eq 1\nand\nb eq 'éé'", 'limit_exceeded', 17, { maxFilterBytes: 18 }],
  ['a eq 1 and b eq 2', 'limit_exceeded', 7, { maxTokens: 3 }],
  ['a/b eq 1', 'limit_exceeded', 7, { maxTokens: 4 }],
  ['a eq 1 and (b eq 2', 'limit_exceeded', 11, { maxTokens: 4 }],
  [`${'('.repeat(129)}a eq 1${')'.repeat(129)}`, 'limit_exceeded', 128],
  [`(a eq 1) and ${'('.repeat(129)}a eq 1${')'.repeat(129)}`, 'limit_exceeded', 141],
  ['a eq 1 and b eq 2 and c eq 3', 'limit_exceeded', 18, { maxNodes: 3 }],
  ['not not a eq 1', 'limit_exceeded', 8, { maxNodes: 2 }],
  ['a/any(x: x/b eq 1)', 'limit_exceeded', 9, { maxNodes: 1 }],
  ['x in (1) or x is null', 'limit_exceeded', 9, { maxNodes: 1 }],
  ['not not a eq 1', 'limit_exceeded', 8, { maxExpressionDepth: 2 }],
  ['not not not a eq 1', 'limit_exceeded', 8, { maxExpressionDepth: 2 }],
  ['a eq 1 and (b eq 1 or c eq 1)', 'limit_exceeded', 12, { maxExpressionDepth: 2 }],
  ['a/any(x: x/b eq 1 and x/c eq 1)', 'limit_exceeded', 9, { maxExpressionDepth: 2 }],
  [`${'not '.repeat(16)}a eq 1`, 'limit_exceeded', 64],
  [`${'not '.repeat(3000)}a eq 1`, 'limit_exceeded', 64, { maxTokens: 10_000, maxFilterBytes: 20_000 }],
  ['a/b/c eq 1', 'limit_exceeded', 4, { maxPathDepth: 2 }],
  ['a/b/c/any(x: x/y eq 1)', 'limit_exceeded', 4, { maxPathDepth: 2 }],
  ['a/any(x: x/b/c eq 1)', 'limit_exceeded', 13, { maxPathDepth: 2 }],
  ['a/any(x: x/b/any(y: y/c eq 1))', 'limit_exceeded', 9, { maxQuantifierDepth: 1 }],
  ['x in (1, 2, 3)', 'limit_exceeded', 12, { maxInValues: 2 }],
  ["x eq 'abcd'", 'limit_exceeded', 5, { maxLiteralBytes: 3 }],
  ["x eq 'éé'", 'limit_exceeded', 5, { maxLiteralBytes: 3 }],
  ["x in ('a', 'b''''')", 'limit_exceeded', 11, { maxLiteralBytes: 2 }],
];

for (const [input, code, offset, over] of rejected) {
  const shown = input.length > 60 ? `${JSON.stringify(input.slice(0, 40))}… (${input.length} chars)` : input;
  test(`rejects ${JSON.stringify(shown)} → ${code} at ${offset}${over ? ` with ${JSON.stringify(over)}` : ''}`, () => {
    try {
      const ast = parseFilter(input, over ? limits(over) : undefined);
      assert.unreachable(`parsed as ${show(ast)}`);
    } catch (error) {
      if (!isListError(error)) throw error;
      assert.equal(
        { code: error.code, parameter: error.parameter, offset: error.position?.offset },
        { code, parameter: 'filter', offset },
        error.message,
      );
      assert.equal(error.position, positionAt(input, indexOfByte(input, offset)));
      assert.ok(error.message.length < 80, error.message);
    }
  });
}

/** The UTF-16 index of a UTF-8 byte offset (which always starts a character here). */
function indexOfByte(text: string, offset: number): number {
  for (let i = 0; i <= text.length; i++) if (positionAt(text, i).offset >= offset) return i;
  return text.length;
}

// ---------------------------------------------------------------------------------------------------------------
// Messages and size
// ---------------------------------------------------------------------------------------------------------------

export const messages: [input: string, message: string][] = [
  ['age gt(18)', "expected whitespace before '('"],
  ['a / b eq 1', "whitespace is not allowed before '/'"],
  ['a/ b eq 1', "whitespace is not allowed after '/'"],
  ['t/ any(o: o/x eq 1)', "whitespace is not allowed after '/'"],
  ['t /any(o: o/x eq 1)', "whitespace is not allowed before '/'"],
  ['x eq null', "null is not a literal: write 'is null' or 'is not null'"],
  ['x eq 1 and', 'unexpected end of input'],
  ['and eq 1', "unexpected keyword 'and'"],
  ["x eq 'abc", 'unterminated string starting at byte 5'],
  ["x eq 'a\nb'", 'control character U+000A is not allowed in a string'],
  ['x eq 01', 'a number cannot have a leading zero'],
  ['x eq @', "unexpected character '@'"],
  [`x eq 1 ${'y'.repeat(500)}`, "unexpected 'yyyyyyyyyyyyyyyyyyyyyyyy…'"],
];
for (const [input, message] of messages) {
  test(`message for ${JSON.stringify(input.slice(0, 30))}`, () => {
    assert.throws(
      () => parseFilter(input),
      (e: unknown) => isListError(e) && e.message === message,
    );
  });
}

test('a 1 MiB filter is rejected at the first byte past maxFilterBytes', () => {
  const huge = `a eq '${'x'.repeat(1024 * 1024)}'`;
  assert.throws(
    () => parseFilter(huge),
    (e: unknown) =>
      isListError(e) && e.code === 'limit_exceeded' && e.position?.offset === DEFAULT_LIMITS.maxFilterBytes,
  );
});

test.run();
