/**
 * Nested selections answer the tree a request names: to-one objects (m:1, composite-keyed m:1, 1:1 from both sides)
 * or null, 1:m and m:n pages per parent, two and three levels deep, aliases, each level's filter (relation paths and
 * quantifiers), sort (relation sorts, nullable keys NULLS LAST both ways), limit, offset and count, and the MikroORM
 * filters (soft delete, tenant, from(qb, { filters })) at every level. Expected trees are written out by hand from
 * the fixture's table (test/fixtures/library.ts).
 */
import type { FilterOptions } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import {
  Author,
  libraryEntities,
  libraryOptions,
  Review,
  seedLibrary,
  Tag,
  useTenant,
} from '../../fixtures/library.ts';
import { eachDialect } from '../../helpers/db.ts';
import { engineOf, page, type Root, withoutCursors } from './library-tree.ts';

interface TreeRow {
  readonly name: string;
  readonly root: Root;
  readonly query: string;
  readonly tenant?: number;
  readonly filters?: FilterOptions;
  readonly items: readonly Record<string, unknown>[];
}

const ann = { id: 1, name: 'Ann' };
const bob = { id: 2, name: 'Bob' };
const cid = { id: 3, name: 'Cid' };
const eve = { id: 5, name: 'Eve' };
const penguin = { tenant: 1, id: 1, name: 'Penguin' };
const gallimard = { tenant: 1, id: 2, name: 'Gallimard' };
const hanser = { tenant: 2, id: 1, name: 'Hanser' };
const r = (id: number, stars: number | null) => ({ id, stars });
const red = { id: 1, label: 'red' };
const blue = { id: 2, label: 'blue' };
const green = { id: 3, label: 'green' };
const reviews = (...items: Record<string, unknown>[]) => page(items, 2);
const tags = (...items: Record<string, unknown>[]) => page(items, 10);

const EVERY_KIND = 'fields=id,author(name),publisher(name),reviews(stars),tags(label)&sort=id';

const ROWS: readonly TreeRow[] = [
  {
    name: 'm:1, composite m:1, 1:m and m:n; soft-deleted rows absent at every level',
    root: 'book',
    query: EVERY_KIND,
    items: [
      { id: 1, author: ann, publisher: penguin, reviews: reviews(r(1, 5), r(2, 3)), tags: tags(red, blue) },
      { id: 2, author: ann, publisher: gallimard, reviews: reviews(r(4, 4), r(3, null)), tags: tags(blue) },
      { id: 3, author: bob, publisher: null, reviews: reviews(r(6, 5)), tags: tags() },
      { id: 4, author: cid, publisher: null, reviews: reviews(), tags: tags() },
      { id: 5, author: null, publisher: penguin, reviews: reviews(), tags: tags() },
      { id: 7, author: eve, publisher: hanser, reviews: reviews(r(7, 5)), tags: tags() },
      { id: 8, author: cid, publisher: gallimard, reviews: reviews(r(9, 5), r(8, 1)), tags: tags(red) },
    ],
  },
  {
    name: 'tenant 1 (em.addFilter): the other tenant is absent at every level',
    root: 'book',
    query: EVERY_KIND,
    tenant: 1,
    items: [
      { id: 1, author: ann, publisher: penguin, reviews: reviews(r(1, 5), r(2, 3)), tags: tags(red, blue) },
      { id: 2, author: ann, publisher: gallimard, reviews: reviews(r(4, 4), r(3, null)), tags: tags(blue) },
      { id: 3, author: bob, publisher: null, reviews: reviews(r(6, 5)), tags: tags() },
      { id: 4, author: cid, publisher: null, reviews: reviews(), tags: tags() },
      { id: 5, author: null, publisher: penguin, reviews: reviews(), tags: tags() },
      { id: 8, author: cid, publisher: gallimard, reviews: reviews(r(8, 1)), tags: tags(red) },
    ],
  },
  {
    name: 'tenant 2: a to-one object of the other tenant is null',
    root: 'review',
    query: 'fields=id,book(title)&sort=id',
    tenant: 2,
    items: [
      { id: 7, book: { id: 7, title: 'Eta' } },
      { id: 9, book: null },
    ],
  },
  {
    name: 'from(qb, { filters: { softDelete: false } }): deleted rows at every level',
    root: 'book',
    query: EVERY_KIND,
    filters: { softDelete: false },
    items: [
      { id: 1, author: ann, publisher: penguin, reviews: reviews(r(1, 5), r(2, 3)), tags: tags(red, blue) },
      { id: 2, author: ann, publisher: gallimard, reviews: reviews(r(4, 4), r(3, null)), tags: tags(blue) },
      { id: 3, author: bob, publisher: null, reviews: reviews(r(6, 5), r(5, 2)), tags: tags(green) },
      { id: 4, author: cid, publisher: { tenant: 1, id: 3, name: 'Gone' }, reviews: reviews(), tags: tags() },
      { id: 5, author: { id: 4, name: 'Dee' }, publisher: penguin, reviews: reviews(), tags: tags() },
      { id: 6, author: bob, publisher: null, reviews: reviews(r(10, 1)), tags: tags(red) },
      { id: 7, author: eve, publisher: hanser, reviews: reviews(r(7, 5)), tags: tags() },
      { id: 8, author: cid, publisher: gallimard, reviews: reviews(r(9, 5), r(8, 1)), tags: tags(red, green) },
    ],
  },
  {
    name: 'from(qb, { filters }) with arguments: an asynchronous entity filter applies at the level',
    root: 'book',
    query: 'fields=id,tags(label)&filter=id in (1,8)&sort=id',
    filters: { labelled: { not: 'red' } },
    items: [
      { id: 1, tags: tags(blue) },
      { id: 8, tags: tags() },
    ],
  },
  {
    name: "from(qb, { filters }): a filter reaching through the level's relations (book's author not Cid)",
    root: 'book',
    query: 'fields=id,reviews(stars)&filter=id in (1,3,8)&sort=id',
    filters: { notCids: true },
    items: [
      { id: 1, reviews: reviews(r(1, 5), r(2, 3)) },
      { id: 3, reviews: reviews(r(6, 5)) },
      { id: 8, reviews: reviews() },
    ],
  },
  {
    name: 'two levels under a list: 1:1 owner, books, and their reviews and tags',
    root: 'author',
    query: 'fields=id,name,profile(bio),books(title,reviews(stars),tags(label))&sort=id&limit=5',
    items: [
      {
        ...ann,
        profile: { id: 1, bio: 'poet' },
        books: page(
          [
            { id: 1, title: 'Alpha', reviews: reviews(r(1, 5), r(2, 3)), tags: tags(red, blue) },
            { id: 2, title: 'Beta', reviews: reviews(r(4, 4), r(3, null)), tags: tags(blue) },
          ],
          10,
        ),
      },
      {
        ...bob,
        profile: null,
        books: page([{ id: 3, title: 'Gamma', reviews: reviews(r(6, 5)), tags: tags() }], 10),
      },
      {
        ...cid,
        profile: null,
        books: page(
          [
            { id: 4, title: 'Delta', reviews: reviews(), tags: tags() },
            { id: 8, title: 'Theta', reviews: reviews(r(9, 5), r(8, 1)), tags: tags(red) },
          ],
          10,
        ),
      },
      {
        ...eve,
        profile: { id: 3, bio: null },
        books: page([{ id: 7, title: 'Eta', reviews: reviews(r(7, 5)), tags: tags() }], 10),
      },
    ],
  },
  {
    name: 'three levels: m:n from the inverse side, then m:1, then 1:1',
    root: 'tag',
    query: 'fields=id,label,books(title,author(name,profile(bio)))&sort=id',
    items: [
      {
        ...red,
        books: page(
          [
            { id: 1, title: 'Alpha', author: { ...ann, profile: { id: 1, bio: 'poet' } } },
            { id: 8, title: 'Theta', author: { ...cid, profile: null } },
          ],
          10,
        ),
      },
      {
        ...blue,
        books: page(
          [
            { id: 1, title: 'Alpha', author: { ...ann, profile: { id: 1, bio: 'poet' } } },
            { id: 2, title: 'Beta', author: { ...ann, profile: { id: 1, bio: 'poet' } } },
          ],
          10,
        ),
      },
    ],
  },
  {
    name: '1:1 from the inverse side: the author row holds the key',
    root: 'profile',
    query: 'fields=id,bio,author(name)&sort=id',
    items: [
      { id: 1, bio: 'poet', author: ann },
      { id: 3, bio: null, author: eve },
      { id: 4, bio: 'orphan', author: null },
    ],
  },
  {
    name: 'aliases: one relation twice with different parameters',
    root: 'book',
    query:
      'fields=id,best:reviews(stars),worst:reviews(stars)&filter=id in (1,2,8)&sort=id' +
      '&best.sort=-stars&best.limit=1&worst.sort=stars&worst.limit=1',
    items: [
      { id: 1, best: page([r(1, 5)], 1, true), worst: page([r(2, 3)], 1, true) },
      { id: 2, best: page([r(4, 4)], 1, true), worst: page([r(4, 4)], 1, true) },
      { id: 8, best: page([r(9, 5)], 1, true), worst: page([r(8, 1)], 1, true) },
    ],
  },
  {
    name: 'nested filter, sort, limit, offset and count per parent',
    root: 'book',
    query:
      'fields=id,reviews(stars)&filter=id in (1,2,3,8)&sort=id' +
      '&reviews.filter=stars gte 3&reviews.sort=id&reviews.limit=1&reviews.offset=1&reviews.count=true',
    items: [
      { id: 1, reviews: page([r(2, 3)], 1, false, { offset: 1, prev: true, count: 2 }) },
      { id: 2, reviews: page([], 1, false, { offset: 1, count: 1 }) },
      { id: 3, reviews: page([], 1, false, { offset: 1, count: 1 }) },
      { id: 8, reviews: page([], 1, false, { offset: 1, count: 1 }) },
    ],
  },
  {
    name: 'nullable sort key ascending: NULLs last',
    root: 'book',
    query: 'fields=id,reviews(stars)&filter=id eq 2&reviews.sort=stars',
    items: [{ id: 2, reviews: reviews(r(4, 4), r(3, null)) }],
  },
  {
    name: 'nullable sort key descending: NULLs last too',
    root: 'book',
    query: 'fields=id,reviews(stars)&filter=id eq 2&reviews.sort=-stars&reviews.limit=1',
    items: [{ id: 2, reviews: page([r(4, 4)], 1, true) }],
  },
  {
    name: 'a nested sort through a relation: a deleted publisher sorts as NULL, last',
    root: 'author',
    query: 'fields=id,books(title)&sort=id&books.sort=publisher/name',
    items: [
      {
        id: 1,
        books: page(
          [
            { id: 2, title: 'Beta' },
            { id: 1, title: 'Alpha' },
          ],
          10,
        ),
      },
      { id: 2, books: page([{ id: 3, title: 'Gamma' }], 10) },
      {
        id: 3,
        books: page(
          [
            { id: 8, title: 'Theta' },
            { id: 4, title: 'Delta' },
          ],
          10,
        ),
      },
      { id: 5, books: page([{ id: 7, title: 'Eta' }], 10) },
    ],
  },
  {
    name: 'a nested filter with a quantifier, and each parent counted',
    root: 'author',
    query: 'fields=id,books(title)&sort=id&books.filter=reviews/any(v: v/stars eq 5)&books.count=true',
    items: [
      { id: 1, books: page([{ id: 1, title: 'Alpha' }], 10, false, { count: 1 }) },
      { id: 2, books: page([{ id: 3, title: 'Gamma' }], 10, false, { count: 1 }) },
      { id: 3, books: page([{ id: 8, title: 'Theta' }], 10, false, { count: 1 }) },
      { id: 5, books: page([{ id: 7, title: 'Eta' }], 10, false, { count: 1 }) },
    ],
  },
  {
    name: 'a nested limit of 0: empty pages, counts still given',
    root: 'book',
    query: 'fields=id,reviews(stars)&filter=id in (1,3)&sort=id&reviews.limit=0&reviews.count=true',
    items: [
      { id: 1, reviews: page([], 0, false, { count: 2 }) },
      { id: 3, reviews: page([], 0, false, { count: 1 }) },
    ],
  },
];

eachDialect('nested selections', { entities: libraryEntities, seed: seedLibrary, options: libraryOptions }, (test) => {
  for (const row of ROWS) {
    test(row.name, async ({ em }) => {
      if (row.tenant !== undefined) useTenant(em, row.tenant);
      const answer = await engineOf(em, row.root, row.filters).list(row.query);
      assert.equal(withoutCursors(answer.items), row.items);
    });
  }

  test('an item shared by two parents appears as two objects with the same content', async ({ em }) => {
    const answer = await engineOf(em, 'tag').list('fields=id,books(title,author(name))&sort=id');
    const alphaUnderRed = (answer.items[0]!.books as { items: Record<string, unknown>[] }).items[0]!;
    const alphaUnderBlue = (answer.items[1]!.books as { items: Record<string, unknown>[] }).items[0]!;
    assert.equal(alphaUnderRed, alphaUnderBlue);
    assert.is.not(alphaUnderRed, alphaUnderBlue);
    assert.is.not(alphaUnderRed.author, alphaUnderBlue.author);
  });

  test('the answer is plain JSON: nested pages have the shape of the top-level page', async ({ em }) => {
    const answer = await engineOf(em, 'book').list('fields=id,reviews(stars)&filter=id eq 1&reviews.limit=1');
    const json = JSON.parse(JSON.stringify(answer));
    assert.equal(Object.keys(json.items[0].reviews), ['items', 'page']);
    assert.equal(Object.keys(json.items[0].reviews.page), ['limit', 'offset', 'hasMore', 'nextCursor']);
  });

  // Last: the subscriber stays registered on the suite's ORM.
  test("items written by hydration and serialize() (an onInit subscriber) equal the item writer's", async ({ em }) => {
    const query = 'fields=id,title,author(name,profile(bio)),reviews(stars),tags(label)&sort=id&tags.sort=-label';
    const written = await engineOf(em, 'book').list(query);
    em.getEventManager().registerSubscriber({ getSubscribedEntities: () => [Author, Review, Tag], onInit() {} });
    const hydrated = await engineOf(em, 'book').list(query);
    assert.equal(hydrated, written);
    assert.is(written.items.length, 7);
  });
});
