/**
 * The SQL relationship requests compile to, per dialect: correlated EXISTS / NOT EXISTS sub-queries (never a join
 * into the root for a filter), LEFT JOINs for to-one sorts (one per distinct path), generated aliases that skip
 * table names and the base scope's aliases, filter conditions and client literals as bound parameters, counts
 * that count each root row once, and what apply() does with filters it cannot compute synchronously.
 * Expected SQL is written with PostgreSQL quotes; SQLite's platform quotes with backticks.
 */
import type { EntityManager } from '@mikro-orm/core';
import type { QueryBuilder } from '@mikro-orm/sql';
import { test as unit } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveQuery } from '../src/bind/index.ts';
import { execute, executeCount } from '../src/engine/execute.ts';
import { isListError } from '../src/errors.ts';
import {
  type ApplyOptions,
  apply,
  applyFilter,
  createAliasGenerator,
  planResolved,
  prepareFilters,
} from '../src/plan/index.ts';
import { parseHTTP } from '../src/syntax/index.ts';
import { Book, libraryEntities, libraryOptions, Review, seedLibrary, useTenant } from './fixtures/library.ts';
import { captureDriver } from './helpers/capture.ts';
import { type Dialect, eachDialect } from './helpers/db.ts';
import { bookPolicy } from './helpers/library-policies.ts';
import { ROOTS, type Root } from './helpers/library-run.ts';

function quoted(sql: string, dialect: Dialect): string {
  if (dialect === 'postgresql') return sql;
  // MariaDB has no NULLS LAST and sorts NULL lowest: `desc nulls last` is a plain `desc`, `asc nulls last` is emulated.
  const ordered =
    dialect === 'mariadb'
      ? sql
          .replace(/("[^"]+"\."[^"]+") asc nulls last/g, '$1 is null, $1 asc')
          .replace(/("[^"]+"\."[^"]+") desc nulls last/g, '$1 desc')
      : sql;
  return ordered.replaceAll('"', '`');
}

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
  readonly sql: string;
  readonly params: readonly unknown[];
}

// Table `lq1` (Tag) and pivot `lq3` exist, so the generator hands out lq2, lq4, lq5 …
const SHAPES: readonly ShapeRow[] = [
  {
    name: 'm:1 path: EXISTS correlated on the FK, with the target soft-delete filter',
    root: 'book',
    values: { filter: "author/name eq 'Ann'" },
    sql: 'select "b".* from "book" as "b" where (exists (select 1 from "author" as "lq2" where ("lq2"."id" = "b"."author_id") and "lq2"."deleted_at" is null and ("lq2"."name" = ?))) order by "b"."id" asc limit ?',
    params: ['Ann', 20],
  },
  {
    name: 'multi-hop path through a composite FK: nested EXISTS, every key column compared',
    root: 'book',
    values: { filter: "publisher/country/code eq 'US'" },
    sql: 'select "b".* from "book" as "b" where (exists (select 1 from "publisher" as "lq2" where ("lq2"."tenant" = "b"."publisher_tenant" and "lq2"."id" = "b"."publisher_id") and "lq2"."deleted_at" is null and (exists (select 1 from "country" as "lq4" where ("lq4"."code" = "lq2"."country_code") and "lq4"."deleted_at" is null and ("lq4"."code" = ?))))) order by "b"."id" asc limit ?',
    params: ['US', 20],
  },
  {
    name: "1:1 inverse: correlated through the owner's join column",
    root: 'profile',
    values: { filter: "author/name eq 'Ann'" },
    sql: 'select "p".* from "profile" as "p" where (exists (select 1 from "author" as "lq2" where ("lq2"."profile_id" = "p"."id") and "lq2"."deleted_at" is null and ("lq2"."name" = ?))) order by "p"."id" asc limit ?',
    params: ['Ann', 20],
  },
  {
    name: '1:m any: EXISTS over the children',
    root: 'book',
    values: { filter: 'reviews/any(r: r/stars eq 5)' },
    sql: 'select "b".* from "book" as "b" where (exists (select 1 from "review" as "lq2" where ("lq2"."book_id" = "b"."id") and "lq2"."deleted_at" is null and ("lq2"."stars" = ?))) order by "b"."id" asc limit ?',
    params: [5, 20],
  },
  {
    name: '1:m all: NOT EXISTS over the children where the predicate IS NOT TRUE',
    root: 'book',
    values: { filter: 'reviews/all(r: r/stars gte 3)' },
    sql: 'select "b".* from "book" as "b" where (not exists (select 1 from "review" as "lq2" where ("lq2"."book_id" = "b"."id") and "lq2"."deleted_at" is null and (("lq2"."stars" >= ?) is not true))) order by "b"."id" asc limit ?',
    params: [3, 20],
  },
  {
    name: 'not any',
    root: 'book',
    values: { filter: 'not reviews/any(r: r/stars eq 5)' },
    sql: 'select "b".* from "book" as "b" where (not (exists (select 1 from "review" as "lq2" where ("lq2"."book_id" = "b"."id") and "lq2"."deleted_at" is null and ("lq2"."stars" = ?)))) order by "b"."id" asc limit ?',
    params: [5, 20],
  },
  {
    name: 'm:n owner: the pivot correlated, the target joined inside the sub-query with its filter in the ON',
    root: 'book',
    values: { filter: "tags/any(t: t/label eq 'red')" },
    sql: 'select "b".* from "book" as "b" where (exists (select 1 from "lq3" as "lq2" inner join "lq1" as "lq4" on "lq2"."tag_id" = "lq4"."id" and "lq4"."deleted_at" is null where ("lq2"."book_id" = "b"."id") and ("lq4"."label" = ?))) order by "b"."id" asc limit ?',
    params: ['red', 20],
  },
  {
    name: 'm:n inverse: the same pivot, columns swapped',
    root: 'tag',
    values: { filter: "books/any(b: b/title eq 'Theta')" },
    sql: 'select "t".* from "lq1" as "t" where (exists (select 1 from "lq3" as "lq2" inner join "book" as "lq4" on "lq2"."book_id" = "lq4"."id" and "lq4"."deleted_at" is null where ("lq2"."tag_id" = "t"."id") and ("lq4"."title" = ?))) order by "t"."id" asc limit ?',
    params: ['Theta', 20],
  },
  {
    name: 'a to-one hop before all: the hop sits inside the NOT EXISTS',
    root: 'book',
    values: { filter: 'author/books/all(b: b/price gte 10)' },
    sql: 'select "b".* from "book" as "b" where (not exists (select 1 from "author" as "lq2" where ("lq2"."id" = "b"."author_id") and "lq2"."deleted_at" is null and (exists (select 1 from "book" as "lq4" where ("lq4"."author_id" = "lq2"."id") and "lq4"."deleted_at" is null and (("lq4"."price" >= ?) is not true))))) order by "b"."id" asc limit ?',
    params: [10, 20],
  },
  {
    name: 'nested quantifiers: the outer variable is the outer sub-query alias',
    root: 'author',
    values: { filter: 'books/any(b: b/reviews/any(r: r/stars gte 4 and b/price gt 10))' },
    sql: 'select "a".* from "author" as "a" where (exists (select 1 from "book" as "lq2" where ("lq2"."author_id" = "a"."id") and "lq2"."deleted_at" is null and (exists (select 1 from "review" as "lq4" where ("lq4"."book_id" = "lq2"."id") and "lq4"."deleted_at" is null and (("lq4"."stars" >= ? and "lq2"."price" > ?)))))) order by "a"."id" asc limit ?',
    params: [4, 10, 20],
  },
  {
    name: '1:m to a composite key: both FK columns correlated',
    root: 'publisher',
    values: { filter: "books/any(b: b/title eq 'Eta')" },
    sql: 'select "pub".* from "publisher" as "pub" where (exists (select 1 from "book" as "lq2" where ("lq2"."publisher_tenant" = "pub"."tenant" and "lq2"."publisher_id" = "pub"."id") and "lq2"."deleted_at" is null and ("lq2"."title" = ?))) order by "pub"."tenant" asc, "pub"."id" asc limit ?',
    params: ['Eta', 20],
  },
  {
    name: 'self-reference 1:m',
    root: 'category',
    values: { filter: "children/any(c: c/name eq 'poetry')" },
    sql: 'select "c".* from "category" as "c" where (exists (select 1 from "category" as "lq2" where ("lq2"."parent_id" = "c"."id") and "lq2"."deleted_at" is null and ("lq2"."name" = ?))) order by "c"."id" asc limit ?',
    params: ['poetry', 20],
  },
  {
    name: 'to-one sort: LEFT JOINs with the filters in the ON clause, NULLS LAST, PK tie-breaker',
    root: 'book',
    values: { sort: 'publisher/country/code,-price' },
    sql: 'select "b".* from "book" as "b" left join "publisher" as "lq2" on "b"."publisher_tenant" = "lq2"."tenant" and "b"."publisher_id" = "lq2"."id" and "lq2"."deleted_at" is null left join "country" as "lq4" on "lq2"."country_code" = "lq4"."code" and "lq4"."deleted_at" is null order by "lq4"."code" asc nulls last, "b"."price" desc nulls last, "b"."id" asc limit ?',
    params: [20],
  },
  {
    name: 'one join per distinct path; NOT NULL columns through a join still sort NULLS LAST',
    root: 'book',
    values: { sort: 'author/name,author/id' },
    sql: 'select "b".* from "book" as "b" left join "author" as "lq2" on "b"."author_id" = "lq2"."id" and "lq2"."deleted_at" is null order by "lq2"."name" asc nulls last, "lq2"."id" asc nulls last, "b"."id" asc limit ?',
    params: [20],
  },
  {
    name: 'self-referencing sort join: the filter is on the joined row, not the root',
    root: 'category',
    values: { sort: 'parent/name' },
    sql: 'select "c".* from "category" as "c" left join "category" as "lq2" on "c"."parent_id" = "lq2"."id" and "lq2"."deleted_at" is null order by "lq2"."name" asc nulls last, "c"."id" asc limit ?',
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
    const q = (s: string) => quoted(s, dialect);
    for (const row of SHAPES) {
      test(row.name, async ({ em }) => {
        const { qb } = await planned(em, row.root, row.values);
        assert.is(qb.getQuery(), q(row.sql));
        assert.equal(qb.getParams(), row.params);
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
      assert.is(
        qb.getQuery(),
        q(
          'select "lq2".* from "book" as "lq2" left join "author" as "lq4" on "lq2"."author_id" = "lq4"."id" ' +
            'left join "publisher" as "lq7" on "lq2"."publisher_tenant" = "lq7"."tenant" and "lq2"."publisher_id" = "lq7"."id" and "lq7"."deleted_at" is null ' +
            'where (exists (select 1 from "lq3" as "lq5" inner join "lq1" as "lq6" on "lq5"."tag_id" = "lq6"."id" and "lq6"."deleted_at" is null ' +
            'where ("lq5"."book_id" = "lq2"."id") and ("lq6"."label" = ?))) ' +
            'order by "lq7"."name" asc nulls last, "lq2"."id" asc limit ?',
        ),
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
