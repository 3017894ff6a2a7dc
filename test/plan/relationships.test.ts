/**
 * Relationship filters and sorts, end to end on both dialects: each row is a request (root, filter, sort, filter
 * options, tenant) and the root keys it must return, in order. Expected keys are written by hand from the seed
 * table in test/fixtures/library.ts. Without a sort, rows come by primary key. Every row runs planned the engine's
 * way (prepareFilters + planResolved) and through apply(); both must agree with the hand-written answer.
 * Each query is also checked for its shape: no to-many relation is joined into the root.
 */
import type { FilterOptions } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { execute } from '../../src/engine/execute.ts';
import { libraryEntities, libraryOptions, seedLibrary } from '../fixtures/library.ts';
import { eachDialect } from '../helpers/db.ts';
import { keyOf, type LibraryRequest, type Mode, plan } from '../helpers/library-run.ts';

interface Row extends LibraryRequest {
  readonly keys: readonly (number | string)[];
}

const ALL_ROWS: FilterOptions = { softDelete: false };

const ROWS: readonly Row[] = [
  // m:1, not null FK. Author 4 (Dee) is soft-deleted: book 5 has no live author.
  { root: 'book', filter: "author/name eq 'Ann'", keys: [1, 2] },
  { root: 'book', filter: "author/name eq 'Dee'", keys: [] },
  { root: 'book', filter: "author/name eq 'Dee'", filters: ALL_ROWS, keys: [5] },
  { root: 'book', filter: "author/name ne 'Ann'", keys: [3, 4, 7, 8] },
  // A to-one comparison is FALSE, never NULL, when there is no live related row: `not` includes book 5.
  { root: 'book', filter: "not (author/name eq 'Ann')", keys: [3, 4, 5, 7, 8] },
  { root: 'book', filter: "author/name eq 'Ann' or author/name eq 'Cid'", keys: [1, 2, 4, 8] },
  // m:1, nullable composite FK (publisher_tenant, publisher_id): (1,1) Penguin and (2,1) Hanser share id 1.
  { root: 'book', filter: "publisher/name eq 'Penguin'", keys: [1, 5] },
  { root: 'book', filter: "publisher/name eq 'Hanser'", keys: [7] },
  { root: 'book', filter: "not (publisher/name eq 'Penguin')", keys: [2, 3, 4, 7, 8] },
  { root: 'book', filter: 'publisher/id gt 0', keys: [1, 2, 5, 7, 8] },
  { root: 'book', filter: 'publisher/id gt 0', filters: ALL_ROWS, keys: [1, 2, 4, 5, 7, 8] },
  { root: 'book', filter: 'publisher/tenant eq 1 and publisher/id eq 2', keys: [2, 8] },
  // Multi-hop to-one paths; a deleted publisher or country breaks the path.
  { root: 'book', filter: "publisher/country/code eq 'US'", keys: [1, 5] },
  { root: 'book', filter: "publisher/country/code eq 'US'", filters: ALL_ROWS, keys: [1, 4, 5] },
  { root: 'book', filter: "publisher/country/code eq 'DE'", keys: [] },
  { root: 'book', filter: "publisher/country/code eq 'DE'", filters: ALL_ROWS, keys: [7] },
  { root: 'book', filter: "category/parent/name eq 'root'", keys: [1] },
  { root: 'book', filter: "category/parent/name eq 'old'", keys: [] },
  { root: 'book', filter: "category/parent/name eq 'old'", filters: ALL_ROWS, keys: [5] },
  { root: 'book', filter: "author/name eq 'Eve'", keys: [7] },
  { root: 'book', filter: "author/name eq 'Eve'", tenant: 1, keys: [] },
  // 1:m any. Soft-deleted review 5 (2 stars) and book 6; reviews 7 and 9 belong to tenant 2.
  { root: 'book', filter: 'reviews/any(r: r/stars eq 5)', keys: [1, 3, 7, 8] },
  { root: 'book', filter: 'reviews/any(r: r/stars eq 5)', tenant: 1, keys: [1, 3] },
  { root: 'book', filter: 'reviews/any(r: r/stars eq 5)', filters: false, keys: [1, 3, 7, 8] },
  { root: 'book', filter: 'reviews/any(r: r/stars lt 3)', keys: [8] },
  { root: 'book', filter: 'reviews/any(r: r/stars lt 3)', filters: ALL_ROWS, keys: [3, 6, 8] },
  { root: 'book', filter: 'reviews/any(r: r/tenant eq 2)', keys: [7, 8] },
  { root: 'book', filter: 'reviews/any(r: r/tenant eq 2)', tenant: 1, keys: [] },
  { root: 'book', filter: 'reviews/any(r: r/stars eq 5) and reviews/any(r: r/stars eq 3)', keys: [1] },
  { root: 'book', filter: 'not reviews/any(r: r/stars eq 5)', keys: [2, 4, 5] },
  // 1:m all: true for an empty collection (books 4, 5), false when a child's predicate is NULL (review 3).
  { root: 'book', filter: 'reviews/all(r: r/stars gte 3)', keys: [1, 3, 4, 5, 7] },
  { root: 'book', filter: 'reviews/all(r: r/stars gte 3)', filters: ALL_ROWS, keys: [1, 4, 5, 7] },
  { root: 'book', filter: 'reviews/all(r: r/stars gte 0)', keys: [1, 3, 4, 5, 7, 8] },
  { root: 'book', filter: 'reviews/all(r: r/stars gte 0 or r/stars is null)', keys: [1, 2, 3, 4, 5, 7, 8] },
  { root: 'book', filter: 'not reviews/all(r: r/stars gte 3)', keys: [2, 8] },
  // A global filter (MikroORM config, off by default) switched on by the options: reviews with 3+ stars only.
  { root: 'book', filter: 'reviews/any(r: r/stars lt 4)', keys: [1, 8] },
  { root: 'book', filter: 'reviews/any(r: r/stars lt 4)', filters: { highStars: true }, keys: [1] },
  // m:n owner through the pivot table `lq3`; tag 3 (green) is soft-deleted.
  { root: 'book', filter: "tags/any(t: t/label eq 'red')", keys: [1, 8] },
  { root: 'book', filter: "tags/any(t: t/label eq 'red')", filters: ALL_ROWS, keys: [1, 6, 8] },
  { root: 'book', filter: "tags/any(t: t/label eq 'green')", keys: [] },
  { root: 'book', filter: "tags/any(t: t/label eq 'green')", filters: ALL_ROWS, keys: [3, 8] },
  { root: 'book', filter: "tags/all(t: t/label eq 'red')", keys: [3, 4, 5, 7, 8] },
  { root: 'book', filter: "not tags/any(t: t/label eq 'red')", keys: [2, 3, 4, 5, 7] },
  { root: 'book', filter: 'tags/any(t: t/id gt 0)', keys: [1, 2, 8] },
  // An entity filter with an asynchronous condition and arguments from the options.
  { root: 'book', filter: 'tags/any(t: t/id gt 0)', filters: { labelled: { not: 'red' } }, keys: [1, 2] },
  // A quantifier after a to-one hop; a broken hop (deleted author 4) leaves no children, so `all` holds.
  { root: 'book', filter: 'author/books/any(b: b/price gt 25)', keys: [3] },
  { root: 'book', filter: 'author/books/all(b: b/price gte 10)', keys: [3, 5, 7] },
  // Authors: 1:1 owner (profile 2 is soft-deleted), 1:m with nested quantifiers and outer variables.
  { root: 'author', filter: "profile/bio eq 'poet'", keys: [1] },
  { root: 'author', filter: 'profile/bio is null', keys: [5] },
  { root: 'author', filter: "profile/bio eq 'novelist'", keys: [] },
  { root: 'author', filter: "profile/bio eq 'novelist'", filters: ALL_ROWS, keys: [2] },
  { root: 'author', filter: 'books/any(b: b/reviews/any(r: r/stars gte 4))', keys: [1, 2, 3, 5] },
  { root: 'author', filter: 'books/any(b: b/reviews/any(r: r/stars gte 4))', tenant: 1, keys: [1, 2] },
  { root: 'author', filter: 'books/any(b: b/reviews/any(r: r/stars gte 4 and b/price gt 10))', keys: [2, 5] },
  { root: 'author', filter: "books/any(b: b/publisher/country/code eq 'FR')", keys: [1, 3] },
  { root: 'author', filter: "books/any(b: b/author/name eq 'Ann')", keys: [1] },
  { root: 'author', filter: 'books/all(b: b/price gt 0)', keys: [2, 3, 5] },
  { root: 'author', filter: 'books/all(b: b/price gt 0)', filters: ALL_ROWS, keys: [2, 3, 4, 5] },
  // Profiles: the 1:1 inverse side, correlated through author.profile_id.
  { root: 'profile', filter: "author/name eq 'Ann'", keys: [1] },
  { root: 'profile', filter: "author/name eq 'Bob'", keys: [] },
  { root: 'profile', filter: "author/name eq 'Bob'", filters: ALL_ROWS, keys: [2] },
  { root: 'profile', filter: "not (author/name ne 'zzz')", keys: [4] },
  // Tags: the m:n inverse side.
  { root: 'tag', filter: "books/any(b: b/title eq 'Theta')", keys: [1] },
  { root: 'tag', filter: "books/any(b: b/title eq 'Theta')", filters: ALL_ROWS, keys: [1, 3] },
  { root: 'tag', filter: "books/any(b: b/author/name eq 'Ann')", keys: [1, 2] },
  { root: 'tag', filter: 'books/all(b: b/price lt 12)', keys: [1] },
  { root: 'tag', filter: 'books/all(b: b/price lt 12)', filters: ALL_ROWS, keys: [] },
  // Categories: a self-referential tree (category 4 'old' is soft-deleted).
  { root: 'category', filter: "parent/name eq 'root'", keys: [2] },
  { root: 'category', filter: "parent/parent/name eq 'root'", keys: [3] },
  { root: 'category', filter: "parent/parent/name eq 'root'", filters: ALL_ROWS, keys: [3, 5] },
  { root: 'category', filter: "children/any(c: c/name eq 'poetry')", keys: [2] },
  { root: 'category', filter: "children/any(c: c/children/any(d: d/name eq 'poetry'))", keys: [1] },
  { root: 'category', filter: "children/all(c: c/name ne 'old')", keys: [1, 2, 3, 5] },
  { root: 'category', filter: "children/all(c: c/name ne 'old')", filters: ALL_ROWS, keys: [2, 3, 4, 5] },
  // Publishers: the 1:m side of the composite, tenant-relative key (both FK columns are compared).
  { root: 'publisher', filter: "books/any(b: b/title eq 'Eta')", keys: ['2/1'] },
  { root: 'publisher', filter: "books/any(b: b/title eq 'Alpha')", keys: ['1/1'] },
  { root: 'publisher', filter: 'books/any(b: b/price gt 10)', keys: ['1/1', '2/1'] },
  { root: 'publisher', filter: "country/code eq 'US'", keys: ['1/1'] },
  { root: 'publisher', filter: "country/code eq 'US'", filters: ALL_ROWS, keys: ['1/1', '1/3'] },
  // To-one sorts: LEFT JOINs; a missing or filtered related row sorts as NULL, last; the PK breaks ties.
  { root: 'book', sort: 'author/name', keys: [1, 2, 3, 4, 8, 7, 5] },
  { root: 'book', sort: 'author/name', filters: ALL_ROWS, keys: [1, 2, 3, 6, 4, 8, 5, 7] },
  { root: 'book', sort: '-author/name', keys: [7, 4, 8, 3, 1, 2, 5] },
  { root: 'book', sort: 'author/name,author/id', keys: [1, 2, 3, 4, 8, 7, 5] },
  { root: 'book', sort: 'publisher/country/code,-price', keys: [8, 2, 5, 1, 3, 7, 4] },
  { root: 'book', sort: 'category/parent/name', keys: [2, 1, 3, 4, 5, 7, 8] },
  { root: 'book', sort: '-publisher/name', tenant: 1, keys: [1, 5, 2, 8, 3, 4] },
  { root: 'book', filter: "author/name eq 'Cid'", sort: '-title', keys: [8, 4] },
  { root: 'book', filter: 'reviews/any(r: r/stars gte 3)', sort: '-author/name', keys: [7, 8, 3, 1, 2] },
  { root: 'author', sort: 'profile/bio', keys: [1, 2, 3, 5] },
  { root: 'author', sort: 'profile/bio', filters: ALL_ROWS, keys: [2, 1, 3, 4, 5] },
  { root: 'profile', sort: 'author/name', keys: [1, 3, 4] },
  { root: 'category', sort: 'parent/name', keys: [3, 2, 1, 5] },
  { root: 'publisher', sort: '-country/name', keys: ['1/1', '1/2', '2/1'] },
];

function label(row: Row): string {
  const parts: string[] = [row.root];
  if (row.filter) parts.push(`filter=${row.filter}`);
  if (row.sort) parts.push(`sort=${row.sort}`);
  if (row.filters !== undefined) parts.push(`filters=${JSON.stringify(row.filters)}`);
  if (row.tenant !== undefined) parts.push(`tenant=${row.tenant}`);
  return parts.join(' ');
}

/** Count the LEFT JOINs a request's sort needs: one per distinct to-one path prefix. */
function sortJoins(sort: string | undefined): number {
  const paths = new Set<string>();
  for (const term of (sort ?? '').split(',')) {
    const segments = term.replace(/^-/, '').split('/').slice(0, -1);
    segments.forEach((_, i) => {
      paths.add(segments.slice(0, i + 1).join('/'));
    });
  }
  return paths.size;
}

eachDialect(
  'relationships: filters and sorts',
  { entities: libraryEntities, seed: seedLibrary, options: libraryOptions },
  (test) => {
    for (const mode of ['plan', 'apply'] as const satisfies readonly Mode[]) {
      for (const row of ROWS) {
        test(`${mode}: ${label(row)}`, async ({ em }) => {
          const qb = await plan(em, row, mode);
          const sql = qb.getQuery();
          // The root's own FROM clause: only the sort's to-one LEFT JOINs, never a join for a filter.
          const head = sql.slice(0, sql.indexOf(' where ') >= 0 ? sql.indexOf(' where ') : sql.indexOf(' order by '));
          assert.is(head.split(' join ').length - 1, sortJoins(row.sort), head);
          assert.is(head.split(' left join ').length - 1, sortJoins(row.sort), head);
          const rows = await execute<Record<string, unknown>>(qb);
          assert.equal(
            rows.map((r) => keyOf(row.root, r)),
            row.keys,
          );
        });
      }
    }
  },
);
