/**
 * The cost budget (maxSubqueries, maxSubqueryDepth, maxSortJoins, maxInValuesTotal): a request over it is a
 * positioned `limit_exceeded` naming the budget, raised before any query, on list() and apply() alike; a request
 * at the budget runs. describe() and toOpenAPI() report it.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { Author, Book, ENTITIES, Review, Tag } from '../../examples/bookstore/entities.ts';
import { bookPolicy } from '../../examples/bookstore/policies.ts';
import { seed } from '../../examples/bookstore/seed.ts';
import {
  apply,
  createEngine,
  DEFAULT_LIMITS,
  execute,
  filterable,
  isListError,
  type Limits,
  parseHTTP,
  schema,
  sortable,
  toOpenAPI,
} from '../../src/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';

/** authors → books → tags → books → reviews: a permissive policy, deep enough to cross the depth budget. */
function deepPolicy() {
  const reviews = schema(Review).expose('stars', filterable());
  const innerBooks = schema(Book).expose('year', filterable()).relation('reviews', reviews);
  const tags = schema(Tag).expose('name', filterable()).relation('books', innerBooks);
  const books = schema(Book).expose('year', filterable()).relation('tags', tags).relation('reviews', reviews);
  return schema(Author).expose('id', sortable()).expose('name', filterable(), sortable()).relation('books', books);
}

const Q = `reviews/any(r: r/stars gt 4)`;
const or = (n: number, term = Q) => Array.from({ length: n }, () => term).join(' or ');
/** The byte offset of the `n`th (0-based) term of `or(…)`. */
const nth = (n: number, term = Q) => n * (term.length + 4);

interface Row {
  readonly name: string;
  readonly endpoint?: 'books' | 'authors';
  readonly query: Record<string, string>;
  readonly limits?: Partial<Limits>;
  /** Expected: accepted (runs), or [parameter, byte offset, budget named in the message], on every dialect or some. */
  readonly error?: Expected | { readonly [dialect in Dialect]?: Expected };
}
type Expected = readonly [string, number, string];

// A quantifier weighs 1.5 (its one comparison inside is part of it), a to-one hop 1 (1/4 on SQLite); a sort through a
// relation adds 4 (6 on MariaDB, 1 on SQLite), count=true runs the filter again (docs/security.md, Cost budget). On
// SQLite one statement may need at most 3/8 of maxSubqueries (3 by default): it holds the event loop while it runs.
const ONE_STATEMENT = 'one statement may need on SQLite';
const ROWS: readonly Row[] = [
  {
    name: '5 quantifiers: 7.5, within maxSubqueries (the 3rd crosses one SQLite statement)',
    query: { filter: or(5) },
    error: { sqlite: ['filter', nth(2), ONE_STATEMENT] },
  },
  {
    name: '6 quantifiers: the 6th crosses maxSubqueries',
    query: { filter: or(6) },
    error: {
      sqlite: ['filter', nth(2), ONE_STATEMENT],
      postgresql: ['filter', nth(5), 'maxSubqueries'],
      mariadb: ['filter', nth(5), 'maxSubqueries'],
    },
  },
  { name: '2 quantifiers with count: 6 (count runs each again)', query: { filter: or(2), count: 'true' } },
  {
    name: '3 quantifiers with count: the 3rd crosses maxSubqueries',
    query: { filter: or(3), count: 'true' },
    error: ['filter', nth(2), 'maxSubqueries'],
  },
  {
    name: 'a sort through a relation adds 4 (6 on MariaDB): 2 quantifiers sorted by author/name are 7 (9; 4 on SQLite)',
    query: { filter: or(2), sort: 'author/name' },
    error: {
      sqlite: ['filter', nth(1), 'and 1 for a sort through a relation'],
      mariadb: ['filter', nth(1), 'and 6 for a sort through a relation'],
    },
  },
  {
    name: 'count and a relation sort: the 2nd quantifier crosses (the 1st on MariaDB)',
    query: { filter: or(3), sort: 'author/name', count: 'true' },
    error: {
      sqlite: ['filter', nth(1), ONE_STATEMENT],
      postgresql: ['filter', nth(1), 'maxSubqueries'],
      mariadb: ['filter', nth(0), 'maxSubqueries'],
    },
  },
  { name: 'a to-one path is one sub-query: 8 accepted', query: { filter: or(8, "author/name eq 'x'") } },
  {
    name: 'a to-one path is one sub-query: the 9th crosses (a quarter on SQLite: accepted)',
    query: { filter: `id eq 1 and (${or(9, "author/name eq 'x'")})` },
    error: {
      postgresql: ['filter', 'id eq 1 and ('.length + nth(8, "author/name eq 'x'"), 'maxSubqueries'],
      mariadb: ['filter', 'id eq 1 and ('.length + nth(8, "author/name eq 'x'"), 'maxSubqueries'],
    },
  },
  {
    name: 'not and and count their operands',
    query: { filter: `not (${or(2)}) and ${or(3)}` },
    error: { sqlite: ['filter', `not (${or(2)}) and `.length, ONE_STATEMENT] },
  },
  {
    name: 'a configured maxSubqueries of 9 accepts 6 quantifiers (SQLite 3.38 per statement: 2)',
    query: { filter: or(6) },
    limits: { maxSubqueries: 9 },
    error: { sqlite: ['filter', nth(2), 'over the 3.38 one statement may need on SQLite'] },
  },
  {
    name: 'a configured maxSubqueries of 24 accepts 6 quantifiers in one SQLite statement',
    query: { filter: or(6) },
    limits: { maxSubqueries: 24 },
  },
  {
    name: 'depth 2 is at maxSubqueryDepth',
    endpoint: 'authors',
    query: { filter: "books/any(b: b/tags/any(t: t/name eq 'x'))" },
  },
  {
    name: 'depth 3: the innermost quantifier crosses maxSubqueryDepth',
    endpoint: 'authors',
    query: { filter: 'books/any(b: b/tags/any(t: t/books/any(c: c/year gt 2100)))' },
    error: ['filter', 'books/any(b: b/tags/any(t: '.length, 'maxSubqueryDepth'],
  },
  {
    name: 'a to-one path adds a sub-query, not depth',
    query: { filter: "author/name eq 'x' or reviews/any(r: r/stars gt 4)" },
    limits: { maxSubqueryDepth: 1, maxSubqueries: 3 },
  },
  {
    name: 'a configured maxSubqueryDepth of 4 accepts depth 4',
    endpoint: 'authors',
    query: { filter: 'books/any(b: b/tags/any(t: t/books/any(c: c/reviews/any(r: r/stars gt 99))))' },
    // Four quantifiers in one statement: 6, which SQLite allows one statement from a maxSubqueries of 16.
    limits: { maxSubqueryDepth: 4, maxSubqueries: 16 },
  },
  {
    name: 'a configured maxSubqueryDepth of 1 refuses a nested any',
    endpoint: 'authors',
    query: { filter: "name eq 'x' or books/any(b: b/tags/any(t: t/name eq 'x'))" },
    limits: { maxSubqueryDepth: 1 },
    error: ['filter', "name eq 'x' or books/any(b: ".length, 'maxSubqueryDepth'],
  },
  { name: 'two relations sorted through: at maxSortJoins', query: { sort: 'author/name,-publisher/name,author/born' } },
  {
    name: 'keys through one relation join it once',
    query: { sort: 'author/name,-author/born' },
    limits: { maxSortJoins: 1 },
  },
  {
    name: 'a second relation crosses a maxSortJoins of 1',
    query: { sort: 'author/name,-year,publisher/name' },
    limits: { maxSortJoins: 1 },
    error: ['sort', 'author/name,-year,'.length, 'maxSortJoins'],
  },
  {
    name: 'in values at maxInValuesTotal',
    query: { filter: 'id in (1, 2) or id in (3)' },
    limits: { maxInValuesTotal: 3 },
  },
  {
    name: 'the in list that crosses maxInValuesTotal',
    query: { filter: 'id in (1, 2) or id in (3, 4)' },
    limits: { maxInValuesTotal: 3 },
    error: ['filter', 'id in (1, 2) or '.length, 'maxInValuesTotal'],
  },
];

function baseOf(em: EntityManager, endpoint: 'books' | 'authors') {
  const e = em as unknown as { createQueryBuilder(entity: unknown, alias: string): any };
  return endpoint === 'books' ? e.createQueryBuilder(Book, 'b') : e.createQueryBuilder(Author, 'a');
}

eachDialect('engine budget', { entities: ENTITIES, seed }, (test, dialect) => {
  for (const row of ROWS) {
    test(`list: ${row.name}`, async ({ em }) => {
      const endpoint = row.endpoint ?? 'books';
      const engine = createEngine(em, {
        policy: endpoint === 'books' ? bookPolicy : deepPolicy(),
        allowCount: true,
        ...(row.limits ? { limits: row.limits } : {}),
      });
      const { result, calls } = await captureDriver(() =>
        engine
          .from(baseOf(em, endpoint))
          .list(row.query)
          .then(
            (page) => page,
            (err: unknown) => err,
          ),
      );
      const expected = Array.isArray(row.error)
        ? (row.error as Expected)
        : (row.error as { readonly [dialect in Dialect]?: Expected } | undefined)?.[dialect];
      if (!expected) {
        assert.ok(!(result instanceof Error), `accepted and run: ${String(result)}`);
        assert.ok(calls.length >= 1);
        return;
      }
      if (!isListError(result)) throw new Error(`expected a ListError, got ${String(result)}`);
      const [parameter, offset, budget] = expected;
      assert.equal([result.code, result.parameter, result.position?.offset], ['limit_exceeded', parameter, offset]);
      assert.ok(result.message.includes(budget), result.message);
      assert.is(result.status, 400);
      assert.is(calls.length, 0, 'no query ran');
    });
  }

  test('apply() checks the budget too: the defaults, or options.limits', async ({ em }) => {
    const bound = bookPolicy.bind(em);
    const parsed = parseHTTP({ filter: or(6) });
    // On SQLite the third crosses what one statement may need (3/8 of maxSubqueries, of 8 at least).
    const crossing = dialect === 'sqlite' ? nth(2) : nth(5);
    try {
      apply(baseOf(em, 'books'), bound, parsed);
      assert.unreachable('6 quantifiers (9) must be refused');
    } catch (err) {
      if (!isListError(err)) throw err;
      assert.equal([err.code, err.parameter, err.position?.offset], ['limit_exceeded', 'filter', crossing]);
    }
    const limits = { maxSubqueries: dialect === 'sqlite' ? 24 : 9 };
    const rows = await execute(apply(baseOf(em, 'books'), bound, parsed, { limits }));
    assert.ok(rows.length > 0);
  });

  test('describe() and toOpenAPI() report the budget', ({ em }) => {
    const engine = createEngine(em, { policy: bookPolicy, limits: { maxSortJoins: 1 } });
    const { limits } = engine.describe();
    assert.equal(
      [limits.maxSubqueries, limits.maxSubqueryDepth, limits.maxSortJoins, limits.maxInValuesTotal],
      [DEFAULT_LIMITS.maxSubqueries, DEFAULT_LIMITS.maxSubqueryDepth, 1, DEFAULT_LIMITS.maxInValuesTotal],
    );
    const doc = JSON.stringify(toOpenAPI(engine.describe(), { path: '/books', title: 'Books', version: '1' }));
    assert.ok(doc.includes(`at most ${DEFAULT_LIMITS.maxSubqueries} relationship sub-queries`), doc);
    assert.ok(doc.includes('At most 1 relations may be sorted through'));
  });

  test('the budget settings are validated like every limit', ({ em }) => {
    for (const bad of [0, -1, 1.5]) {
      try {
        createEngine(em, { policy: bookPolicy, limits: { maxSubqueries: bad } });
        assert.unreachable(`maxSubqueries ${bad}`);
      } catch (err) {
        if (!isListError(err)) throw err;
        assert.is(err.code, 'invalid_schema');
        assert.ok(err.message.includes('limits.maxSubqueries'), err.message);
      }
    }
  });
});
