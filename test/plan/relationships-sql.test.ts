/**
 * The SQL relationship requests compile to, per dialect: correlated EXISTS / NOT EXISTS sub-queries (never a join
 * into the root for a filter), LEFT JOINs for to-one sorts (one per distinct path), generated aliases that skip
 * table names and the base scope's aliases, filter conditions and client literals as bound parameters, counts
 * that count each root row once, and what apply() does with filters it cannot compute synchronously.
 * Each statement is stated once (helpers/sql.ts renders it per dialect) and then run.
 */
import type { EntityManager } from '@mikro-orm/core';
import type { QueryBuilder } from '@mikro-orm/sql';
import { test as unit } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveQuery } from '../../src/bind/index.ts';
import { execute, executeCount } from '../../src/engine/execute.ts';
import { isListError } from '../../src/errors.ts';
import {
  type ApplyOptions,
  apply,
  applyFilter,
  createAliasGenerator,
  planResolved,
  prepareFilters,
} from '../../src/plan/index.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { Book, libraryEntities, libraryOptions, Review, seedLibrary, useTenant } from '../fixtures/library.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { bookPolicy } from '../helpers/library-policies.ts';
import { ROOTS, type Root } from '../helpers/library-run.ts';
import { expectSql, id, nullsLast, type Sql, selectFrom, sql } from '../helpers/sql.ts';

/** Plan a request on a base scope without root filters, so the SQL shows only what the planner adds. */
async function planned(em: EntityManager, root: Root, values: Record<string, string>, base?: QueryBuilder<any>) {
  const r = ROOTS[root];
  const bound = r.policy.bind(em);
  const resolved = resolveQuery(bound, parseHTTP(values));
  const qb = base ?? ((em as any).createQueryBuilder(r.entity, r.alias) as QueryBuilder<any>);
  return planResolved(qb, bound, resolved, { filterConditions: await prepareFilters(qb, bound, resolved) });
}

interface ShapeRow {
  readonly name: string;
  readonly root: Root;
  readonly values: Record<string, string>;
  readonly sql: Sql;
  readonly params: readonly unknown[];
}

// Table `lq1` (Tag) and pivot `lq3` exist, so the generator hands out lq2, lq4, lq5 …
const SHAPES: readonly ShapeRow[] = [
  {
    name: 'm:1 path: EXISTS correlated on the FK, with the target soft-delete filter',
    root: 'book',
    values: { filter: "author/name eq 'Ann'" },
    sql: sql`${selectFrom('book', 'b')} where (exists (select 1 from ${id('author')} as ${id('lq2')} where (${id('lq2.id')} = ${id('b.author_id')}) and ${id('lq2.deleted_at')} is null and (${id('lq2.name')} = ?))) order by ${id('b.id')} asc limit ?`,
    params: ['Ann', 20],
  },
  {
    name: 'multi-hop path through a composite FK: nested EXISTS, every key column compared',
    root: 'book',
    values: { filter: "publisher/country/code eq 'US'" },
    sql: sql`${selectFrom('book', 'b')} where (exists (select 1 from ${id('publisher')} as ${id('lq2')} where (${id('lq2.tenant')} = ${id('b.publisher_tenant')} and ${id('lq2.id')} = ${id('b.publisher_id')}) and ${id('lq2.deleted_at')} is null and (exists (select 1 from ${id('country')} as ${id('lq4')} where (${id('lq4.code')} = ${id('lq2.country_code')}) and ${id('lq4.deleted_at')} is null and (${id('lq4.code')} = ?))))) order by ${id('b.id')} asc limit ?`,
    params: ['US', 20],
  },
  {
    name: "1:1 inverse: correlated through the owner's join column",
    root: 'profile',
    values: { filter: "author/name eq 'Ann'" },
    sql: sql`${selectFrom('profile', 'p')} where (exists (select 1 from ${id('author')} as ${id('lq2')} where (${id('lq2.profile_id')} = ${id('p.id')}) and ${id('lq2.deleted_at')} is null and (${id('lq2.name')} = ?))) order by ${id('p.id')} asc limit ?`,
    params: ['Ann', 20],
  },
  {
    name: '1:m any: EXISTS over the children',
    root: 'book',
    values: { filter: 'reviews/any(r: r/stars eq 5)' },
    sql: sql`${selectFrom('book', 'b')} where (exists (select 1 from ${id('review')} as ${id('lq2')} where (${id('lq2.book_id')} = ${id('b.id')}) and ${id('lq2.deleted_at')} is null and (${id('lq2.stars')} = ?))) order by ${id('b.id')} asc limit ?`,
    params: [5, 20],
  },
  {
    name: '1:m all: NOT EXISTS over the children where the predicate IS NOT TRUE',
    root: 'book',
    values: { filter: 'reviews/all(r: r/stars gte 3)' },
    sql: sql`${selectFrom('book', 'b')} where (not exists (select 1 from ${id('review')} as ${id('lq2')} where (${id('lq2.book_id')} = ${id('b.id')}) and ${id('lq2.deleted_at')} is null and ((${id('lq2.stars')} >= ?) is not true))) order by ${id('b.id')} asc limit ?`,
    params: [3, 20],
  },
  {
    name: 'not any',
    root: 'book',
    values: { filter: 'not reviews/any(r: r/stars eq 5)' },
    sql: sql`${selectFrom('book', 'b')} where (not (exists (select 1 from ${id('review')} as ${id('lq2')} where (${id('lq2.book_id')} = ${id('b.id')}) and ${id('lq2.deleted_at')} is null and (${id('lq2.stars')} = ?)))) order by ${id('b.id')} asc limit ?`,
    params: [5, 20],
  },
  {
    name: 'm:n owner: the pivot correlated, the target joined inside the sub-query with its filter in the ON',
    root: 'book',
    values: { filter: "tags/any(t: t/label eq 'red')" },
    sql: sql`${selectFrom('book', 'b')} where (exists (select 1 from ${id('lq3')} as ${id('lq2')} inner join ${id('lq1')} as ${id('lq4')} on ${id('lq2.tag_id')} = ${id('lq4.id')} and ${id('lq4.deleted_at')} is null where (${id('lq2.book_id')} = ${id('b.id')}) and (${id('lq4.label')} = ?))) order by ${id('b.id')} asc limit ?`,
    params: ['red', 20],
  },
  {
    name: 'm:n inverse: the same pivot, columns swapped',
    root: 'tag',
    values: { filter: "books/any(b: b/title eq 'Theta')" },
    sql: sql`${selectFrom('lq1', 't')} where (exists (select 1 from ${id('lq3')} as ${id('lq2')} inner join ${id('book')} as ${id('lq4')} on ${id('lq2.book_id')} = ${id('lq4.id')} and ${id('lq4.deleted_at')} is null where (${id('lq2.tag_id')} = ${id('t.id')}) and (${id('lq4.title')} = ?))) order by ${id('t.id')} asc limit ?`,
    params: ['Theta', 20],
  },
  {
    name: 'a to-one hop before all: the hop sits inside the NOT EXISTS',
    root: 'book',
    values: { filter: 'author/books/all(b: b/price gte 10)' },
    sql: sql`${selectFrom('book', 'b')} where (not exists (select 1 from ${id('author')} as ${id('lq2')} where (${id('lq2.id')} = ${id('b.author_id')}) and ${id('lq2.deleted_at')} is null and (exists (select 1 from ${id('book')} as ${id('lq4')} where (${id('lq4.author_id')} = ${id('lq2.id')}) and ${id('lq4.deleted_at')} is null and ((${id('lq4.price')} >= ?) is not true))))) order by ${id('b.id')} asc limit ?`,
    params: [10, 20],
  },
  {
    name: 'nested quantifiers: the outer variable is the outer sub-query alias',
    root: 'author',
    values: { filter: 'books/any(b: b/reviews/any(r: r/stars gte 4 and b/price gt 10))' },
    sql: sql`${selectFrom('author', 'a')} where (exists (select 1 from ${id('book')} as ${id('lq2')} where (${id('lq2.author_id')} = ${id('a.id')}) and ${id('lq2.deleted_at')} is null and (exists (select 1 from ${id('review')} as ${id('lq4')} where (${id('lq4.book_id')} = ${id('lq2.id')}) and ${id('lq4.deleted_at')} is null and ((${id('lq4.stars')} >= ? and ${id('lq2.price')} > ?)))))) order by ${id('a.id')} asc limit ?`,
    params: [4, 10, 20],
  },
  {
    name: '1:m to a composite key: both FK columns correlated',
    root: 'publisher',
    values: { filter: "books/any(b: b/title eq 'Eta')" },
    sql: sql`${selectFrom('publisher', 'pub')} where (exists (select 1 from ${id('book')} as ${id('lq2')} where (${id('lq2.publisher_tenant')} = ${id('pub.tenant')} and ${id('lq2.publisher_id')} = ${id('pub.id')}) and ${id('lq2.deleted_at')} is null and (${id('lq2.title')} = ?))) order by ${id('pub.tenant')} asc, ${id('pub.id')} asc limit ?`,
    params: ['Eta', 20],
  },
  {
    name: 'self-reference 1:m',
    root: 'category',
    values: { filter: "children/any(c: c/name eq 'poetry')" },
    sql: sql`${selectFrom('category', 'c')} where (exists (select 1 from ${id('category')} as ${id('lq2')} where (${id('lq2.parent_id')} = ${id('c.id')}) and ${id('lq2.deleted_at')} is null and (${id('lq2.name')} = ?))) order by ${id('c.id')} asc limit ?`,
    params: ['poetry', 20],
  },
  {
    name: 'to-one sort: LEFT JOINs with the filters in the ON clause, NULLS LAST, PK tie-breaker',
    root: 'book',
    values: { sort: 'publisher/country/code,-price' },
    sql: sql`${selectFrom('book', 'b')} left join ${id('publisher')} as ${id('lq2')} on ${id('b.publisher_tenant')} = ${id('lq2.tenant')} and ${id('b.publisher_id')} = ${id('lq2.id')} and ${id('lq2.deleted_at')} is null left join ${id('country')} as ${id('lq4')} on ${id('lq2.country_code')} = ${id('lq4.code')} and ${id('lq4.deleted_at')} is null order by ${nullsLast('lq4.code', 'asc')}, ${nullsLast('b.price', 'desc')}, ${id('b.id')} asc limit ?`,
    params: [20],
  },
  {
    name: 'one join per distinct path; NOT NULL columns through a join still sort NULLS LAST',
    root: 'book',
    values: { sort: 'author/name,author/id' },
    sql: sql`${selectFrom('book', 'b')} left join ${id('author')} as ${id('lq2')} on ${id('b.author_id')} = ${id('lq2.id')} and ${id('lq2.deleted_at')} is null order by ${nullsLast('lq2.name', 'asc')}, ${nullsLast('lq2.id', 'asc')}, ${id('b.id')} asc limit ?`,
    params: [20],
  },
  {
    name: 'self-referencing sort join: the filter is on the joined row, not the root',
    root: 'category',
    values: { sort: 'parent/name' },
    sql: sql`${selectFrom('category', 'c')} left join ${id('category')} as ${id('lq2')} on ${id('c.parent_id')} = ${id('lq2.id')} and ${id('lq2.deleted_at')} is null order by ${nullsLast('lq2.name', 'asc')}, ${id('c.id')} asc limit ?`,
    params: [20],
  },
];

unit('the alias generator skips taken names, without case', () => {
  const next = createAliasGenerator(['lq1', 'LQ3', 'b']);
  assert.equal([next(), next(), next()], ['lq2', 'lq4', 'lq5']);
  const fresh = createAliasGenerator();
  assert.equal([fresh(), fresh()], ['lq1', 'lq2']);
});
unit.run();

eachDialect(
  'relationships: SQL',
  { entities: libraryEntities, seed: seedLibrary, options: libraryOptions },
  (test, dialect) => {
    for (const row of SHAPES) {
      test(row.name, async ({ em }) => {
        const { qb } = await planned(em, row.root, row.values);
        expectSql(qb.getQuery(), row.sql, dialect);
        assert.equal(qb.getParams(), row.params);
        await execute(qb); // the stated SQL runs
      });
    }

    test('generated aliases skip the table lq1, the pivot lq3 and the base scope aliases lq2 and lq4', async ({
      em,
    }) => {
      const base = (em as any).createQueryBuilder(Book, 'lq2').leftJoin('lq2.author', 'lq4');
      const { qb } = await planned(
        em,
        'book',
        { filter: "tags/any(t: t/label eq 'red')", sort: 'publisher/name' },
        base,
      );
      const baseJoin = sql`left join ${id('author')} as ${id('lq4')} on ${id('lq2.author_id')} = ${id('lq4.id')}`;
      const sortJoin = sql`left join ${id('publisher')} as ${id('lq7')} on ${id('lq2.publisher_tenant')} = ${id('lq7.tenant')} and ${id('lq2.publisher_id')} = ${id('lq7.id')} and ${id('lq7.deleted_at')} is null`;
      const tagged = sql`exists (select 1 from ${id('lq3')} as ${id('lq5')} inner join ${id('lq1')} as ${id('lq6')} on ${id('lq5.tag_id')} = ${id('lq6.id')} and ${id('lq6.deleted_at')} is null where (${id('lq5.book_id')} = ${id('lq2.id')}) and (${id('lq6.label')} = ?))`;
      expectSql(
        qb.getQuery(),
        sql`${selectFrom('book', 'lq2')} ${baseJoin} ${sortJoin} where (${tagged}) order by ${nullsLast('lq7.name', 'asc')}, ${id('lq2.id')} asc limit ?`,
        dialect,
      );
      // Books 1 (Penguin) and 8 (Gallimard, publisher names sort G < P), and 6 is soft-deleted but the root
      // filters were not applied here, so it stays: red is on 1, 6 and 8; 6 has no publisher (NULL, last).
      const rows = await execute<Book>(qb);
      assert.equal(
        rows.map((b) => b.id),
        [8, 1, 6],
      );
    });

    test('sort keys through a join carry its alias and are nullable; the PK tie-breaker stays', async ({ em }) => {
      const { sort } = await planned(em, 'book', { sort: '-author/name,title' });
      assert.equal(
        sort.map(({ column, alias, direction, nullable, term }) => ({
          column,
          alias,
          direction,
          nullable,
          term: term !== undefined,
        })),
        [
          { column: 'name', alias: 'lq2', direction: 'desc', nullable: true, term: true },
          { column: 'title', alias: undefined, direction: 'asc', nullable: false, term: true },
          { column: 'id', alias: undefined, direction: 'asc', nullable: false, term: false },
        ],
      );
    });

    test('the base scope is neither changed nor finalized by joins and sub-queries', async ({ em }) => {
      const base = (em as any).createQueryBuilder(Book, 'b').where({ tenant: 1 }) as QueryBuilder<any>;
      const before = base.clone().getQuery();
      await planned(em, 'book', { filter: 'reviews/any(r: r/stars gt 1)', sort: 'author/name' }, base);
      assert.is(base.clone().getQuery(), before);
      base.andWhere({ id: 1 }); // throws if finalized
    });

    test('filter parameters and client literals reach the driver as bound values, never as SQL text', async ({
      em,
    }) => {
      useTenant(em, 1);
      const r = ROOTS.book;
      const bound = r.policy.bind(em);
      const options = { labelled: { not: 'blue' } };
      const resolved = resolveQuery(
        bound,
        parseHTTP({ filter: "tags/any(t: t/label eq 'red') or author/name eq 'O''Hara'", sort: 'publisher/name' }),
      );
      const base = (em as any).createQueryBuilder(Book, 'b') as QueryBuilder<any>;
      await base.applyFilters(options);
      const filterConditions = await prepareFilters(base, bound, resolved, options);
      const { qb } = planResolved(base, bound, resolved, { filterConditions });
      const { result, calls } = await captureDriver(() => execute<Book>(qb));
      const sent = calls.filter((c) => c.sql.includes('book'));
      assert.is(sent.length, 1);
      const call = sent[0]!;
      for (const literal of ['red', 'blue', "O'Hara", 'Hara'])
        assert.not.ok(call.sql.includes(literal), `${literal} in SQL: ${call.sql}`);
      assert.not.ok(call.sql.includes("'"), call.sql);
      // The sort join's tenant, the root's tenant, the tag filter's argument, the literal, the author sub-query's
      // tenant, the literal, the limit: every value is a parameter, in the order of its placeholder.
      assert.equal(call.values, [1, 1, 'blue', 'red', 1, "O'Hara", 20]);
      // Tenant 1, red and not blue: books 1 and 8; sorted by publisher: Gallimard (8), Penguin (1).
      assert.equal(
        result.map((b) => b.id),
        [8, 1],
      );
    });

    test('count: several matching children count the root once, with no join', async ({ em }) => {
      const bound = bookPolicy.bind(em);
      const resolved = resolveQuery(bound, parseHTTP({ filter: 'reviews/any(r: r/stars gte 3)' }));
      const counter = (em as any).createQueryBuilder(Book, 'b') as QueryBuilder<any>;
      await counter.applyFilters();
      applyFilter(counter, bound, resolved.filter!, {
        filterConditions: await prepareFilters(counter, bound, resolved),
      });
      const { result, calls } = await captureDriver(() => executeCount(counter));
      // Books 1 (reviews 1 and 2 both match), 2, 3, 7, 8: five roots, six matching reviews.
      assert.is(result, 5);
      const sql = calls.find((c) => c.sql.includes('book'))!.sql;
      assert.not.ok(/ join /.test(sql), sql);
      assert.ok(sql.includes('exists ('), sql);
      const reviews = await (em as any)
        .createQueryBuilder(Review, 'r')
        .where({ stars: { $gte: 3 }, deletedAt: null })
        .getCount();
      assert.is(Number(reviews), 6);
    });

    test('prepareFilters without a query prepares every relation the policy exposes', async ({ em }) => {
      const bound = bookPolicy.bind(em);
      const all = await prepareFilters(em, bound);
      // book: author, publisher, category, reviews, tags; author: books; publisher: country;
      // category: parent, children (each a distinct property).
      assert.is(all.byRelation.size, 9);
      for (const cond of all.byRelation.values()) assert.equal(cond, { deletedAt: null });
      const none = await prepareFilters(em, bound, undefined, false);
      for (const cond of none.byRelation.values()) assert.is(cond, undefined);
    });

    for (const [name, options, code] of [
      [
        'apply() refuses an asynchronous filter condition it cannot await',
        { filters: { labelled: { not: 'red' } } },
        'invalid_schema',
      ],
    ] as const) {
      test(name, ({ em }) => {
        const base = (em as any).createQueryBuilder(Book, 'b');
        try {
          apply(base, bookPolicy.bind(em), parseHTTP({ filter: 'tags/any(t: t/id gt 0)' }), options as ApplyOptions);
          assert.unreachable('no error');
        } catch (err) {
          if (!isListError(err)) throw err;
          assert.is(err.code, code);
        }
      });
    }

    test('apply() sees em.addFilter filters only through prepared filterConditions (documented)', async ({ em }) => {
      useTenant(em, 1);
      const bound = bookPolicy.bind(em);
      const parsed = parseHTTP({ filter: 'reviews/any(r: r/tenant eq 2)' });
      const base = (em as any).createQueryBuilder(Book, 'b').where({ id: 8 });
      // Review 9 (tenant 2) belongs to book 8: without the tenant filter it matches.
      const unprepared = await execute<Book>(apply(base, bound, parsed));
      assert.equal(
        unprepared.map((b) => b.id),
        [8],
      );
      const filterConditions = await prepareFilters(base, bound);
      const prepared = await execute<Book>(apply(base, bound, parsed, { filterConditions }));
      assert.equal(prepared, []);
    });
  },
);
