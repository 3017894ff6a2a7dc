/**
 * Habits of other query grammars keep their error code and byte position, and the message says what to write in
 * listql instead: SQL and OData words in upper case, `nin`, `==`, `!=`, `&&`, double-quoted strings, a `+` that
 * arrived as a space, `sort=name desc` and `sort=name:desc`, and bracketed parameters such as `filter[name]=x`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isListError } from '../../src/errors.ts';
import { parseHTTP, type QueryValues } from '../../src/syntax/index.ts';
import { fromQueryString } from '../../src/syntax/query-string.ts';

interface Habit {
  readonly query: QueryValues | string;
  readonly code: string;
  readonly parameter: string;
  /** UTF-8 byte offset, the same as before the hint was added. */
  readonly offset: number;
  /** What the message must say, in full. */
  readonly message: string;
}

const HABITS: readonly Habit[] = [
  {
    query: { sort: 'name desc' },
    code: 'invalid_parameter',
    parameter: 'sort',
    offset: 5,
    message: "expected ',' or the end of sort, found 'd': write '-name' to sort descending",
  },
  {
    // `:` starts a sort modifier (`:ci`, `:nullsfirst`): the word after it is what does not fit.
    query: { sort: 'name:desc' },
    code: 'invalid_parameter',
    parameter: 'sort',
    offset: 5,
    message: "expected 'ci', 'nullsfirst' or 'nullslast' after ':', found 'd': write '-name' to sort descending",
  },
  {
    query: { sort: 'price, author/name DESC' },
    code: 'invalid_parameter',
    parameter: 'sort',
    offset: 19,
    message: "expected ',' or the end of sort, found 'D': write '-author/name' to sort descending",
  },
  {
    query: { sort: 'name asc' },
    code: 'invalid_parameter',
    parameter: 'sort',
    offset: 5,
    message: "expected ',' or the end of sort, found 'a': write 'name' to sort ascending (no word needed)",
  },
  {
    query: { sort: '+name' },
    code: 'invalid_parameter',
    parameter: 'sort',
    offset: 0,
    message: "expected a field name, found '+': a name alone sorts ascending and '-name' descending: leave the '+' out",
  },
  {
    query: { filter: "name eq 'a' AND price gt 1" },
    code: 'invalid_syntax',
    parameter: 'filter',
    offset: 12,
    message: "unexpected 'AND': write 'and' (keywords are lower case)",
  },
  {
    query: { filter: "name eq 'a' OR price gt 1" },
    code: 'invalid_syntax',
    parameter: 'filter',
    offset: 12,
    message: "unexpected 'OR': write 'or' (keywords are lower case)",
  },
  {
    query: { filter: "name EQ 'é'" },
    code: 'invalid_syntax',
    parameter: 'filter',
    offset: 5,
    message: "unexpected 'EQ': write 'eq' (keywords are lower case)",
  },
  {
    query: { filter: 'NOT price gt 1' },
    code: 'invalid_syntax',
    parameter: 'filter',
    offset: 4,
    message: "unexpected 'price': 'NOT' is read as a name, write 'not'",
  },
  {
    query: { filter: "name nin ('a', 'b')" },
    code: 'invalid_syntax',
    parameter: 'filter',
    offset: 5,
    message: "unexpected 'nin': write 'not in (…)'",
  },
  {
    query: { filter: "name == 'a'" },
    code: 'invalid_token',
    parameter: 'filter',
    offset: 5,
    message: "unexpected character '=': write 'eq' for '=='",
  },
  {
    query: { filter: "name != 'a'" },
    code: 'invalid_token',
    parameter: 'filter',
    offset: 5,
    message: "unexpected character '!': write 'ne' for '!='",
  },
  {
    query: { filter: 'price >= 10' },
    code: 'invalid_token',
    parameter: 'filter',
    offset: 6,
    message: "unexpected character '>': write 'gte' for '>='",
  },
  {
    query: { filter: "name eq 'a' && price gt 1" },
    code: 'invalid_token',
    parameter: 'filter',
    offset: 12,
    message: "unexpected character '&': write 'and' for '&&'",
  },
  {
    query: { filter: 'name eq "Dune"' },
    code: 'invalid_token',
    parameter: 'filter',
    offset: 8,
    message: `unexpected character '"': strings take single quotes: 'Dune'`,
  },
  {
    // `1e+5` typed in a URL: the `+` arrives as a space.
    query: 'filter=price%20gt%201e+5',
    code: 'invalid_token',
    parameter: 'filter',
    offset: 11,
    message: "expected a digit in the exponent: a '+' in a URL is a space: write %2B",
  },
  {
    query: { 'filter[name]': 'Dune' },
    code: 'invalid_parameter',
    parameter: 'filter[name]',
    offset: 0,
    message: "filter[name] is not a list parameter: write filter=name eq 'Dune'",
  },
  {
    query: 'filter%5Bprice%5D%5Bgt%5D=10',
    code: 'invalid_parameter',
    parameter: 'filter[price][gt]',
    offset: 0,
    message: 'filter[price][gt] is not a list parameter: write filter=price gt 10',
  },
  {
    query: 'sort[year]=desc',
    code: 'invalid_parameter',
    parameter: 'sort[year]',
    offset: 0,
    message: 'sort[year] is not a list parameter: write sort=-year',
  },
  {
    query: 'page[limit]=5&fields[book]=title',
    code: 'invalid_parameter',
    parameter: 'fields[book]',
    offset: 0,
    message: "fields[book] is not a list parameter: listql reads one plain 'fields' parameter",
  },
];

for (const habit of HABITS) {
  // Filter messages stay short (under 80 characters, as every filter error).
  test(`habit ${JSON.stringify(habit.query)}: ${habit.code} at ${habit.offset}, saying what to write`, () => {
    try {
      parseHTTP(habit.query);
      assert.unreachable('accepted');
    } catch (err) {
      if (!isListError(err)) throw err;
      assert.equal(
        { code: err.code, parameter: err.parameter, offset: err.position?.offset, message: err.message },
        { code: habit.code, parameter: habit.parameter, offset: habit.offset, message: habit.message },
      );
      if (habit.parameter === 'filter') assert.ok(err.message.length < 80, err.message);
    }
  });
}

test('a framework that nests filter[name]=x into an object gets the same advice', () => {
  try {
    parseHTTP({ filter: { name: 'x' } } as unknown as QueryValues);
    assert.unreachable('accepted');
  } catch (err) {
    if (!isListError(err)) throw err;
    assert.is(err.code, 'invalid_parameter');
    assert.is(err.message, "filter must be a string: filter[…]=… is not listql's syntax, write filter=name eq 'x'");
  }
});

test('what is valid stays valid: a + that became a space before a sort key, lower-case keywords', () => {
  assert.equal(parseHTTP('sort=+name').sort?.[0]?.direction, 'asc');
  assert.ok(parseHTTP(fromQueryString("filter=price gt 1e%2B5 and name not in ('a')")).filter);
  // A name that is only a keyword in upper case stays a name where a name may stand.
  assert.is(parseHTTP({ filter: "AND eq 'x'" }).filter?.kind, 'comparison');
});

test.run();
