/**
 * The path-named parameters of nested lists (`reviews.filter`, `best.limit`, `reviews.comments.sort`) in parseHTTP:
 * collected by dotted path, each value read with its top-level grammar and limits, each error naming the full
 * parameter with a position inside its value. Which paths a request may name is bind's business, not tested here.
 * No database: nothing varies by dialect.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rejectUnknownParameters } from '../../src/engine/request.ts';
import { isListError } from '../../src/errors.ts';
import type { Limits } from '../../src/limits.ts';
import { parseFilter, parseHTTP, parseSort, type QueryValues } from '../../src/syntax/index.ts';
import { isListParameterName, nestedName } from '../../src/syntax/parameters.ts';
import { fromQueryString } from '../../src/syntax/query-string.ts';

type Input = QueryValues | string;

test('nested parameters are collected by dotted path, each value parsed as at the top level', () => {
  const q = parseHTTP(
    'fields=id,reviews(stars),best:reviews(body)&reviews.filter=stars%20gte%204&reviews.sort=-stars' +
      '&reviews.limit=3&reviews.count=true&best.limit=1&best.offset=2&reviews.comments.cursor=abc_-9&limit=5',
  );
  assert.is(q.limit, 5);
  assert.equal(Object.keys(q.nested ?? {}), ['reviews', 'best', 'reviews.comments']);
  const reviews = q.nested?.reviews;
  assert.equal(reviews?.filter, parseFilter('stars gte 4'));
  assert.equal(reviews?.sort, parseSort('-stars'));
  assert.equal([reviews?.limit, reviews?.count, reviews?.offset], [3, true, undefined]);
  assert.equal({ ...q.nested?.best }, { limit: 1, offset: 2 });
  assert.equal({ ...q.nested?.['reviews.comments'] }, { cursor: 'abc_-9' });
});

test('without a nested parameter there is no nested key; count=false is kept', () => {
  assert.not.ok('nested' in parseHTTP('limit=1&sort=-a&fields=a(b)'));
  assert.equal({ ...parseHTTP('r.count=false').nested?.r }, { count: false });
});

test('a path is an ordinary key, whatever its name: the record has no prototype', () => {
  const nested = parseHTTP('__proto__.limit=3&constructor.limit=2&toString.sort=a').nested ?? {};
  assert.is(Object.getPrototypeOf(nested), null);
  assert.equal(Object.keys(nested), ['__proto__', 'constructor', 'toString']);
  const proto = '__proto__';
  assert.is(nested[proto]?.limit, 3);
  assert.is(parseHTTP('reviews.limit=1').nested?.constructor, undefined);
});

const ignored = [
  'utm.source',
  'reviews.Filter',
  'reviews.limits',
  'a..limit',
  '.limit',
  'limit.',
  '1a.limit',
  'a-b.limit',
];
test('names of other shapes are not listql parameters: ignored as any unknown parameter', () => {
  for (const name of [...ignored, 'reviews.limit.x', 'a.b/c.limit', 'é.limit']) {
    assert.equal(parseHTTP({ [name]: 'x' }), {}, name);
    assert.not.ok(isListParameterName(name), name);
  }
  assert.equal(nestedName('best.comments.sort'), { path: 'best.comments', parameter: 'sort' });
  assert.equal(nestedName('_a.B9.count'), { path: '_a.B9', parameter: 'count' });
});

test('the paths of a request: at most 16, however many parameters each takes', () => {
  const paths = (n: number) => Array.from({ length: n }, (_, i) => `p${i}.limit=1&p${i}.sort=a`).join('&');
  assert.is(Object.keys(parseHTTP(paths(16)).nested ?? {}).length, 16);
  assert.throws(
    () => parseHTTP(paths(17)),
    (e: unknown) => isListError(e) && e.code === 'limit_exceeded' && e.parameter === 'p16.limit',
  );
});

test('a path deeper than maxSelectionDepth is limit_exceeded; a larger bound lets it through', () => {
  assert.ok(parseHTTP('a.b.c.limit=1').nested?.['a.b.c']);
  assert.throws(
    () => parseHTTP('a.b.c.d.limit=1'),
    (e: unknown) => isListError(e) && e.code === 'limit_exceeded' && e.parameter === 'a.b.c.d.limit',
  );
  assert.ok(parseHTTP('a.b.c.d.limit=1', { limits: { maxSelectionDepth: 4 } }).nested?.['a.b.c.d']);
});

interface Expected {
  code: string;
  parameter: string | undefined;
  offset?: number | undefined;
  message?: RegExp;
}
const e = (code: string, parameter: string | undefined, offset?: number, message?: RegExp): Expected => ({
  code,
  parameter,
  offset,
  ...(message ? { message } : {}),
});
const rejected: [input: Input, expected: Expected, limits?: Partial<Limits>][] = [
  // limit / offset
  ['reviews.limit=01', e('invalid_parameter', 'reviews.limit', 1, /^reviews\.limit cannot have a leading zero$/)],
  ['reviews.limit=-1', e('invalid_parameter', 'reviews.limit', 0)],
  ['reviews.offset=1x', e('invalid_parameter', 'reviews.offset', 1)],
  ['reviews.limit=99999999999999999999', e('limit_exceeded', 'reviews.limit', 0)],
  // count: true or false only
  ['reviews.count=estimated', e('invalid_parameter', 'reviews.count', 0, /estimated counts are for the top level/)],
  ['reviews.count=tru', e('invalid_parameter', 'reviews.count', 3, /^reviews\.count must be true or false$/)],
  ['reviews.count=falsey', e('invalid_parameter', 'reviews.count', 5)],
  ['reviews.count=TRUE', e('invalid_parameter', 'reviews.count', 0)],
  // cursor
  ['reviews.cursor=ab%3D', e('invalid_cursor', 'reviews.cursor', 2, /^reviews\.cursor must not be padded$/)],
  ['reviews.cursor=a.b', e('invalid_cursor', 'reviews.cursor', 1)],
  ['reviews.cursor=abcde', e('invalid_cursor', 'reviews.cursor', 4), { maxCursorBytes: 4 }],
  ['reviews.cursor=a&reviews.offset=1', e('invalid_parameter', 'reviews.offset', undefined, /with reviews\.cursor/)],
  // another path's cursor and offset, and the top level's, are no conflict: the next check fails instead
  ['reviews.cursor=a&best.offset=1&cursor=b&limit=x', e('invalid_parameter', 'limit', 0)],
  // sort and filter: their own grammar and limits, the message naming the nested parameter
  ['reviews.sort=a,-a', e('invalid_parameter', 'reviews.sort', 2, /'a' appears twice in reviews\.sort$/)],
  ['reviews.sort=a%20b', e('invalid_parameter', 'reviews.sort', 2, /^expected ',' or the end of reviews\.sort,/)],
  [
    'reviews.sort=a,b',
    e('limit_exceeded', 'reviews.sort', 2, /^reviews\.sort has more than 1 keys$/),
    { maxSortTerms: 1 },
  ],
  ['reviews.filter=stars%20gte', e('invalid_syntax', 'reviews.filter', 9)],
  ['reviews.filter=a%20eq%20%22x%22', e('invalid_token', 'reviews.filter', 5)],
  [
    'reviews.filter=a%20eq%2012',
    e('limit_exceeded', 'reviews.filter', 5, /^reviews\.filter is longer/),
    { maxFilterBytes: 5 },
  ],
  ['r.filter=a/b/c%20eq%201', e('limit_exceeded', 'r.filter', 4), { maxPathDepth: 2 }],
  ['r.filter=%C3%A9', e('invalid_token', 'r.filter', 0)],
  // a byte offset: 'é' is two bytes
  ["r.filter=name%20eq%20'%C3%A9'%20and", e('invalid_syntax', 'r.filter', 16)],
  // presence: repeated, empty, not a string
  ['reviews.limit=1&reviews.limit=2', e('invalid_parameter', 'reviews.limit', undefined, /given more than once/)],
  ['reviews.filter=', e('invalid_parameter', 'reviews.filter', 0, /must not be empty/)],
  ['reviews.sort', e('invalid_parameter', 'reviews.sort', 0)],
  [{ 'reviews.filter': ['a eq 1', 'a eq 2'] }, e('invalid_parameter', 'reviews.filter')],
  [{ 'reviews.limit': 5 } as unknown as QueryValues, e('invalid_parameter', 'reviews.limit', undefined, /string/)],
  // fields and search are never nested parameters
  ['reviews.fields=stars', e('invalid_parameter', 'reviews.fields', undefined, /write fields=reviews\(…\)/)],
  ['a.b.fields=c', e('invalid_parameter', 'a.b.fields', undefined, /write fields=a\(b\(…\)\)/)],
  ['reviews.search=x', e('invalid_parameter', 'reviews.search', undefined, /top-level list only/)],
  // brackets, invalid UTF-8, size
  ['reviews.filter[stars]=4', e('invalid_parameter', 'reviews.filter[stars]', 0)],
  ['reviews.filter=%FF', e('invalid_parameter', 'reviews.filter')],
  [{ 'reviews.filter': 'a eq 1' }, e('limit_exceeded', undefined), { maxQueryBytes: 19 }],
  // order: presence of every parameter first, then the top level's values, then the nested ones
  ['limit=x&reviews.limit=1&reviews.limit=2', e('invalid_parameter', 'reviews.limit', undefined, /more than once/)],
  ['filter=a%20eq&reviews.limit=x', e('invalid_syntax', 'filter', 4)],
  ['r.filter=a%20eq&r.limit=x', e('invalid_parameter', 'r.limit', 0)],
  ['a.filter=a%20eq&b.sort=-', e('invalid_parameter', 'b.sort', 1)],
];
for (const [input, expected, limits] of rejected) {
  const name = typeof input === 'string' ? input.slice(0, 60) : JSON.stringify(input).slice(0, 60);
  test(`parseHTTP rejects ${name} → ${expected.code}`, () => {
    try {
      const parsed = parseHTTP(input, limits ? { limits } : {});
      assert.unreachable(`parsed as ${JSON.stringify(parsed)}`);
    } catch (error) {
      if (!isListError(error)) throw error;
      const got = { code: error.code, parameter: error.parameter, offset: error.position?.offset };
      assert.equal(got, { code: expected.code, parameter: expected.parameter, offset: expected.offset }, error.message);
      if (expected.message) assert.match(error.message, expected.message);
    }
  });
}

test('the reject setting accepts nested names and leaves fields/search ones to parseHTTP, which says what to write', () => {
  const query = fromQueryString('reviews.limit=3&best.comments.filter=a%20eq%201&reviews.fields=x&r.search=y');
  rejectUnknownParameters(query);
  for (const name of ignored) {
    assert.throws(
      () => rejectUnknownParameters({ [name]: 'x' }),
      (err: unknown) => isListError(err) && err.code === 'invalid_parameter' && err.parameter === name,
    );
  }
});

test('fromQueryString: invalid UTF-8 and non-string values in a nested parameter are refused, not dropped', () => {
  for (const [input, parameter] of [
    ['a.b.sort=%C3', 'a.b.sort'],
    ['x=1&r.cursor=%80', 'r.cursor'],
  ] as const) {
    assert.throws(
      () => fromQueryString(input),
      (err: unknown) => isListError(err) && err.code === 'invalid_parameter' && err.parameter === parameter,
    );
  }
  assert.throws(
    () => fromQueryString({ 'reviews.filter': { stars: '4' } }),
    (err: unknown) => isListError(err) && err.parameter === 'reviews.filter',
  );
  assert.equal(Object.keys(fromQueryString('utm.source=%FF&a=1')), ['a']);
});

test.run();
