/**
 * What the client writes, value by value, written out by hand: literals (quotes doubled, numbers, decimals as given,
 * dates as instants, enums), parentheses only where the tree needs them, quantifiers with outer variables, fields
 * with selections and aliases, nested parameters by path, the last of offset and cursor, and the encoded query
 * string. Then what it refuses before sending: values the grammar cannot carry, names that are not names, a
 * comparison outside its quantifier's scope, a shadowed variable, a filter not made by a builder.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { client, decimal, type Filter, type FilterBuilder } from '../../src/client/index.ts';

type B = FilterBuilder<any, any, any>;
const books = client<any>();
const filterOf = (build: (b: B) => Filter | undefined) => books.filter(build as never).toParams().filter;

const FILTERS: [string, (b: B) => Filter | undefined, string | undefined][] = [
  ['a string, quotes doubled', (b) => b('title', 'eq', "it's ''"), "title eq 'it''s '''''"],
  ['backslash and percent stay', (b) => b('title', 'contains', '100% C:\\x'), "title contains '100% C:\\x'"],
  ['non-ASCII and astral', (b) => b('title', 'startswith', 'Łódź 😀'), "title startswith 'Łódź 😀'"],
  ['an integer, a negative double', (b) => b.and(b('y', 'gt', 1970), b('p', 'lt', -2.5)), 'y gt 1970 and p lt -2.5'],
  ['a large double keeps its exponent', (b) => b('n', 'gte', 1e21), 'n gte 1e+21'],
  ['a bigint beyond 2^53', (b) => b('n', 'eq', 9007199254740993n), 'n eq 9007199254740993'],
  ['a decimal as written', (b) => b('price', 'eq', decimal('10.500000000000000001')), 'price eq 10.500000000000000001'],
  ['a decimal from a bigint', (b) => b('price', 'ne', decimal(-12n)), 'price ne -12'],
  ['booleans', (b) => b.or(b('a', 'eq', true), b('b', 'ne', false)), 'a eq true or b ne false'],
  [
    'a Date as its instant',
    (b) => b('at', 'lt', new Date(Date.UTC(2024, 0, 15, 10))),
    "at lt '2024-01-15T10:00:00.000Z'",
  ],
  ['a calendar date as a string', (b) => b('day', 'eq', '2024-01-15'), "day eq '2024-01-15'"],
  [
    'in and not in',
    (b) => b.and(b('id', 'in', [1, 2]), b('s', 'not in', ['a', 'b'])),
    "id in (1, 2) and s not in ('a', 'b')",
  ],
  ['null checks', (b) => b.or(b('d', 'is null'), b('author/p', 'is not null')), 'd is null or author/p is not null'],
  [
    'and inside or: no parentheses',
    (b) => b.or(b.and(b('a', 'eq', 1), b('b', 'eq', 2)), b('c', 'eq', 3)),
    'a eq 1 and b eq 2 or c eq 3',
  ],
  [
    'or inside and',
    (b) => b.and(b('a', 'eq', 1), b.or(b('b', 'eq', 2), b('c', 'eq', 3))),
    'a eq 1 and (b eq 2 or c eq 3)',
  ],
  [
    'a right-nested and',
    (b) => b.and(b('a', 'eq', 1), b.and(b('b', 'eq', 2), b('c', 'eq', 3))),
    'a eq 1 and (b eq 2 and c eq 3)',
  ],
  [
    'a left-nested or',
    (b) => b.or(b.or(b('a', 'eq', 1), b('b', 'eq', 2)), b('c', 'eq', 3)),
    'a eq 1 or b eq 2 or c eq 3',
  ],
  ['three operands', (b) => b.and(b('a', 'eq', 1), b('b', 'eq', 2), b('c', 'eq', 3)), 'a eq 1 and b eq 2 and c eq 3'],
  [
    'not of a group, not of not',
    (b) => b.not(b.not(b.or(b('a', 'eq', 1), b('b', 'eq', 2)))),
    'not not (a eq 1 or b eq 2)',
  ],
  ['skipped operands', (b) => b.and(undefined, b('a', 'eq', 1), false, null), 'a eq 1'],
  ['nothing left: no filter', (b) => b.and(undefined, b.or(false)), undefined],
  ['a quantifier', (b) => b.any('reviews', 'r', (r) => r('stars', 'gte', 4)), 'reviews/any(r: r/stars gte 4)'],
  [
    'nested quantifiers with an outer variable, through a to-one',
    (b) =>
      b.all('author/books', 'o', (o) => o.any('items', 'i', (i) => i.and(i('sku', 'eq', 'X1'), o('paid', 'eq', true)))),
    "author/books/all(o: o/items/any(i: i/sku eq 'X1' and o/paid eq true))",
  ],
];

for (const [name, build, expected] of FILTERS) test(`filter: ${name}`, () => assert.is(filterOf(build), expected));

test('fields, sort, paging, count, search and nested lists, in the order given', () => {
  const request = books
    .fields('title', { author: ['name'], reviews: ['stars'] }, { best: { reviews: ['stars', { reviewer: ['name'] }] } })
    .sort('-year', 'author/name')
    .limit(20)
    .offset(40)
    .cursor('eyJ2IjoxfQ')
    .count('estimated')
    .search('red & blue')
    .nested('best' as never, (l: any) => l.limit(1).offset(2).sort('-stars').count())
    .nested('best' as never, (l: any) => l.cursor('Q1'))
    .nested('reviews' as never, (l: any) => l.filter((r: B) => r('stars', 'gte', 4)));
  assert.equal(request.toParams(), {
    fields: 'title,author(name),reviews(stars),best:reviews(stars,reviewer(name))',
    sort: '-year,author/name',
    limit: '20',
    cursor: 'eyJ2IjoxfQ',
    count: 'estimated',
    search: 'red & blue',
    'best.limit': '1',
    'best.sort': '-stars',
    'best.count': 'true',
    'best.cursor': 'Q1',
    'reviews.filter': 'stars gte 4',
  });
  assert.is(
    request.toString(),
    'fields=title%2Cauthor%28name%29%2Creviews%28stars%29%2Cbest%3Areviews%28stars%2Creviewer%28name%29%29' +
      '&sort=-year%2Cauthor%2Fname&limit=20&cursor=eyJ2IjoxfQ&count=estimated&search=red+%26+blue' +
      '&best.limit=1&best.sort=-stars&best.count=true&best.cursor=Q1&reviews.filter=stars+gte+4',
  );
});

test('removing: undefined, false, an empty search, no sort keys; each step a new request', () => {
  const full = books.limit(5).offset(10).count().search('x').sort('a');
  assert.equal(full.toParams(), { limit: '5', offset: '10', count: 'true', search: 'x', sort: 'a' });
  const cleared = full.limit(undefined).offset(undefined).count(false).search('').sort();
  assert.equal(cleared.toParams(), {});
  assert.is(cleared.toString(), '');
  assert.equal(full.toParams().limit, '5', 'the first request is unchanged');
  assert.equal(full.cursor('c').offset(3).toParams(), {
    limit: '5',
    offset: '3',
    count: 'true',
    search: 'x',
    sort: 'a',
  });
});

const REFUSED: [string, () => unknown, RegExp][] = [
  ['a control character in a string', () => filterOf((b) => b('t', 'eq', 'a\nb')), /cannot carry U\+000A/],
  ['an unpaired surrogate', () => filterOf((b) => b('t', 'eq', 'a\uD800')), /cannot carry U\+D800/],
  ['a surrogate pair reversed, after a good one', () => filterOf((b) => b('t', 'eq', '😀\uDE00\uD83D')), /U\+DE00/],
  ['an unpaired surrogate in search', () => books.search('\uDC00x'), /search cannot carry U\+DC00/],
  ['NaN', () => filterOf((b) => b('n', 'eq', Number.NaN)), /NaN is not a number/],
  ['Infinity', () => filterOf((b) => b('n', 'eq', Number.POSITIVE_INFINITY)), /Infinity is not a number/],
  ['an invalid Date', () => filterOf((b) => b('d', 'eq', new Date('x'))), /invalid Date/],
  ['null as a value', () => filterOf((b) => b('d', 'eq', null as never)), /write 'is null'/],
  ['an object as a value', () => filterOf((b) => b('d', 'eq', {} as never)), /object is not a literal/],
  ['an empty in list', () => filterOf((b) => b('id', 'in', [])), /in takes a list of one value or more/],
  ['an unknown operator', () => filterOf((b) => b('id', '==' as never as 'eq', 1)), /"==" is not an operator/],
  ['a decimal that is no number', () => decimal('1.'), /is not a number of the filter grammar/],
  ['a reserved word in a path', () => filterOf((b) => b('author/and', 'eq', 1)), /"author\/and" is not a path/],
  ['whitespace in a path', () => books.sort('a b' as never), /"a b" is not a path/],
  [
    'a reserved word as a variable',
    () => filterOf((b) => b.any('r', 'null', (r) => r('x', 'eq', 1))),
    /cannot name a variable/,
  ],
  [
    'a top-level path inside a quantifier',
    () => filterOf((b) => b.any('r', 'v', () => b('x', 'eq', 1))),
    /every path starts with a variable/,
  ],
  [
    'a variable outside its quantifier',
    () => {
      let leaked: Filter | undefined;
      filterOf((b) => b.any('r', 'v', (v) => (leaked = v('x', 'eq', 1))));
      return filterOf((b) => b.and(b('y', 'eq', 1), leaked));
    },
    /r?v\/x eq 1: used outside the quantifier of 'v'/,
  ],
  [
    'a shadowed variable',
    () => filterOf((b) => b.any('r', 'v', (v) => v.any('s', 'v', (w) => w('x', 'eq', 1)))),
    /'v' is already active/,
  ],
  ['an empty predicate', () => filterOf((b) => b.any('r', 'v', (v) => v.and())), /the predicate is empty/],
  ['not of nothing', () => filterOf((b) => b.not(b.and())), /not\(\) of an empty filter/],
  [
    'a filter not made by a builder',
    () => filterOf(() => ({ kind: 'comparison' }) as Filter),
    /made by the filter builder/,
  ],
  ['a negative limit', () => books.limit(-1), /limit is an integer/],
  ['a fractional offset', () => books.offset(1.5), /offset is an integer/],
  ['an empty cursor', () => books.cursor(''), /a cursor is the string a page gave/],
  ['a name with a comma in fields', () => books.fields('id,title' as never), /"id,title" is not a name/],
  ['an empty nested selection', () => books.fields({ reviews: [] } as never), /a list of one name or more/],
  [
    'an alias of two relations',
    () => books.fields({ x: { a: ['b'], c: ['d'] } } as never),
    /alias 'x' takes one relation/,
  ],
  [
    'a nested path that is not one',
    () => books.nested('a..b' as never, (l: any) => l),
    /is not the path of a nested list/,
  ],
];

for (const [name, run, message] of REFUSED)
  test(`refused: ${name}`, () => {
    assert.throws(
      run,
      (err: Error) => message.test(err.message) && (err instanceof TypeError || err instanceof RangeError),
    );
  });

test.run();
