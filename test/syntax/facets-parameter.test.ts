/**
 * The `facets` parameter: names, `:N`, whitespace rules, each name once, maxFacets and maxFacetValues, errors located
 * at the byte; `<path>.facets` refused; and a fuzz that every input either parses to terms that write back to an
 * equivalent value, or fails with a ListError on `facets` positioned inside the value.
 */
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isListError } from '../../src/errors.ts';
import { DEFAULT_LIMITS } from '../../src/limits.ts';
import type { FacetTerm } from '../../src/syntax/ast.ts';
import { parseFacets } from '../../src/syntax/facets.ts';
import { parseHTTP } from '../../src/syntax/index.ts';

const text = (terms: readonly FacetTerm[]) =>
  terms.map((t) => (t.limit === undefined ? t.name.name : `${t.name.name}:${t.limit}`)).join(',');

const ACCEPTED: readonly (readonly [string, string])[] = [
  ['year', 'year'],
  ['author,year:5,tags', 'author,year:5,tags'],
  [' author , year:50 ', 'author,year:50'],
  ['a\t,\nb', 'a,b'],
  ['_x1:1', '_x1:1'],
  // Field names are not reserved here: a field named like a keyword is a facet name.
  ['in,desc', 'in,desc'],
];
for (const [input, expected] of ACCEPTED)
  test(`accepted: ${JSON.stringify(input)}`, () => assert.is(text(parseFacets(input)), expected));

test('spans locate each name', () => {
  const [first, second] = parseFacets('ab, cd:3');
  assert.equal([first!.name.span.offset, first!.span.end], [0, 2]);
  assert.equal([second!.name.span.offset, second!.span.end], [4, 8]);
});

const REFUSED: readonly (readonly [string, string, number, RegExp])[] = [
  [',a', 'invalid_parameter', 0, /expected a facet name/],
  ['a,', 'invalid_parameter', 2, /expected a facet name, found end of input/],
  ['a,,b', 'invalid_parameter', 2, /expected a facet name/],
  ['a b', 'invalid_parameter', 2, /expected ',' or the end of facets/],
  ['a,a', 'invalid_parameter', 2, /'a' appears twice/],
  ['a/b', 'invalid_parameter', 1, /not a path/],
  ['a :3', 'invalid_parameter', 2, /whitespace is not allowed before ':'/],
  ['a: 3', 'invalid_parameter', 2, /whitespace is not allowed after ':'/],
  ['a:', 'invalid_parameter', 2, /expected a number/],
  ['a:x', 'invalid_parameter', 2, /expected a number/],
  ['a:0', 'invalid_parameter', 2, /positive number without leading zeros/],
  ['a:05', 'invalid_parameter', 2, /positive number without leading zeros/],
  ['a:-1', 'invalid_parameter', 2, /expected a number/],
  ['a:51', 'limit_exceeded', 2, /at most 50 values \(maxFacetValues\)/],
  ['a:99999999999999999999', 'limit_exceeded', 2, /maxFacetValues/],
  ['a,b,c,d,e,f', 'limit_exceeded', 10, /more than 5 facets \(maxFacets\)/],
  ['é', 'invalid_parameter', 0, /expected a facet name/],
];
for (const [input, code, offset, message] of REFUSED)
  test(`refused: ${JSON.stringify(input)}`, () => {
    try {
      parseFacets(input);
      assert.unreachable('parsed');
    } catch (err) {
      if (!isListError(err)) throw err;
      assert.is(err.code, code);
      assert.is(err.parameter, 'facets');
      assert.is(err.position?.offset, offset);
      assert.match(err.message, message);
    }
  });

test('the bounds are limits', () => {
  assert.is(parseFacets('a:80', { ...DEFAULT_LIMITS, maxFacetValues: 80 })[0]!.limit, 80);
  assert.throws(() => parseFacets('a,b', { ...DEFAULT_LIMITS, maxFacets: 1 }), /maxFacets/);
});

test('parseHTTP reads facets once, and refuses it on a nested list', () => {
  assert.is(text(parseHTTP('facets=author%2Cyear%3A5').facets ?? []), 'author,year:5');
  assert.throws(() => parseHTTP('facets=a&facets=b'), /facets/);
  assert.throws(() => parseHTTP('facets='), /facets/);
  try {
    parseHTTP('reviews.facets=stars');
    assert.unreachable('parsed');
  } catch (err) {
    if (!isListError(err)) throw err;
    assert.is(err.parameter, 'reviews.facets');
    assert.match(err.message, /top-level list only/);
  }
});

const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/);
const term = fc.tuple(name, fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }));
const space = fc.constantFrom('', ' ', '\t', '  ');

test('fuzz: written terms parse back to themselves', () => {
  fc.assert(
    fc.property(fc.uniqueArray(term, { minLength: 1, maxLength: 5, selector: ([n]) => n }), space, (terms, sp) => {
      const written = terms.map(([n, l]) => (l === undefined ? n : `${n}:${l}`));
      assert.is(text(parseFacets(sp + written.join(`${sp},${sp}`) + sp)), written.join(','));
    }),
    { seed: 25, numRuns: 2000 },
  );
});

test('fuzz: any text parses or fails with a ListError on facets inside the value', () => {
  const alphabet = fc.constantFrom('a', 'b', '_', '1', '0', ':', ',', ' ', '/', '-', 'é', '\n');
  fc.assert(
    fc.property(fc.array(alphabet, { maxLength: 24 }), (chars) => {
      const input = chars.join('');
      try {
        parseFacets(input);
      } catch (err) {
        if (!isListError(err)) throw err;
        assert.is(err.parameter, 'facets');
        const bytes = Buffer.byteLength(input);
        assert.ok(err.position !== undefined && err.position.offset <= bytes, input);
      }
    }),
    { seed: 25, numRuns: 5000 },
  );
});
