/**
 * The bookstore's aggregates (docs/policy.md, Aggregates) as its clients get them: `/books` may count its reviews and
 * take their average and best stars, `/authors` may count its books. The live reviews of tenant 1, restated from the
 * seed (examples/bookstore/seed.ts): soft-deleted reviews (book 8's 5 stars, book 6's 1 star) and the deleted book 9
 * count nowhere. Read by bookstore.test.ts on every database.
 */

/** Tenant 1's live books and the stars of their live reviews. */
export const LIVE_STARS: Readonly<Record<number, readonly number[]>> = {
  1: [5, 4],
  2: [3],
  3: [5],
  4: [2, 4],
  5: [],
  6: [5],
  7: [3],
  8: [2],
};

/** A request and the ids of the items it must list, in order. */
export interface AggregateRow {
  readonly name: string;
  readonly path: string;
  readonly ids: readonly number[];
}

export const AGGREGATE_ROWS: readonly AggregateRow[] = [
  { name: 'books with more than one live review', path: '/books?filter=reviews/count() gt 1&sort=id', ids: [1, 4] },
  {
    name: 'books without a review: count() is 0, not NULL',
    path: '/books?filter=reviews/count() eq 0&sort=id',
    ids: [5],
  },
  {
    name: 'an inner filter: books with a review of 4 stars or more',
    path: '/books?filter=reviews/count(r: r/stars gte 4) gte 1&sort=id',
    ids: [1, 3, 4, 6],
  },
  {
    name: 'an average of 4 or more (a book without reviews has none)',
    path: '/books?filter=reviews/avg(stars) gte 4&sort=id',
    ids: [1, 3, 6],
  },
  {
    name: "a best review under 4 stars: book 8's deleted 5 stars do not count",
    path: '/books?filter=reviews/max(stars) lt 4&sort=id',
    ids: [2, 7, 8],
  },
  { name: 'no review at all: max() is NULL', path: '/books?filter=reviews/max(stars) is null', ids: [5] },
  {
    name: "authors of more than one live book (Lem's deleted book does not count)",
    path: '/authors?filter=books/count() gt 1&sort=id',
    ids: [1, 2, 3],
  },
];

/** A sort by an aggregate to walk with cursors, and the order it must give, computed here from the restated seed. */
export interface AggregateWalk {
  readonly path: string;
  readonly order: readonly number[];
}

const count = (id: number) => LIVE_STARS[id]!.length;
const avg = (id: number) => (count(id) ? LIVE_STARS[id]!.reduce((a, b) => a + b, 0) / count(id) : null);
const max = (id: number) => (count(id) ? Math.max(...LIVE_STARS[id]!) : null);

/** Sort book ids by a key, descending or not, NULLs last in both directions, then by id. */
function ordered(key: (id: number) => number | null, descending: boolean): number[] {
  return Object.keys(LIVE_STARS)
    .map(Number)
    .sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      if (x !== y) {
        if (x === null) return 1;
        if (y === null) return -1;
        return descending ? y - x : x - y;
      }
      return a - b;
    });
}

export const AGGREGATE_WALKS: readonly AggregateWalk[] = [
  { path: '/books?sort=-reviews/count(),id', order: ordered(count, true) },
  { path: '/books?sort=-reviews/avg(stars),id', order: ordered(avg, true) },
  { path: '/books?sort=reviews/max(stars),id', order: ordered(max, false) },
  // Le Guin 3 books, Calvino and Morrison 2, Lem 1 (the deleted book 9 is not counted).
  { path: '/authors?sort=-books/count(),id', order: [1, 2, 3, 4] },
];
