/**
 * Nested cursors: a nested page's nextCursor / prevCursor continue that parent's list only, forward and back, exactly
 * (every row once, pages retraced), while the other parents' lists start from their beginning; per-item cursors for
 * GraphQL edges; signed cursors; walks (pages(), items()) carry the levels on every page; and a nested cursor of
 * another list, path or sort, a top-level cursor, or a malformed or forged one is `invalid_cursor` naming
 * `<path>.cursor`, with no statement sent.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { NESTED_CURSORS } from '../../../src/engine/index.ts';
import { edgesListerOf } from '../../../src/engine/page/edges.ts';
import { isListError } from '../../../src/errors.ts';
import { Book, libraryEntities, libraryOptions, Review, seedLibrary } from '../../fixtures/library.ts';
import { captureDriver } from '../../helpers/capture.ts';
import { eachDialect } from '../../helpers/db.ts';
import { engineOf } from './library-tree.ts';

/** The library, and six more reviews of book 1 (stars 4, NULL, 2, 5, NULL, 3), so its list spans several pages. */
async function seed(em: EntityManager): Promise<void> {
  await seedLibrary(em);
  const stars = [4, null, 2, 5, null, 3];
  stars.forEach((s, i) => {
    em.create(Review, { id: 11 + i, tenant: 1, book: em.getReference(Book, 1), stars: s });
  });
  await em.flush();
  em.clear();
}

/** Each book's reviews in each order, written out by hand (NULLs last both ways, then id). */
const ORDERS: Readonly<Record<string, Readonly<Record<number, readonly number[]>>>> = {
  stars: { 1: [13, 2, 16, 11, 1, 14, 12, 15], 2: [4, 3], 8: [8, 9] },
  '-stars': { 1: [1, 14, 11, 2, 16, 13, 12, 15], 2: [4, 3], 8: [9, 8] },
};

interface Nested {
  items: { id: number }[];
  page: { hasMore: boolean; nextCursor?: string; prevCursor?: string };
}

const QUERY = (sort: string, limit: number) =>
  `fields=id,reviews(stars)&filter=id in (1,2,8)&sort=id&reviews.sort=${sort}&reviews.limit=${limit}`;

async function listed(em: EntityManager, query: string, config?: Record<string, unknown>) {
  const answer = await engineOf(em, 'book', undefined, config).list(query);
  const byBook = new Map(answer.items.map((item) => [item.id as number, item.reviews as Nested]));
  return { answer, byBook };
}

/** Check that books 2 and 8 show their first page. */
function otherParentsFromStart(byBook: Map<number, Nested>, sort: string, limit: number): void {
  for (const book of [2, 8]) {
    const order = ORDERS[sort]![book]!;
    const nested = byBook.get(book)!;
    assert.equal(
      nested.items.map((r) => r.id),
      order.slice(0, limit),
      `book ${book}`,
    );
    assert.is(nested.page.hasMore, order.length > limit);
  }
}

async function refused(run: () => Promise<unknown>): Promise<{ code: string; parameter?: string; sent: number }> {
  const { result, calls } = await captureDriver(() =>
    run().then(
      () => undefined,
      (err: unknown) => err,
    ),
  );
  if (!isListError(result)) throw new Error(`expected a ListError, got ${String(result)}`);
  return { code: result.code, ...(result.parameter ? { parameter: result.parameter } : {}), sent: calls.length };
}

const SECRET = { cursorSecret: 'a test secret of more than thirty-two bytes, for sealing' };

eachDialect('nested cursors', { entities: libraryEntities, seed, options: libraryOptions }, (test) => {
  for (const [sort, limit, config] of [
    ['stars', 3, {}],
    ['-stars', 2, {}],
    ['stars', 1, {}],
    ['-stars', 3, SECRET],
  ] as const) {
    const sealed = config === SECRET ? ', sealed cursors' : '';
    test(`one parent's list forward then back, exactly (sort ${sort}, limit ${limit}${sealed})`, async ({ em }) => {
      const query = QUERY(sort, limit);
      const forward: number[][] = [];
      let { byBook } = await listed(em, query, config);
      let nested = byBook.get(1)!;
      forward.push(nested.items.map((r) => r.id));
      while (nested.page.hasMore) {
        ({ byBook } = await listed(em, `${query}&reviews.cursor=${nested.page.nextCursor}`, config));
        otherParentsFromStart(byBook, sort, limit);
        nested = byBook.get(1)!;
        forward.push(nested.items.map((r) => r.id));
      }
      assert.equal(forward.flat(), [...ORDERS[sort]![1]!]);
      assert.is(nested.page.nextCursor, undefined);
      // Back from the last page: each page is the forward page before it, until the first (nothing precedes it).
      for (let i = forward.length - 2; i >= 0; i--) {
        ({ byBook } = await listed(em, `${query}&reviews.cursor=${nested.page.prevCursor}`, config));
        otherParentsFromStart(byBook, sort, limit);
        nested = byBook.get(1)!;
        assert.equal(
          nested.items.map((r) => r.id),
          forward[i],
        );
        assert.is(nested.page.hasMore, i > 0);
        assert.ok(nested.page.nextCursor);
      }
      assert.is(nested.page.prevCursor, undefined);
    });
  }

  test('GraphQL edges: every nested item carries the cursor that continues after it', async ({ em }) => {
    const lister = edgesListerOf<string, object>(engineOf(em, 'book'))!;
    const query = QUERY('stars', 4);
    const { page } = await lister(query);
    const nested = page.items[0]!.reviews as Nested & { [NESTED_CURSORS]?: readonly string[] };
    const cursors = nested[NESTED_CURSORS]!;
    assert.is(cursors.length, 4);
    assert.not.ok(JSON.stringify(nested).includes(cursors[0]!));
    const { byBook } = await listed(em, `${query}&reviews.cursor=${cursors[1]}`);
    assert.equal(
      byBook.get(1)!.items.map((r) => r.id),
      [16, 11, 1, 14],
    );
    // list() carries no per-item cursors.
    const plain = (await listed(em, query)).byBook.get(1) as Nested & { [NESTED_CURSORS]?: unknown };
    assert.is(plain[NESTED_CURSORS], undefined);
  });

  test('GraphQL last/before: lists named backward are read from their end, each parent, back to the start', async ({
    em,
  }) => {
    const lister = edgesListerOf<string, object>(engineOf(em, 'book'))!;
    const query = QUERY('stars', 3);
    type Edges = Nested & { [NESTED_CURSORS]: readonly string[] };
    const read = async (q: string) => {
      const { page } = await lister(q, {}, { backward: false, backwardLists: ['reviews'] });
      return new Map(page.items.map((item) => [item.id as number, item.reviews as Edges]));
    };
    let byBook = await read(query);
    const pages: number[][] = [];
    for (;;) {
      const nested = byBook.get(1)!;
      pages.unshift(nested.items.map((r) => r.id));
      // The other parents: their last rows, whatever book 1's cursor says.
      assert.equal(
        byBook.get(2)!.items.map((r) => r.id),
        [4, 3],
      );
      assert.equal(
        byBook.get(8)!.items.map((r) => r.id),
        [8, 9],
      );
      if (!nested.page.hasMore) break;
      // GraphQL's `before` is the first edge's cursor: a cursor after that item, read as the position to read before.
      byBook = await read(`${query}&reviews.cursor=${nested[NESTED_CURSORS][0]}`);
    }
    assert.equal(pages, [
      [13, 2],
      [16, 11, 1],
      [14, 12, 15],
    ]);
    // Named neither backward nor forward by its token: with `backward` given, a prevCursor reads forward from its keys.
    const rest = await listed(
      em,
      `${query}&reviews.cursor=${(await listed(em, query)).byBook.get(1)!.page.nextCursor}`,
    );
    const prev = rest.byBook.get(1)!.page.prevCursor!;
    const { page } = await lister(`${query}&reviews.cursor=${prev}`, {}, { backward: false });
    assert.equal(
      (page.items[0]!.reviews as Nested).items.map((r) => r.id),
      [1, 14, 12],
    );
  });

  test('pages() and items() carry the nested levels on every page', async ({ em }) => {
    const engine = engineOf(em, 'book');
    const query = 'fields=id,reviews(stars)&reviews.limit=1&reviews.sort=-stars';
    const pages = [];
    for await (const p of engine.pages(query, {}, { pageSize: 3 })) pages.push(p);
    const first = (items: Record<string, unknown>[]) =>
      items.map((item) => [item.id, (item.reviews as Nested).items.map((r) => r.id)]);
    const expected = [
      [1, [1]],
      [2, [4]],
      [3, [6]],
      [4, []],
      [5, []],
      [7, [7]],
      [8, [9]],
    ];
    assert.equal(pages.length, 3);
    assert.equal(first(pages.flatMap((p) => p.items)), expected);
    const items = [];
    for await (const item of engine.items(query, {}, { pageSize: 2 })) items.push(item);
    assert.equal(first(items), expected);
  });

  test('pages after a top-level cursor on a nullable key (seekable UNION ALL branches) carry their levels', async ({
    em,
  }) => {
    const pages = [];
    for await (const p of engineOf(em, 'book').pages('fields=id,author(name)&sort=price', {}, { pageSize: 3 }))
      pages.push(p.items.map((item) => [item.id, (item.author as { name: string } | null)?.name ?? null]));
    assert.equal(pages, [
      [
        [4, 'Cid'],
        [8, 'Cid'],
        [1, 'Ann'],
      ],
      [
        [7, 'Eve'],
        [5, null],
        [3, 'Bob'],
      ],
      [[2, 'Ann']],
    ]);
  });

  test('refused before any statement: malformed, another sort, path or list, top-level cursors', async ({ em }) => {
    const query = QUERY('stars', 1);
    const { answer, byBook } = await listed(em, `${query}&limit=1`);
    const reviewsCursor = byBook.get(1)!.page.nextCursor!;
    const topCursor = answer.page.nextCursor!;
    const tagged = await listed(em, 'fields=id,tags(label)&filter=id eq 1&tags.limit=1');
    const tagsCursor = (tagged.answer.items[0]!.tags as Nested).page.nextCursor!;
    const book = engineOf(em, 'book');
    const decoded = JSON.parse(Buffer.from(reviewsCursor, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...decoded, k: ['1', ...decoded.k.slice(1)] })).toString('base64url');
    const cases: [string, string, string][] = [
      ['malformed', `${query}&reviews.cursor=abc`, 'reviews.cursor'],
      ['another sort', `${QUERY('-stars', 1)}&reviews.cursor=${reviewsCursor}`, 'reviews.cursor'],
      [
        'another path',
        `fields=id,best:reviews(stars)&best.sort=stars&best.limit=1&best.cursor=${reviewsCursor}`,
        'best.cursor',
      ],
      ['another list', `${query}&reviews.cursor=${tagsCursor}`, 'reviews.cursor'],
      ['a top-level cursor', `${query}&reviews.cursor=${topCursor}`, 'reviews.cursor'],
      ['a nested cursor at the top', `${query}&cursor=${reviewsCursor}`, 'cursor'],
      ['a forged parent key of the wrong type', `${query}&reviews.cursor=${forged}`, 'reviews.cursor'],
      ['an unsealed cursor where cursors are sealed', `${query}&reviews.cursor=${reviewsCursor}`, 'reviews.cursor'],
    ];
    for (const [name, q, parameter] of cases) {
      const engine = name.startsWith('an unsealed') ? engineOf(em, 'book', undefined, SECRET) : book;
      const result = await refused(() => engine.list(q));
      assert.equal(result, { code: 'invalid_cursor', parameter, sent: 0 }, name);
    }
  });
});
