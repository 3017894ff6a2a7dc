/**
 * parseFields: flat names, nested selections and aliases, their spans, and every refusal at its byte position.
 * The grammar itself is checked against grammar.ohm in fields-grammar.test.ts. No database: nothing varies by dialect.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isListError } from '../../src/errors.ts';
import { DEFAULT_LIMITS } from '../../src/limits.ts';
import { parseFields } from '../../src/syntax/fields.ts';
import { accepted, printFields, refused } from './fields-cases.ts';

for (const [input, printed] of accepted) {
  test(`fields accepts ${JSON.stringify(input)}`, () => assert.is(printFields(parseFields(input)), printed));
}

test('fields spans: names, aliases and nested names, in bytes, line and column', () => {
  const [id, best] = parseFields('id,\n best:reviews(stars)');
  assert.equal(id, { name: 'id', span: { offset: 0, line: 1, column: 1, end: 2 } });
  assert.equal(best?.alias, { name: 'best', span: { offset: 5, line: 2, column: 2, end: 9 } });
  assert.is(best?.name, 'reviews');
  assert.equal(best?.span, { offset: 10, line: 2, column: 7, end: 17 });
  assert.equal(best?.children, [{ name: 'stars', span: { offset: 18, line: 2, column: 15, end: 23 } }]);
});

test('fields: a flat selection has neither alias nor children keys', () => {
  for (const item of parseFields('id,title')) assert.equal(Object.keys(item), ['name', 'span']);
  const [author] = parseFields('author(name)');
  assert.equal(Object.keys(author ?? {}), ['name', 'span', 'children']);
});

for (const { input, offset, code = 'invalid_parameter', message, limits } of refused) {
  test(`fields refuses ${JSON.stringify(input)} at ${offset}`, () => {
    try {
      const items = parseFields(input, { ...DEFAULT_LIMITS, ...limits });
      assert.unreachable(`accepted as ${printFields(items)}`);
    } catch (error) {
      if (!isListError(error)) throw error;
      assert.equal([error.code, error.parameter, error.position?.offset], [code, 'fields', offset], error.message);
      if (message) assert.match(error.message, message);
      assert.ok(error.message.length <= 240);
    }
  });
}

test('fields: nesting up to maxSelectionDepth is accepted, with the single-argument call too', () => {
  assert.is(printFields(parseFields('a(b(c(d)))')), 'a(b(c(d)))');
  const five = 'a(b(c(d(e(f)))))';
  assert.is(printFields(parseFields(five, { ...DEFAULT_LIMITS, maxSelectionDepth: 5 })), five);
  assert.throws(() => parseFields(five, { ...DEFAULT_LIMITS, maxSelectionDepth: 4 }));
});

test('fields: a deep or long value is refused without recursion, in one pass', () => {
  const deep = `${'a('.repeat(100_000)}b${')'.repeat(100_000)}`;
  const loose = { ...DEFAULT_LIMITS, maxSelectionDepth: 1_000_000 };
  assert.is(parseFields(deep, loose).length, 1);
  const started = performance.now();
  assert.throws(
    () => parseFields(deep),
    (e: unknown) => isListError(e) && e.position?.offset === 6,
  );
  const flat = Array.from({ length: 5000 }, (_, i) => `f${i}`).join(',');
  assert.is(parseFields(flat).length, 5000);
  assert.ok(performance.now() - started < 500);
});

test('fields: an error position carries its line and column (LF starts a line)', () => {
  try {
    parseFields('a(b,\n  c d)');
    assert.unreachable();
  } catch (error) {
    if (!isListError(error)) throw error;
    assert.equal(error.position, { offset: 9, line: 2, column: 5 });
  }
});

test.run();
