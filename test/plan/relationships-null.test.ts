/**
 * Null checks on to-one relations: `publisher is null` / `is not null` when the relation is exposed with
 * `nullCheck`. No related row, or one hidden by a filter (soft delete), counts as null; a further hop missing makes
 * the whole path null; quantifier variables may start the path. Relations without the capability, to-many
 * relations and to-many `nullCheck` declarations are refused. Expected keys are written by hand from the seed in
 * test/fixtures/library.ts; every row runs through the engine on both dialects.
 */
import type { FilterOptions } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, isListError } from '../../src/index.ts';
import { filterable, type Policy, schema, sortable } from '../../src/policy/index.ts';
import {
  Author,
  Book,
  Category,
  Country,
  libraryEntities,
  libraryOptions,
  Profile,
  Publisher,
  Review,
  seedLibrary,
} from '../fixtures/library.ts';
import { eachDialect } from '../helpers/db.ts';

const f = filterable();
const s = sortable();
const nullCheck = { nullCheck: true } as const;

const country = schema(Country).expose('code', f, s);
const publisher = schema(Publisher).expose('tenant', f, s).expose('id', f, s).relation('country', country, nullCheck);
const publisherPlain = schema(Publisher).expose('id', f, s).relation('country', country);
const categoryLeaf = schema(Category).expose('id', f, s);
const category = schema(Category).expose('id', f, s).relation('parent', categoryLeaf, nullCheck);
const profile = schema(Profile).expose('id', f, s);
const authorLeaf = schema(Author).expose('id', f, s).expose('name', f, s);
const bookOfAuthor = schema(Book).expose('id', f, s).relation('publisher', publisher, nullCheck);

const POLICIES = {
  book: schema(Book)
    .expose('id', f, s)
    .expose('title', f, s)
    .relation('author', authorLeaf, nullCheck)
    .relation('publisher', publisher, nullCheck)
    .relation('plainPublisher', publisherPlain, { property: 'publisher' })
    .relation('category', category, nullCheck)
    .relation('reviews', schema(Review).expose('id', f)),
  author: schema(Author).expose('id', f, s).relation('profile', profile, nullCheck).relation('books', bookOfAuthor),
  profile: schema(Profile).expose('id', f, s).relation('author', authorLeaf, nullCheck),
  publisher: schema(Publisher).expose('tenant', f, s).expose('id', f, s).relation('country', country, nullCheck),
} as const;

const ENTITIES = { book: Book, author: Author, profile: Profile, publisher: Publisher } as const;
type Root = keyof typeof ENTITIES;

interface Row {
  readonly root: Root;
  readonly filter: string;
  readonly filters?: FilterOptions;
  readonly keys: readonly (number | string)[];
}

const ALL_ROWS: FilterOptions = { softDelete: false };

const ROWS: readonly Row[] = [
  // m:1, nullable composite FK: book 3 has no publisher, book 4's publisher (Gone) is soft-deleted.
  { root: 'book', filter: 'publisher is null', keys: [3, 4] },
  { root: 'book', filter: 'publisher is null', filters: ALL_ROWS, keys: [3, 6] },
  { root: 'book', filter: 'publisher is not null', keys: [1, 2, 5, 7, 8] },
  { root: 'book', filter: 'publisher is not null', filters: ALL_ROWS, keys: [1, 2, 4, 5, 7, 8] },
  // m:1, NOT NULL FK: Dee (book 5's author) is soft-deleted. The null check is TRUE or FALSE, never NULL.
  { root: 'book', filter: 'author is null', keys: [5] },
  { root: 'book', filter: 'not (author is null)', keys: [1, 2, 3, 4, 7, 8] },
  { root: 'book', filter: "author is null or title eq 'Alpha'", keys: [1, 5] },
  // Two hops: a missing publisher or a missing (deleted) country makes the path null; Hanser's country DE is deleted.
  { root: 'book', filter: 'publisher/country is null', keys: [3, 4, 7] },
  { root: 'book', filter: 'publisher/country is not null', keys: [1, 2, 5, 8] },
  { root: 'book', filter: 'category/parent is null', keys: [3, 4, 5, 7, 8] },
  // 1:1 owner: Bob's profile 2 is soft-deleted, Cid has none.
  { root: 'author', filter: 'profile is null', keys: [2, 3] },
  { root: 'author', filter: 'profile is null', filters: ALL_ROWS, keys: [3, 4] },
  // Inside a quantifier, from its variable: Bob's book 3 has no publisher, Cid's book 4 a deleted one.
  { root: 'author', filter: 'books/any(b: b/publisher is null)', keys: [2, 3] },
  { root: 'author', filter: 'books/all(b: b/publisher is not null)', keys: [1, 5] },
  // 1:1 inverse: profile 4 belongs to no author.
  { root: 'profile', filter: 'author is null', keys: [4] },
  { root: 'profile', filter: 'author is not null', keys: [1, 3] },
  // The 1:m side's own to-one: Hanser's country is soft-deleted.
  { root: 'publisher', filter: 'country is null', keys: ['2/1'] },
  { root: 'publisher', filter: 'country is null', filters: ALL_ROWS, keys: [] },
];

interface ErrorRow {
  readonly filter: string;
  readonly code: string;
  readonly offset: number;
  readonly message: RegExp;
}

const ERRORS: readonly ErrorRow[] = [
  // A relation exposed without nullCheck: the operator is not allowed on it, located at `is`.
  { filter: 'plainPublisher is null', code: 'operator_not_allowed', offset: 15, message: /'is null' is not allowed/ },
  {
    filter: 'publisher/country is null and plainPublisher/country is not null',
    code: 'operator_not_allowed',
    offset: 53,
    message: /'is not null' is not allowed on relation 'country'/,
  },
  // A to-many relation: refused, pointing at the relation; `not reviews/any(…)` tests emptiness.
  { filter: 'reviews is null', code: 'invalid_relationship', offset: 0, message: /to-many relation.*not reviews\/any/ },
  // An unknown name still reads as an unknown field.
  { filter: 'nothing is null', code: 'unknown_field', offset: 0, message: /unknown field 'nothing'/ },
];

eachDialect(
  'relationships: null checks on to-one relations',
  { entities: libraryEntities, seed: seedLibrary, options: libraryOptions },
  (test) => {
    const engine = (em: any, root: Root) => createEngine(em, { policy: POLICIES[root] as Policy, maxLimit: 50 });
    const keyOf = (root: Root, item: Record<string, unknown>) =>
      root === 'publisher' ? `${item.tenant}/${item.id}` : (item.id as number);

    for (const row of ROWS) {
      const label = `${row.root} filter=${row.filter}${row.filters ? ` filters=${JSON.stringify(row.filters)}` : ''}`;
      test(label, async ({ em }) => {
        const qb = (em as any).createQueryBuilder(ENTITIES[row.root] as never, 'x');
        const scoped = engine(em, row.root).from(qb, row.filters === undefined ? {} : { filters: row.filters });
        const page = await scoped.list({ filter: row.filter, sort: row.root === 'publisher' ? 'tenant,id' : 'id' });
        assert.equal(
          page.items.map((item) => keyOf(row.root, item)),
          row.keys,
        );
        // An EXISTS per hop, never a join into the root query.
        const { data } = await scoped.explain({ filter: row.filter });
        assert.not.match(data!.sql, / join /);
      });
    }

    test('SQL: NOT EXISTS over the related row with its filters for is null, EXISTS for is not null', async ({
      em,
    }) => {
      const scoped = engine(em, 'book').from((em as any).createQueryBuilder(Book, 'b'));
      const isNull = (await scoped.explain({ filter: 'publisher is null' })).data!.sql;
      // Quotes differ per dialect (" on PostgreSQL, ` on SQLite): strip them before matching.
      const plain = (sql: string) => sql.replace(/["`]/g, '');
      assert.match(plain(isNull), /not exists \(select 1 from publisher as lq\d+ where /);
      assert.match(plain(isNull), /lq\d+\.deleted_at is null/);
      const notNull = plain((await scoped.explain({ filter: 'publisher is not null' })).data!.sql);
      assert.match(notNull, /exists \(select 1 from publisher as lq\d+ where /);
      assert.not.match(notNull, /not exists/);
    });

    for (const row of ERRORS) {
      test(`error: ${row.filter}`, async ({ em }) => {
        const err = await engine(em, 'book')
          .from((em as any).createQueryBuilder(Book, 'b'))
          .list({ filter: row.filter })
          .catch((e: unknown) => e);
        assert.ok(isListError(err), String(err));
        assert.is(err.code, row.code);
        assert.is(err.parameter, 'filter');
        assert.is(err.position?.offset, row.offset);
        assert.match(err.message, row.message);
      });
    }

    test('nullCheck on a to-many relation is invalid_schema; describe() shows the capability', ({ em }) => {
      const bad = schema(Author).expose('id', f).relation('books', bookOfAuthor, nullCheck);
      assert.throws(
        () => createEngine(em, { policy: bad }),
        (e: unknown) => isListError(e) && e.code === 'invalid_schema' && /nullCheck applies to to-one/.test(e.message),
      );
      const relations = engine(em, 'book').describe().relations;
      assert.is(relations.find((r) => r.name === 'publisher')?.nullCheck, true);
      assert.not.ok('nullCheck' in relations.find((r) => r.name === 'plainPublisher')!);
    });
  },
);
