/**
 * Nested levels' compiled statements (src/engine/tree/compiled.ts): a shape's statement is reused only where its
 * answer cannot differ (MikroORM filter parameters, a filter switched off, parent counts padded to a few lengths,
 * repeated related keys), every parent key stays a bound parameter, the cache keeps its bound and an evicted shape
 * still answers, and where QueryBuilder.execute() does not send what toQuery() returns no compiled statement is used.
 * Each answer is compared with a request shape that is never cached (a nested filter) or with the fixture's rows.
 */
import type { EntityManager, FilterOptions } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { cachedShapes } from '../../../src/engine/tree/compiled.ts';
import { executeSendsToQuery } from '../../../src/orm/compat.ts';
import {
  Author,
  Book,
  libraryEntities,
  libraryOptions,
  Publisher,
  Review,
  seedLibrary,
  useTenant,
} from '../../fixtures/library.ts';
import { captureDriver, type DriverCall } from '../../helpers/capture.ts';
import { eachDialect } from '../../helpers/db.ts';
import { bookPolicy, engineOf, type Root, withoutCursors } from './library-tree.ts';

type Item = Record<string, any>;

/**
 * The fixture, with ten more live tenant-1 books (11–20: Ann's and Penguin's when odd, Cid's and Gallimard's when
 * even) and a few reviews each.
 */
async function seed(em: EntityManager): Promise<void> {
  await seedLibrary(em);
  for (let id = 11; id <= 20; id++) {
    const author = em.getReference(Author, id % 2 === 1 ? 1 : 3);
    const publisher = em.getReference(Publisher, [1, id % 2 === 1 ? 1 : 2] as never);
    em.create(Book, { id, tenant: 1, title: `B${id}`, price: id, author, publisher, category: null });
    for (let j = 0; j < id % 4; j++)
      em.create(Review, { id: id * 10 + j, tenant: 1, book: em.getReference(Book, id), stars: (id + j) % 6 });
  }
  await em.flush();
  em.clear();
}

/** Each live book's author name (soft-deleted Dee hides book 5's author). */
function authorOf(book: number): string | null {
  const fixture: Record<number, string | null> = {
    1: 'Ann',
    2: 'Ann',
    3: 'Bob',
    4: 'Cid',
    5: null,
    7: 'Eve',
    8: 'Cid',
  };
  return book >= 11 ? (book % 2 === 1 ? 'Ann' : 'Cid') : (fixture[book] ?? null);
}

/** Each live book's publisher key (tenant, id) and its name (soft-deleted Gone hides book 4's). */
function publisherOf(book: number): { key: [number, number] | null; name: string | null } {
  if (book >= 11) return book % 2 === 1 ? { key: [1, 1], name: 'Penguin' } : { key: [1, 2], name: 'Gallimard' };
  const fixture: Record<number, [[number, number] | null, string | null]> = {
    1: [[1, 1], 'Penguin'],
    2: [[1, 2], 'Gallimard'],
    3: [null, null],
    4: [[1, 3], null],
    5: [[1, 1], 'Penguin'],
    7: [[2, 1], 'Hanser'],
    8: [[1, 2], 'Gallimard'],
  };
  const [key, name] = fixture[book]!;
  return { key, name };
}

const AUTHOR_IDS: Record<string, number> = { Ann: 1, Bob: 2, Cid: 3, Eve: 5 };

async function list(em: EntityManager, root: Root, query: string, filters?: FilterOptions): Promise<Item[]> {
  return (await engineOf(em, root, filters).list(query)).items as Item[];
}

/** `[id, [nested ids]]` per item of a to-many selection. */
function nestedIds(items: readonly Item[], key: string): unknown[] {
  return items.map((item) => [item.id, (item[key].items as Item[]).map((x) => x.id)]);
}

/** `[id, related name or null]` per item of a to-one selection. */
function relatedName(items: readonly Item[], key: string): unknown[] {
  return items.map((item) => [item.id, item[key]?.name ?? null]);
}

/** The data statements of the nested levels (every statement after the top page's). */
function levelCalls(calls: readonly DriverCall[]): DriverCall[] {
  return calls.slice(1);
}

const TREE =
  'fields=id,author(name),publisher(name),reviews(stars),tags(label)&sort=id&reviews.limit=3&reviews.count=true';
/** The same levels with a nested filter that keeps every row: those levels are planned afresh, never cached. */
const UNCACHED = '&reviews.filter=id gt 0&tags.filter=id gt 0';

eachDialect(
  'nested selections: compiled statements',
  { entities: libraryEntities, seed, options: libraryOptions },
  (test) => {
    test('a filter parameter (em.setFilterParams) gives each tenant its own nested rows', async ({ em }) => {
      const tags: Record<number, unknown[]> = {
        1: [
          [1, [1, 8]],
          [2, [1, 2]],
        ],
        2: [
          [1, []],
          [2, []],
        ],
      };
      const profiles: Record<number, unknown[]> = {
        1: [
          [1, 'Ann'],
          [3, null],
          [4, null],
        ],
        2: [
          [1, null],
          [3, 'Eve'],
          [4, null],
        ],
      };
      for (const tenant of [2, 1, 2, 1, 1, 2]) {
        const tem = em.fork();
        useTenant(tem, tenant);
        assert.equal(nestedIds(await list(tem, 'tag', 'fields=id,books(title)&sort=id'), 'books'), tags[tenant]);
        assert.equal(
          relatedName(await list(tem, 'profile', 'fields=id,author(name)&sort=id'), 'author'),
          profiles[tenant],
        );
      }
    });

    test('a filter parameter from from(qb, { filters }) gives each tenant its own nested rows', async ({ em }) => {
      const tags: Record<number, unknown[]> = {
        1: [
          [1, [1, 8]],
          [2, [1, 2]],
        ],
        2: [
          [1, []],
          [2, []],
        ],
      };
      const profiles: Record<number, unknown[]> = {
        1: [
          [1, 'Ann'],
          [3, null],
          [4, null],
        ],
        2: [
          [1, null],
          [3, 'Eve'],
          [4, null],
        ],
      };
      const tem = em.fork();
      useTenant(tem, 1);
      for (const tenant of [1, 2, 2, 1, 2]) {
        const filters = { tenant: { id: tenant } };
        assert.equal(
          nestedIds(await list(tem, 'tag', 'fields=id,books(title)&sort=id', filters), 'books'),
          tags[tenant],
        );
        const profile = await list(tem, 'profile', 'fields=id,author(name)&sort=id', filters);
        assert.equal(relatedName(profile, 'author'), profiles[tenant]);
      }
    });

    test('a filter switched off (softDelete: false) and on again: each gets its own nested rows', async ({ em }) => {
      const off = { softDelete: false };
      const tags = {
        on: [
          [1, [1, 8]],
          [2, [1, 2]],
        ],
        off: [
          [1, [1, 6, 8]],
          [2, [1, 2]],
          [3, [3, 8]],
        ],
      };
      const profiles = {
        on: [
          [1, 'Ann'],
          [3, 'Eve'],
          [4, null],
        ],
        off: [
          [1, 'Ann'],
          [2, 'Bob'],
          [3, 'Eve'],
          [4, null],
        ],
      };
      for (const state of ['off', 'on', 'off', 'on'] as const) {
        const filters = state === 'off' ? off : undefined;
        const tag = await list(em.fork(), 'tag', 'fields=id,books(title)&sort=id', filters);
        assert.equal(nestedIds(tag, 'books'), tags[state], state);
        const profile = await list(em.fork(), 'profile', 'fields=id,author(name)&sort=id', filters);
        assert.equal(relatedName(profile, 'author'), profiles[state], state);
      }
    });

    test('parent counts padded to a few lengths answer as the uncached levels, every key bound', async ({ em }) => {
      const sqlByCount = new Map<number, string>();
      const pages = [1, 2, 3, 4, 5, 7, 8, 9].map((n) => ({ n, query: `${TREE}&limit=${n}` }));
      // Books 11–20 alternate two authors: the author level's parents repeat the same related key.
      pages.push(
        { n: 9, query: `${TREE}&filter=id gte 11&limit=9` },
        { n: 5, query: `${TREE}&filter=id gte 11&limit=5` },
      );
      for (const { n, query } of pages) {
        const { result: cached, calls } = await captureDriver(() => list(em.fork(), 'book', query));
        const uncached = await list(em.fork(), 'book', query + UNCACHED);
        assert.is(cached.length, n, query);
        for (const key of ['reviews', 'tags'])
          assert.equal(
            withoutCursors(cached.map((item) => item[key])),
            withoutCursors(uncached.map((i) => i[key])),
            query,
          );
        assert.equal(
          relatedName(cached, 'author'),
          cached.map((item) => [item.id, authorOf(item.id)]),
          query,
        );
        assert.equal(
          relatedName(cached, 'publisher'),
          cached.map((item) => [item.id, publisherOf(item.id).name]),
          query,
        );
        const books = cached.map((item) => String(item.id));
        const publishers = cached.flatMap((item) => publisherOf(item.id).key ?? []);
        const authors = [...new Set(cached.map((item) => authorOf(item.id)).filter((name) => name !== null))];
        const levels = levelCalls(calls);
        assert.is(levels.length, 4 + (publishers.length > 0 ? 1 : 0), query);
        for (const call of levels) {
          // No parent key in the text: neither in an in-list nor compared to a literal.
          assert.not.ok(/\bin \(\s*\d/.test(call.sql) || /[<>=] \d/.test(call.sql), call.sql);
          const values = call.values.map(String);
          const isAuthor = /from [`"]author[`"]/.test(call.sql);
          const isPublisher = /from [`"]publisher[`"]/.test(call.sql);
          const keys = isAuthor
            ? authors.map((name) => String(AUTHOR_IDS[name]))
            : isPublisher
              ? publishers.map(String)
              : books;
          for (const key of keys) assert.ok(values.includes(key), `${query}: parent ${key} in ${call.sql}`);
        }
        const reviews = levels.find((call) => /[`"]review[`"]/.test(call.sql) && !/count\(\*\)/.test(call.sql));
        if (query === `${TREE}&limit=${n}`) sqlByCount.set(n, reviews!.sql);
      }
      // One statement text serves each padded length: 3 parents are sent as 4, 5 and 7 as 8 (9 as 12).
      assert.is(sqlByCount.get(3), sqlByCount.get(4));
      assert.is(sqlByCount.get(5), sqlByCount.get(8));
      assert.is(sqlByCount.get(7), sqlByCount.get(8));
      assert.is.not(sqlByCount.get(8), sqlByCount.get(9));
    });

    test('past 256 shapes the cache stays bounded and an evicted shape still answers', async ({ em }) => {
      const target = bookPolicy.bind(em).relations.get('reviews')!.target;
      const shape = (limit: number, offset: number) =>
        `fields=id,reviews(stars)&sort=id&limit=9&reviews.limit=${limit}&reviews.offset=${offset}`;
      const answer = async (query: string) => withoutCursors(await list(em.fork(), 'book', query));
      const first = await answer(shape(3, 0));
      assert.equal(first, await answer(`${shape(3, 0)}&reviews.filter=id gt 0`));
      assert.ok(cachedShapes(target) >= 1, 'the level is cached');
      let sent = 0;
      for (let offset = 1; offset <= 30; offset++)
        for (let limit = 1; limit <= 10; limit++) {
          const query = shape(limit, offset);
          const got = await answer(query);
          if (++sent % 41 === 0) assert.equal(got, await answer(`${query}&reviews.filter=id gt 0`), query);
          assert.ok(cachedShapes(target) <= 256, `${cachedShapes(target)} shapes`);
        }
      assert.is(cachedShapes(target), 256);
      assert.equal(await answer(shape(3, 0)), first);
      assert.ok(cachedShapes(target) <= 256);
    });

    test('execute() sends what toQuery() returns on the installed MikroORM', async ({ em }) => {
      assert.is(await executeSendsToQuery((em as any).createQueryBuilder(Book, 'b')), true);
    });

    test('where execute() does not send what toQuery() returns, levels are built afresh', async ({ em }) => {
      const query = `${TREE}&limit=9`;
      const expected = withoutCursors(await list(em.fork(), 'book', query));
      const fork = em.fork() as any;
      const create = fork.createQueryBuilder.bind(fork);
      const real = Object.getPrototypeOf(create(Book, 'b'));
      // A QueryBuilder whose execute() runs a fresh copy of the builder when toQuery() was replaced on the instance.
      const bypass = Object.create(real, {
        execute: {
          value(this: any, ...args: unknown[]) {
            return real.execute.apply(Object.hasOwn(this, 'toQuery') ? this.clone() : this, args);
          },
        },
      });
      fork.createQueryBuilder = (...args: unknown[]) => Object.setPrototypeOf(create(...args), bypass);
      assert.is(await executeSendsToQuery(fork.createQueryBuilder(Book, 'b')), false);
      assert.equal(withoutCursors(await list(fork, 'book', query)), expected);
    });
  },
);
