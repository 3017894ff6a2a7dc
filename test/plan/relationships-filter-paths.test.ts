/**
 * MikroORM filters whose condition reaches through a relation (test/fixtures/library.ts: `notCids`, `redTagged`,
 * `cheapOrStarred`, `redReader`), on a related entity a request reaches through a to-one path, a quantifier or a sort
 * join, and at the root. Each row is checked three ways on both dialects: the keys written by hand from the seed
 * table, planned the engine's way and through apply(); and the related rows the filter keeps must be exactly those
 * `em.find` returns with the same filter options (the reference for what such a filter means). The engine's list()
 * is checked at the root against em.find as well, for rows and count: a to-many condition never repeats a row.
 */
import type { EntityManager, FilterOptions } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { execute } from '../../src/engine/execute.ts';
import { createEngine } from '../../src/engine/index.ts';
import { Author, Book, libraryEntities, libraryOptions, Review, seedLibrary, useTenant } from '../fixtures/library.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { bookPolicy } from '../helpers/library-policies.ts';
import { keyOf, type LibraryRequest, type Mode, plan } from '../helpers/library-run.ts';

interface Row extends LibraryRequest {
  readonly keys: readonly (number | string)[];
  /** The related entity whose filter the row is about, and the ids em.find keeps of it with the row's filters. */
  readonly related: { readonly entity: object; readonly ids: readonly number[] };
}

const on = (...names: string[]): FilterOptions => Object.fromEntries(names.map((n) => [n, true]));

const ROWS: readonly Row[] = [
  // Review.book.author (to-one, two hops, required: inner joins carrying Book's and Author's soft delete).
  // Kept reviews: 1, 2 (Ann's Alpha), 3, 4 (Ann's Beta), 6 (Bob's Gamma), 7 (Eve's Eta); not 8, 9 (Cid), nor 10
  // (its book 6 is soft-deleted), nor 5 (soft-deleted itself).
  {
    root: 'book',
    filter: 'reviews/any(r: r/stars gte 0 or r/stars is null)',
    filters: on('notCids'),
    keys: [1, 2, 3, 7],
    related: { entity: Review, ids: [1, 2, 3, 4, 6, 7] },
  },
  {
    root: 'book',
    filter: 'reviews/any(r: r/stars gte 0 or r/stars is null)',
    filters: { softDelete: false, notCids: true },
    keys: [1, 2, 3, 6, 7],
    related: { entity: Review, ids: [1, 2, 3, 4, 5, 6, 7, 10] },
  },
  // Tenant 1 (an em.addFilter filter with a parameter): applies to the review and, inside the join, to its book.
  {
    root: 'book',
    filter: 'reviews/any(r: r/stars gte 0 or r/stars is null)',
    filters: on('notCids'),
    tenant: 1,
    keys: [1, 2, 3],
    related: { entity: Review, ids: [1, 2, 3, 4, 6] },
  },
  {
    root: 'book',
    filter: 'reviews/all(r: r/stars gte 4)',
    filters: on('notCids'),
    keys: [3, 4, 5, 7, 8],
    related: { entity: Review, ids: [1, 2, 3, 4, 6, 7] },
  },
  // Book.tags (m:n): books with a live red tag are 1 and 8 (6 is soft-deleted).
  {
    root: 'author',
    filter: 'books/any(b: b/price gt 0)',
    filters: on('redTagged'),
    keys: [1, 3],
    related: { entity: Book, ids: [1, 8] },
  },
  {
    root: 'tag',
    filter: "books/any(b: b/title eq 'Beta')",
    filters: on('redTagged'),
    keys: [],
    related: { entity: Book, ids: [1, 8] },
  },
  // Book: `$or` of a column and a 1:m path: books under 10 (4, 8) or with a live 5-star review (1, 3, 7, 8).
  {
    root: 'author',
    filter: "books/any(b: b/title eq 'Beta')",
    filters: on('cheapOrStarred'),
    keys: [],
    related: { entity: Book, ids: [1, 3, 4, 7, 8] },
  },
  {
    root: 'author',
    filter: "books/any(b: b/title eq 'Delta')",
    filters: on('cheapOrStarred'),
    keys: [3],
    related: { entity: Book, ids: [1, 3, 4, 7, 8] },
  },
  // Author.books.tags (1:m then m:n) on a to-one path, and in a sort join (ON clause): Ann and Cid are kept.
  {
    root: 'book',
    filter: "author/name eq 'Bob'",
    filters: on('redReader'),
    keys: [],
    related: { entity: Author, ids: [1, 3] },
  },
  {
    root: 'book',
    filter: "author/name eq 'Cid'",
    filters: on('redReader'),
    keys: [4, 8],
    related: { entity: Author, ids: [1, 3] },
  },
  {
    root: 'book',
    sort: 'author/name',
    filters: on('redReader'),
    keys: [1, 2, 4, 8, 3, 5, 7],
    related: { entity: Author, ids: [1, 3] },
  },
  {
    root: 'profile',
    sort: 'author/name',
    filters: on('redReader'),
    keys: [1, 3, 4],
    related: { entity: Author, ids: [1, 3] },
  },
  // Profiles through the 1:1 inverse side: only Ann's profile (1) has a kept author.
  {
    root: 'profile',
    filter: "author/name ne 'zzz'",
    filters: on('redReader'),
    keys: [1],
    related: { entity: Author, ids: [1, 3] },
  },
];

function label(row: Row): string {
  const tenant = row.tenant === undefined ? undefined : `tenant=${row.tenant}`;
  return [
    row.root,
    row.filter && `filter=${row.filter}`,
    row.sort && `sort=${row.sort}`,
    JSON.stringify(row.filters),
    tenant,
  ]
    .filter(Boolean)
    .join(' ');
}

/** The SQL with every parenthesized part (sub-queries, ON-clause EXISTS) removed: the root query's own clauses. */
function outside(sql: string): string {
  let depth = 0;
  let out = '';
  for (const c of sql) {
    if (c === '(') depth++;
    if (depth === 0) out += c;
    if (c === ')') depth--;
  }
  return out;
}

async function findIds(em: EntityManager, entity: object, filters: FilterOptions | undefined): Promise<number[]> {
  const found = await em.find(entity as typeof Book, {}, { filters: filters ?? {}, orderBy: { id: 'asc' } });
  return found.map((e) => e.id);
}

eachDialect(
  'relationships: filter conditions through relations',
  { entities: libraryEntities, seed: seedLibrary, options: libraryOptions },
  (test) => {
    for (const row of ROWS) {
      test(`em.find agrees: ${label(row)}`, async ({ em }) => {
        if (row.tenant !== undefined) useTenant(em, row.tenant);
        assert.equal(await findIds(em, row.related.entity, row.filters), row.related.ids);
      });
      for (const mode of ['plan', 'apply'] as const satisfies readonly Mode[]) {
        test(`${mode}: ${label(row)}`, async ({ em }) => {
          const qb = await plan(em, row, mode);
          const sql = qb.getQuery();
          // A filter condition never joins into the root query; only the sort's to-one path does.
          assert.is(outside(sql).split(' join ').length - 1, row.sort ? 1 : 0, sql);
          // The filters' values stay bound parameters.
          assert.not.match(sql, /'(Cid|red)'/);
          const rows = await execute<Record<string, unknown>>(qb);
          assert.equal(
            rows.map((r) => keyOf(row.root, r)),
            row.keys,
          );
        });
      }
    }

    // The values of such conditions reach the driver as bound parameters, never spliced into the SQL text.
    test('the engine sends relation-path filter values as bound parameters', async ({ em }) => {
      const engine = createEngine(em, { policy: bookPolicy });
      const filters = { notCids: true, redTagged: true };
      const scoped = engine.from((em as any).createQueryBuilder(Book, 'b'), { filters });
      const { result, calls } = await captureDriver(() =>
        scoped.list({ filter: 'reviews/any(r: r/stars gte 0)', sort: 'author/name' }),
      );
      assert.equal(
        result.items.map((i) => i.id),
        [1],
      );
      const data = calls.find((c) => c.sql.includes('review'));
      assert.ok(data, 'the data query was sent');
      assert.not.match(data.sql, /Cid|red/);
      assert.ok(data.values.includes('Cid') && data.values.includes('red'), JSON.stringify(data.values));
    });

    // At the root: the engine and apply() keep a book once however many of its tags or reviews match, as em.find.
    const ROOT: readonly { readonly filters: FilterOptions; readonly ids: readonly number[] }[] = [
      { filters: on('redTagged'), ids: [1, 8] },
      // The only green tag is soft-deleted: as in em.find, a joined entity's filters apply in its join.
      { filters: on('greenTagged'), ids: [] },
      { filters: { softDelete: false, greenTagged: true }, ids: [3, 8] },
      // Books 1 and 8 have two tags each. Tag ids are compared on the pivot table alone, so, as in em.find, no Tag
      // filter applies: book 3's soft-deleted tag counts.
      { filters: on('tagged'), ids: [1, 2, 3, 8] },
      { filters: on('cheapOrStarred'), ids: [1, 3, 4, 7, 8] },
      { filters: { softDelete: false, redTagged: true }, ids: [1, 6, 8] },
    ];
    for (const { filters, ids } of ROOT) {
      test(`root: list() and count as em.find, ${JSON.stringify(filters)}`, async ({ em }) => {
        assert.equal(await findIds(em, Book, filters), ids);
        const engine = createEngine(em, { policy: bookPolicy, allowCount: true, maxLimit: 100 });
        const scoped = engine.from((em as any).createQueryBuilder(Book, 'b').where({ tenant: 1 }), { filters });
        // A sort join beside the condition: MikroORM's own root join would need its pagination wrapper, which breaks.
        const page = await scoped.list('count=true&limit=100&sort=-author/name');
        assert.equal(
          page.items.map((i) => i.id as number).sort((a, b) => a - b),
          ids.filter((id) => id !== 7),
        );
        assert.is(page.page.count, ids.filter((id) => id !== 7).length);
        const walked: unknown[] = [];
        for await (const item of scoped.items('sort=-title', undefined, { pageSize: 2 })) walked.push(item.id);
        assert.is(walked.length, page.items.length);
      });
      test(`root: apply() as em.find, ${JSON.stringify(filters)}`, async ({ em }) => {
        const qb = await plan(em, { root: 'book', filters, sort: 'author/name,id' }, 'apply');
        const rows = await execute<Record<string, unknown>>(qb);
        assert.equal(
          rows.map((r) => r.id as number).sort((a, b) => a - b),
          [...ids],
        );
      });
    }
  },
);
