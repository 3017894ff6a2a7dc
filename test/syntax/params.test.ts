import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isListError } from '../../src/errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../../src/limits.ts';
import type { ParsedQuery, SortTerm } from '../../src/syntax/ast.ts';
import { parseHTTP, parseSort, type QueryValues } from '../../src/syntax/index.ts';
import { fromQueryString } from '../../src/syntax/query-string.ts';

const sortText = (terms: readonly SortTerm[]): string =>
  terms.map((t) => `${t.direction === 'desc' ? '-' : ''}${t.path.segments.map((s) => s.name).join('/')}`).join(',');

/** Summarize a ParsedQuery without the filter AST (the filter tests cover it). */
function summary(q: ParsedQuery): Record<string, unknown> {
  const { filter, sort, ...rest } = q;
  return {
    ...rest,
    ...(filter ? { filter: filter.kind } : {}),
    ...(sort ? { sort: sortText(sort) } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// parseHTTP: accepted
// ---------------------------------------------------------------------------------------------------------------

type Input = QueryValues | URLSearchParams | string;
const accepted: [name: string, input: Input, expected: Record<string, unknown>, limits?: Partial<Limits>][] = [
  ['empty string', '', {}],
  ['empty object', {}, {}],
  [
    'every parameter',
    'filter=price%20gt%2010&sort=-price,name&limit=20&offset=0&count=true&search=red+shoes',
    { filter: 'comparison', sort: '-price,name', limit: 20, offset: 0, count: true, search: 'red shoes' },
  ],
  ['path and query', '/books?limit=5#top', { limit: 5 }],
  ['count=false', 'count=false', { count: false }],
  ['limit=0', 'limit=0', { limit: 0 }],
  ['largest safe limit', 'limit=9007199254740991', { limit: 9007199254740991 }],
  ['cursor alphabet', 'cursor=abcXYZ019_-', { cursor: 'abcXYZ019_-' }],
  ['unknown parameters are ignored', 'foo=bar&x=%FF&Filter=%40&LIMIT=-1', {}],
  ['object input', { limit: '5', sort: 'a' }, { limit: 5, sort: 'a' }],
  ['one-element array', { limit: ['5'] }, { limit: 5 }],
  ['URLSearchParams', new URLSearchParams('filter=a eq 1&count=true'), { filter: 'comparison', count: true }],
  ['search keeps a lone %', 'search=100%', { search: '100%' }],
  ['search keeps %zz', 'search=%zz%2', { search: '%zz%2' }],
  ['search of exactly maxSearchBytes', 'search=%C3%A9a', { search: 'éa' }, { maxSearchBytes: 3 }],
  ['cursor of exactly maxCursorBytes', 'cursor=abcd', { cursor: 'abcd' }, { maxCursorBytes: 4 }],
  ['query of exactly maxQueryBytes', 'ab=12345678', {}, { maxQueryBytes: 10 }],
  ['multi-byte query within maxQueryBytes', 'a=%C3%A9%C3%A9%C3%A9', {}, { maxQueryBytes: 7 }],
];
for (const [name, input, expected, limits] of accepted) {
  test(`parseHTTP accepts: ${name}`, () => {
    assert.equal(summary(parseHTTP(input, limits ? { limits } : {})), expected);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// parseHTTP: rejected
// ---------------------------------------------------------------------------------------------------------------

interface Expected {
  code: string;
  parameter?: string | undefined;
  offset?: number | undefined;
}
const e = (code: string, parameter?: string, offset?: number): Expected => ({ code, parameter, offset });
const rejected: [input: Input | Record<string, unknown>, expected: Expected, limits?: Partial<Limits>][] = [
  // limit / offset
  ['limit=01', e('invalid_parameter', 'limit', 1)],
  ['limit=00', e('invalid_parameter', 'limit', 1)],
  ['limit=-1', e('invalid_parameter', 'limit', 0)],
  ['limit=%2B1', e('invalid_parameter', 'limit', 0)],
  ['limit=+1', e('invalid_parameter', 'limit', 0)],
  ['limit=1.5', e('invalid_parameter', 'limit', 1)],
  ['limit=1e3', e('invalid_parameter', 'limit', 1)],
  ['limit=%201', e('invalid_parameter', 'limit', 0)],
  ['limit=1%20', e('invalid_parameter', 'limit', 1)],
  ['limit=abc', e('invalid_parameter', 'limit', 0)],
  ['limit=0x10', e('invalid_parameter', 'limit', 1)],
  ['limit=99999999999999999999', e('limit_exceeded', 'limit', 0)],
  ['offset=007', e('invalid_parameter', 'offset', 1)],
  ['offset=-0', e('invalid_parameter', 'offset', 0)],
  // count
  ['count=TRUE', e('invalid_parameter', 'count', 0)],
  ['count=yes', e('invalid_parameter', 'count', 0)],
  ['count=1', e('invalid_parameter', 'count', 0)],
  ['count=truex', e('invalid_parameter', 'count', 4)],
  ['count=tru', e('invalid_parameter', 'count', 3)],
  ['count=fals', e('invalid_parameter', 'count', 4)],
  ['count=%20true', e('invalid_parameter', 'count', 0)],
  // presence: duplicate, empty, non-string
  ['limit=1&limit=2', e('invalid_parameter', 'limit')],
  ['filter=a%20eq%201&filter=b%20eq%202', e('invalid_parameter', 'filter')],
  ['sort=a&sort=a', e('invalid_parameter', 'sort')],
  ['cursor=a&cursor=b', e('invalid_parameter', 'cursor')],
  ['count=true&count=true', e('invalid_parameter', 'count')],
  ['search=a&search=b', e('invalid_parameter', 'search')],
  ['offset=1&offset=1', e('invalid_parameter', 'offset')],
  ['filter=', e('invalid_parameter', 'filter', 0)],
  ['sort=', e('invalid_parameter', 'sort', 0)],
  ['limit', e('invalid_parameter', 'limit', 0)],
  ['offset=', e('invalid_parameter', 'offset', 0)],
  ['search=', e('invalid_parameter', 'search', 0)],
  ['cursor=', e('invalid_parameter', 'cursor', 0)],
  ['count=', e('invalid_parameter', 'count', 0)],
  [{ filter: [''] }, e('invalid_parameter', 'filter', 0)],
  [{ filter: { price: { gt: '10' } } }, e('invalid_parameter', 'filter')],
  [{ limit: 5 }, e('invalid_parameter', 'limit')],
  [{ limit: ['1', '2'] }, e('invalid_parameter', 'limit')],
  [{ sort: [1] }, e('invalid_parameter', 'sort')],
  [{ count: true }, e('invalid_parameter', 'count')],
  // cursor
  ['cursor=abc&offset=1', e('invalid_parameter', 'offset')],
  ['offset=1&cursor=abc', e('invalid_parameter', 'offset')],
  ['cursor=ab%3D', e('invalid_cursor', 'cursor', 2)],
  ['cursor=ab%3D%3D', e('invalid_cursor', 'cursor', 2)],
  ['cursor=a+b', e('invalid_cursor', 'cursor', 1)],
  ['cursor=ab.c', e('invalid_cursor', 'cursor', 2)],
  ['cursor=ab/c', e('invalid_cursor', 'cursor', 2)],
  ['cursor=%C3%A9', e('invalid_cursor', 'cursor', 0)],
  ['cursor=abcde', e('invalid_cursor', 'cursor', 4), { maxCursorBytes: 4 }],
  [`cursor=${'A'.repeat(5000)}`, e('invalid_cursor', 'cursor', 4096)],
  // search and query size
  ['search=abcd', e('limit_exceeded', 'search', 3), { maxSearchBytes: 3 }],
  ['search=%C3%A9%C3%A9', e('limit_exceeded', 'search', 2), { maxSearchBytes: 3 }],
  ['search=%00', e('invalid_parameter', 'search', 0)],
  ['search=%C3%A9x%00y', e('invalid_parameter', 'search', 3)],
  ['abc=12345678', e('limit_exceeded'), { maxQueryBytes: 10 }],
  ['a=%C3%A9%C3%A9%C3%A9%C3%A9', e('limit_exceeded'), { maxQueryBytes: 8 }],
  [{ other: 'x'.repeat(20_000) }, e('limit_exceeded')],
  // invalid UTF-8 (fatal decoding) in a known parameter
  ['filter=%FF', e('invalid_parameter', 'filter')],
  ['sort=%C3', e('invalid_parameter', 'sort')],
  ['filter=%C0%AF', e('invalid_parameter', 'filter')],
  ['search=%ED%A0%80', e('invalid_parameter', 'search')],
  ['search=%E2%82', e('invalid_parameter', 'search')],
  ['search=ok%F4%90%80%80', e('invalid_parameter', 'search')],
  // each parameter's own errors carry its name
  ['filter=a%20eq', e('invalid_syntax', 'filter', 4)],
  ['filter=a%20eq%20%22x%22', e('invalid_token', 'filter', 5)],
  ['filter=a%20eq%2012', e('limit_exceeded', 'filter', 5), { maxFilterBytes: 5 }],
  ['sort=a,-a', e('invalid_parameter', 'sort', 2)],
  ['sort=a,b', e('limit_exceeded', 'sort', 2), { maxSortTerms: 1 }],
];
for (const [input, expected, limits] of rejected) {
  const name = typeof input === 'string' ? input.slice(0, 50) : JSON.stringify(input).slice(0, 50);
  test(`parseHTTP rejects ${name} → ${expected.code}`, () => {
    try {
      const parsed = parseHTTP(input as Input, limits ? { limits } : {});
      assert.unreachable(`parsed as ${JSON.stringify(summary(parsed))}`);
    } catch (error) {
      if (!isListError(error)) throw error;
      assert.equal(
        { code: error.code, parameter: error.parameter, offset: error.position?.offset },
        expected,
        error.message,
      );
      assert.not.match(error.message, /x{30}|A{30}/);
    }
  });
}

// ---------------------------------------------------------------------------------------------------------------
// sort
// ---------------------------------------------------------------------------------------------------------------

const sortAccepted: [input: string, expected: string][] = [
  ['a', 'a'],
  ['-a', '-a'],
  ['a,-b', 'a,-b'],
  [' a , -b ', 'a,-b'],
  ['a,\tb\n', 'a,b'],
  ['author/name', 'author/name'],
  ['-a/b/c,d', '-a/b/c,d'],
  ['TRUE,order,ascending,Desc', 'TRUE,order,ascending,Desc'],
  ['a/b,a', 'a/b,a'],
];
for (const [input, expected] of sortAccepted) {
  test(`sort accepts ${JSON.stringify(input)}`, () => assert.is(sortText(parseSort(input)), expected));
}

test('sort spans', () => {
  const [a, b] = parseSort('-price, author/name');
  assert.equal(a?.span, { offset: 0, line: 1, column: 1, end: 6 });
  assert.equal(a?.path.span, { offset: 1, line: 1, column: 2, end: 6 });
  assert.equal(b?.span, { offset: 8, line: 1, column: 9, end: 19 });
  assert.equal(b?.path.segments[1]?.span, { offset: 15, line: 1, column: 16, end: 19 });
});

const sortRejected: [input: string, offset: number, limits?: Partial<Limits>][] = [
  [' ', 1],
  [',', 0],
  ['a,', 2],
  ['a, ', 3],
  ['a,,b', 2],
  ['-', 1],
  ['--a', 1],
  ['- a', 1],
  ['+a', 0],
  ['a b', 2],
  ['a /b', 2],
  ['a/ b', 1],
  ['a/\tb', 1],
  ['-a/b/ c', 4],
  ['x, author/ name', 9],
  ['x, author /name', 10],
  ['a//b', 2],
  ['a/', 2],
  ['a.b', 1],
  ['a-b', 1],
  ['1a', 0],
  ['é', 0],
  ['a;b', 1],
  ['asc', 0],
  ['a,desc', 2],
  ['a/null', 2],
  ['-and', 1],
  ['a,-a', 2],
  ['a/b,c,a/b', 6],
  ['x,y,-x', 4],
];
for (const [input, offset] of sortRejected) {
  test(`sort rejects ${JSON.stringify(input)} at ${offset}`, () => {
    assert.throws(
      () => parseSort(input),
      (err: unknown) =>
        isListError(err) &&
        err.code === 'invalid_parameter' &&
        err.parameter === 'sort' &&
        err.position?.offset === offset,
    );
  });
}

const sortMessages: [input: string, message: string][] = [
  ['a/ b', "whitespace is not allowed after '/'"],
  ['a /b', "whitespace is not allowed before '/'"],
  ['a b', "expected ',' or the end of sort, found 'b'"],
];
for (const [input, message] of sortMessages) {
  test(`sort message for ${JSON.stringify(input)}`, () => {
    assert.throws(
      () => parseSort(input),
      (err: unknown) => isListError(err) && err.message === message,
    );
  });
}

const sortLimits: [input: string, limits: Partial<Limits>, offset: number | undefined][] = [
  ['a,b', { maxSortTerms: 2 }, undefined],
  ['a,b,c', { maxSortTerms: 2 }, 4],
  ['a/b', { maxPathDepth: 2 }, undefined],
  ['a/b/c', { maxPathDepth: 2 }, 4],
  ['a,b,c,d,e', {}, undefined],
  ['a,b,c,d,e,f', {}, 10],
];
for (const [input, over, offset] of sortLimits) {
  test(`sort limits: ${input} with ${JSON.stringify(over)}`, () => {
    const run = () => parseSort(input, { ...DEFAULT_LIMITS, ...over });
    if (offset === undefined) assert.is(sortText(run()), input);
    else {
      assert.throws(
        run,
        (err: unknown) => isListError(err) && err.code === 'limit_exceeded' && err.position?.offset === offset,
      );
    }
  });
}

// ---------------------------------------------------------------------------------------------------------------
// fromQueryString
// ---------------------------------------------------------------------------------------------------------------

const queries: [input: Parameters<typeof fromQueryString>[0], expected: Record<string, string | string[]>][] = [
  ['a=1&b=2', { a: '1', b: '2' }],
  ['?a=1', { a: '1' }],
  ['/books?a=1&a=2#frag', { a: ['1', '2'] }],
  ['https://example.test/books?filter=a+eq+1', { filter: 'a eq 1' }],
  ['/books', {}],
  ['', {}],
  ['a', { a: '' }],
  ['a=b=c', { a: 'b=c' }],
  ['&&a=1&', { a: '1' }],
  ['a%20b=c%2Bd', { 'a b': 'c+d' }],
  ['q=%e2%82%ac', { q: '€' }],
  ['q=50%25%20off', { q: '50% off' }],
  ['q=a%zz%C3%A9', { q: 'a%zzé' }],
  ['q=%EF%BB%BFx', { q: '\ufeffx' }],
  [
    '__proto__=1&constructor=2',
    Object.fromEntries([
      ['__proto__', '1'],
      ['constructor', '2'],
    ]),
  ],
  ['x=%FF&y=1', { y: '1' }],
  ['%FF=1&y=2', { y: '2' }],
  [new URL('http://x.test/?q=%C3%A9&q=b'), { q: ['é', 'b'] }],
  [new URLSearchParams('a=1&a=2&b=3'), { a: ['1', '2'], b: '3' }],
  [
    { a: '1', b: ['2', '3'], c: undefined, d: 5, e: { x: 1 } },
    { a: '1', b: ['2', '3'] },
  ],
];
for (const [input, expected] of queries) {
  test(`fromQueryString ${input instanceof URLSearchParams ? `URLSearchParams(${input})` : JSON.stringify(input)}`, () => {
    const got = fromQueryString(input);
    assert.equal(Object.entries(got), Object.entries(expected));
  });
}

test('fromQueryString rejects invalid UTF-8 in a known parameter, naming it', () => {
  for (const [input, parameter] of [
    ['filter=%FF', 'filter'],
    ['x=1&cursor=%80', 'cursor'],
    [new URL('http://x.test/?sort=%C3'), 'sort'],
  ] as const) {
    assert.throws(
      () => fromQueryString(input),
      (err: unknown) => isListError(err) && err.code === 'invalid_parameter' && err.parameter === parameter,
    );
  }
});

test.run();
