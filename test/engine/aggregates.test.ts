/**
 * Aggregates in filter and sort over the library fixture (test/fixtures/library.ts), on every dialect: count, sum,
 * avg, min and max of to-many relations (1:m, m:n, through a to-one hop, inside any/all), with the related rows'
 * MikroORM filters (soft delete, tenant) applied inside, inner filters, the semantics of no related rows (count 0, the
 * others NULL), values bound as parameters, the policy's opt-in and the errors a client sees. Expected keys are
 * written by hand from the seed table.
 */
import type { FilterOptions } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { toOpenAPI } from '../../src/index.ts';
import { filterable, type Policy, schema, sortable } from '../../src/policy/index.ts';
import {
  Author,
  Book,
  libraryEntities,
  libraryOptions,
  Review,
  seedLibrary,
  Tag,
  useTenant,
} from '../fixtures/library.ts';
import { eachDialect } from '../helpers/db.ts';

const f = filterable();
const s = sortable();
const review = schema(Review).expose('id', f, s).expose('stars', f, s).expose('tenant', f, s);
const tag = schema(Tag).expose('id', f, s).expose('label', f, s);
const EVERY = { count: true, sum: ['stars'], avg: ['stars'], min: ['stars'], max: ['stars'] } as const;
const bookOfAuthor = schema(Book)
  .expose('id', f, s)
  .expose('title', f, s)
  .relation('reviews', review, { aggregates: EVERY });
const authorOfBook = schema(Author)
  .expose('id', f, s)
  .expose('name', f, s)
  .relation('books', schema(Book).expose('id', f, s), { aggregates: { count: true } });

/** Books: reviews with every aggregate, tags with count, the author's books counted through a to-one hop. */
const bookPolicy: Policy = schema(Book)
  .expose('id', f, s)
  .expose('title', f, s)
  .expose('price', f, s)
  .relation('reviews', review, { aggregates: EVERY })
  .relation('tags', tag, { aggregates: { count: true, min: ['label'] } })
  .relation('author', authorOfBook);

/** Authors: their books' reviews counted inside books/any(…). */
const authorPolicy: Policy = schema(Author)
  .expose('id', f, s)
  .expose('name', f, s)
  .relation('books', bookOfAuthor, { aggregates: { count: true } });

const ALL_ROWS: FilterOptions = { softDelete: false };
/** A budget that admits aggregate sort keys: one weighs 9 units on every page, over the default 8 (src/bind/cost.ts). */
const SORTING = { maxSubqueries: 64 };

interface Row {
  readonly root?: 'book' | 'author';
  readonly filter?: string;
  readonly sort?: string;
  readonly filters?: FilterOptions;
  readonly tenant?: number;
  readonly keys: readonly number[];
}

// Live reviews per live book (stars): 1: 5, 3 · 2: NULL, 4 · 3: 5 (review 5 deleted) · 4, 5: none · 7: 5 (tenant 2) ·
// 8: 1, 5 (tenant 2). Book 6 is deleted. Counts 2, 2, 1, 0, 0, 1, 2; sums 8, 4, 5, -, -, 5, 6; averages 4, 4, 5, -, -, 5, 3.
const ROWS: readonly Row[] = [
  { filter: 'reviews/count() gt 1', keys: [1, 2, 8] },
  { filter: 'reviews/count() eq 0', keys: [4, 5] },
  { filter: 'not reviews/count() gt 0', keys: [4, 5] },
  { filter: 'reviews/count() in (0, 1)', keys: [3, 4, 5, 7] },
  { filter: 'reviews/count() not in (0, 1)', keys: [1, 2, 8] },
  { filter: 'reviews/count() lt 1.5', keys: [3, 4, 5, 7] },
  // Soft-deleted reviews count when the filter is off (book 3: two; book 6 itself is listed then).
  { filter: 'reviews/count() eq 2', filters: ALL_ROWS, keys: [1, 2, 3, 8] },
  // The tenant filter applies inside: book 8 keeps one review of tenant 1 (and book 7, of tenant 2, is not listed).
  { filter: 'reviews/count() eq 1', tenant: 1, keys: [3, 8] },
  { filter: 'reviews/sum(stars) gte 5', keys: [1, 3, 7, 8] },
  { filter: 'reviews/sum(stars) is null', keys: [4, 5] },
  { filter: 'reviews/avg(stars) eq 4', keys: [1, 2] },
  { filter: 'reviews/avg(stars) gt 4.5', keys: [3, 7] },
  { filter: 'reviews/avg(stars) lte 3', keys: [8] },
  { filter: 'reviews/min(stars) in (1, 3)', keys: [1, 8] },
  { filter: 'reviews/max(stars) is null', keys: [4, 5] },
  { filter: 'reviews/max(stars) is not null and reviews/min(stars) gte 4', keys: [2, 3, 7] },
  // Inner filters, in quantifier form.
  { filter: 'reviews/count(r: r/stars gte 4) eq 1', keys: [1, 2, 3, 7, 8] },
  { filter: 'reviews/count(r: r/stars is null) eq 1', keys: [2] },
  { filter: 'reviews/count(r: r/stars in (1, 3)) gt 0', keys: [1, 8] },
  { filter: 'reviews/avg(stars, r: r/stars gt 1) eq 5', keys: [3, 7, 8] },
  { filter: 'reviews/sum(stars, r: r/tenant eq 2) eq 5', keys: [7, 8] },
  // m:n through the pivot: green (deleted) is not counted. min of a string field.
  { filter: 'tags/count() eq 2', keys: [1] },
  { filter: 'tags/count() eq 0', keys: [3, 4, 5, 7] },
  { filter: "tags/min(label) eq 'blue'", keys: [1, 2] },
  // Through a to-one hop: the author's live books. Book 5's author is deleted: no row, count 0.
  { filter: 'author/books/count() gt 1', keys: [1, 2, 4, 8] },
  { filter: 'author/books/count() eq 0', keys: [5] },
  // Inside any/all, relative to the variable.
  { root: 'author', filter: 'books/any(b: b/reviews/count() gt 1)', keys: [1, 3] },
  { root: 'author', filter: 'books/count() gt 1', keys: [1, 3] },
  { root: 'author', filter: 'books/all(b: b/reviews/count() gte 1)', keys: [1, 2, 5] },
  // Sorts: the primary key breaks ties; NULL (no reviews) sorts last unless asked.
  { sort: '-reviews/count()', keys: [1, 2, 8, 3, 7, 4, 5] },
  { sort: 'reviews/count(),-id', keys: [5, 4, 7, 3, 8, 2, 1] },
  { sort: '-reviews/avg(stars)', keys: [3, 7, 1, 2, 8, 4, 5] },
  { sort: 'reviews/avg(stars):nullsfirst', keys: [4, 5, 8, 1, 2, 3, 7] },
  { sort: '-reviews/max(stars):nullsfirst,reviews/sum(stars)', keys: [4, 5, 3, 7, 8, 1, 2] },
  { sort: '-reviews/count(r: r/stars in (4, 5)),id', keys: [1, 2, 3, 7, 8, 4, 5] },
  { sort: '-tags/count(),title', filter: 'id lt 5', keys: [1, 2, 4, 3] },
  { sort: '-author/books/count(),id', keys: [1, 2, 4, 8, 3, 7, 5] },
];

function rowLabel(row: Row): string {
  const parts = [row.root ?? 'book', row.filter && `filter=${row.filter}`, row.sort && `sort=${row.sort}`];
  if (row.filters) parts.push(`filters=${JSON.stringify(row.filters)}`);
  if (row.tenant !== undefined) parts.push(`tenant ${row.tenant}`);
  return parts.filter(Boolean).join(' ');
}

async function refusal(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    if (!isListError(error)) throw error;
    return { code: error.code, parameter: error.parameter, offset: error.position?.offset, message: error.message };
  }
  throw new Error('test: expected a refusal');
}

eachDialect(
  'aggregates in filter and sort',
  { entities: libraryEntities, seed: seedLibrary, options: libraryOptions },
  (test) => {
    const list = async (db: { orm: any }, em: any, row: Row) => {
      const author = row.root === 'author';
      const engine = createEngine(db.orm, {
        policy: author ? authorPolicy : bookPolicy,
        maxLimit: 50,
        limits: SORTING,
      });
      if (row.tenant !== undefined) useTenant(em, row.tenant);
      const base = em.createQueryBuilder(author ? Author : Book, author ? 'a' : 'b');
      const scoped = engine.from(base, row.filters === undefined ? {} : { filters: row.filters });
      const query = { ...(row.filter ? { filter: row.filter } : {}), ...(row.sort ? { sort: row.sort } : {}) };
      return { scoped, page: await scoped.list(query) };
    };

    for (const row of ROWS)
      test(rowLabel(row), async ({ db, em }) => {
        const { page } = await list(db, em, row);
        const keys = page.items.map((i) => i['id']);
        assert.equal(row.sort ? keys : [...keys].sort((a, b) => Number(a) - Number(b)), row.keys);
      });

    test('the same request sent again (the request memo, compiled statements) gives the same answer', async ({
      db,
      em,
    }) => {
      // Sent three times on one scope: the second sending makes the memo, the third uses it.
      for (const row of ROWS.filter((r) => r.tenant === undefined && r.filters === undefined)) {
        const { scoped, page } = await list(db, em, row);
        const query = { ...(row.filter ? { filter: row.filter } : {}), ...(row.sort ? { sort: row.sort } : {}) };
        for (let i = 0; i < 2; i++) assert.equal(await scoped.list({ ...query }), page, rowLabel(row));
      }
    });

    test('client values are bound parameters, in the filter, the select list and the ORDER BY', async ({ db, em }) => {
      const engine = createEngine(db.orm, { policy: bookPolicy, limits: SORTING });
      const scoped = engine.from((em as any).createQueryBuilder(Book, 'b'));
      const filter = 'reviews/count(r: r/stars eq 98765) lt 12345 and reviews/avg(stars) lt 54321.5';
      const sort = '-reviews/count(r: r/stars eq 97531)';
      const filtered = (await scoped.explain({ filter })).data!;
      const sorted = (await scoped.explain({ sort })).data!;
      for (const value of ['98765', '12345', '54321', '97531'])
        assert.not.ok(filtered.sql.includes(value) || sorted.sql.includes(value), value);
      const params = filtered.params.map(String);
      for (const value of ['98765', '12345', '54321.5']) assert.ok(params.includes(value), `${value} in ${params}`);
      // The sort key's sub-query stands in the select list (its cursor value) and in the ORDER BY.
      const twice = sorted.params.map(String).filter((p) => p === '97531');
      assert.is(twice.length, 2, `the sort value twice in ${sorted.params}`);
      // On SQLite one statement may hold one filter aggregate and one sort aggregate (the cost budget's share).
      const page = await scoped.list({ filter: 'reviews/count(r: r/stars eq 98765) lt 12345', sort });
      assert.equal(
        page.items.map((i) => i['id']),
        [1, 2, 3, 4, 5, 7, 8],
      );
    });

    test('the policy opts in per relation and per aggregate; errors carry the codes and positions of fields', async ({
      db,
      em,
    }) => {
      const engine = createEngine(db.orm, { policy: bookPolicy });
      const run = (query: Record<string, string>) =>
        refusal(() => engine.from((em as any).createQueryBuilder(Book, 'b')).list(query));
      // tags allow count and min(label) only; author is to-one; title is a field.
      const rows: [Record<string, string>, string, number][] = [
        [{ filter: 'tags/sum(label) gt 1' }, 'field_not_filterable', 0],
        [{ filter: 'tags/avg(id) gt 1' }, 'field_not_filterable', 0],
        [{ filter: 'reviews/avg(strs) gt 1' }, 'unknown_field', 12],
        [{ filter: 'author/count() gt 1' }, 'invalid_relationship', 0],
        [{ filter: 'title/count() gt 1' }, 'invalid_relationship', 0],
        [{ filter: 'nope/count() gt 1' }, 'invalid_relationship', 0],
        [{ filter: 'reviews/count() is null' }, 'operator_not_allowed', 16],
        [{ filter: "reviews/count() contains 'x'" }, 'operator_not_allowed', 16],
        [{ filter: "reviews/count() eq 'x'" }, 'invalid_literal', 19],
        [{ filter: "reviews/max(stars) eq 'x'" }, 'invalid_literal', 22],
        [{ sort: 'tags/sum(label)' }, 'field_not_sortable', 0],
        [{ sort: '-reviews/count():ci' }, 'field_not_sortable', 0],
        [{ sort: 'id,reviews/count(r: r/nope eq 1)' }, 'unknown_field', 22],
        [{ sort: 'reviews/count(r: r/stars eq)' }, 'invalid_parameter', 27],
        [{ sort: '-reviews/count(),reviews/count()' }, 'invalid_parameter', 17],
      ];
      for (const [query, code, offset] of rows) {
        const error = await run(query);
        assert.equal(
          [error.code, error.parameter, error.offset],
          [code, Object.keys(query)[0], offset],
          JSON.stringify(query),
        );
      }
      const suggested = await run({ filter: 'reviews/avg(star) gt 1' });
      assert.match(suggested.message, "did you mean 'stars'?");
      const listed = await run({ filter: 'tags/max(label) gt 1' });
      assert.match(listed.message, 'allowed: tags/count(), tags/min(label)');
    });

    test('describe(), index advice and OpenAPI know the aggregates', ({ db }) => {
      const engine = createEngine(db.orm, { policy: bookPolicy });
      const described = engine.describe();
      const reviews = described.relations.find((r) => r.name === 'reviews');
      assert.equal(reviews?.aggregates, [
        'reviews/count()',
        'reviews/sum(stars)',
        'reviews/avg(stars)',
        'reviews/min(stars)',
        'reviews/max(stars)',
      ]);
      assert.equal(described.relations.find((r) => r.name === 'tags')?.aggregates, ['tags/count()', 'tags/min(label)']);
      assert.is(described.relations.find((r) => r.name === 'author')?.aggregates, undefined);
      const advice = engine.indexes().find((a) => a.table === 'review' && a.columns.length === 2);
      assert.equal(
        advice?.columns.map((c) => c.column),
        ['book_id', 'stars'],
      );
      assert.match(advice!.serves, 'reviews/avg(stars)');
      const doc = JSON.stringify(toOpenAPI(described, { path: '/books', title: 'Books', version: '1.0.0' }));
      assert.match(doc, 'reviews/count(), reviews/sum(stars)');
    });

    test('a policy refuses aggregates on a to-one relation and fields it does not expose or cannot aggregate', ({
      db,
    }) => {
      const bad = [
        schema(Book).relation('author', schema(Author).expose('id'), { aggregates: { count: true } }),
        // The types refuse a field the nested policy does not expose; bind refuses it too, for untyped callers.
        schema(Book).relation('reviews', review, { aggregates: { sum: ['nope'] } } as never),
        schema(Book).relation('tags', tag, { aggregates: { avg: ['label'] } }),
      ];
      for (const policy of bad) {
        try {
          policy.bind(db.orm);
          assert.unreachable('bound');
        } catch (error) {
          assert.ok(isListError(error) && error.code === 'invalid_schema', String(error));
        }
      }
    });
  },
);
