/**
 * Isolation: under tenant A's base scope (a tenant filter registered with em.addFilter), list() never returns or
 * counts a row of tenant B — with filters through relations, sorts through relations, a search, and cursors minted
 * under B's scope. A cursor is position, not authority: from B's cursor, A's scope yields exactly A's rows after
 * that position, as the reference computes them. Soft delete on and off.
 *
 * Nested selections too: at every level of a random tree (to-one objects, nested pages, through m:n and inverse
 * 1:1), no row of B and, with soft delete on, no soft-deleted row appears, and the answer is the reference's; a
 * nested cursor minted with every filter off (its position may be a row of B or a deleted one) continues, under A,
 * at exactly A's rows after that position.
 */
import fc from 'fast-check';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { Book, libraryEntities, useTenant } from '../fixtures/library.ts';
import { NO_BUDGET } from '../helpers/budget.ts';
import { type DialectContext, eachDialect } from '../helpers/db.ts';
import { shapeFor } from '../oracle/arbitraries.ts';
import { budget, check, SEED } from '../oracle/budget.ts';
import { evaluate } from '../oracle/evaluate.ts';
import type { GenFilter } from '../oracle/filter.ts';
import { bookPolicy, bookSpec, bookTreeSpec, generateLibrary, loadLibrary, rowOfItem } from '../oracle/library.ts';
import { type Row, type Visibility, visible } from '../oracle/model.ts';
import { requestArb, requestValues, toQueryString } from '../oracle/request.ts';
import { compareSortKeys, sortKeyOf, sortRows } from '../oracle/sort.ts';
import {
  expectedItems,
  firstDifference,
  type GenSelection,
  listKey,
  listRows,
  maskCursors,
  nestedValues,
  printFields,
  visitItems,
} from '../oracle/tree.ts';
import { treeRequestArb, treeValues } from '../oracle/tree-arbitraries.ts';
import { treeEngine } from '../oracle/tree-engine.ts';
import { compareValues, dbModelFor } from '../oracle/values.ts';

const LIBRARY = generateLibrary(SEED ^ 0x5a5a);
const RUNS = budget(150);
const TREES = budget(60);
const TITLES = [...new Set(LIBRARY.books.map((b) => b['title'] as string))].filter((t) => t !== '');

function scoped(ctx: DialectContext, tenant: number, softDelete: boolean) {
  // An exact-match search keeps the reference simple; what matters is that it cannot widen the scope.
  const engine = createEngine(ctx.db.orm, {
    policy: bookPolicy,
    allowCount: true,
    search: (_ctx, qb, term) => qb.andWhere({ title: term }),
    limits: NO_BUDGET,
  });
  return () => {
    const em = ctx.db.orm.em.fork();
    useTenant(em, tenant);
    return engine.from((em as any).createQueryBuilder(Book, 'b'), softDelete ? {} : { filters: { softDelete: false } });
  };
}

eachDialect(
  'isolation: tenant A never sees tenant B',
  { entities: libraryEntities, seed: (em) => loadLibrary(em, LIBRARY) },
  (test, dialect) => {
    const db = dbModelFor(dialect);
    test(`${RUNS} requests under A with cursors minted under B return only A's rows`, async (ctx) => {
      const arb = fc.record({
        request: requestArb(bookSpec, { depth: 2, hops: 2, quantifiers: 1, ...shapeFor(db) }, 0),
        tenant: fc.constantFrom(1, 2),
        softDelete: fc.boolean(),
        search: fc.option(fc.constantFrom(...TITLES), { nil: undefined }),
        minted: fc.integer({ min: 1, max: 8 }),
      });
      await check(arb, RUNS, async ({ request, tenant, softDelete, search, minted }) => {
        const other = 3 - tenant;
        const values: Record<string, string> = {
          ...requestValues(request, { offset: false }),
          limit: String(Math.max(request.limit, 1)),
          count: 'true',
          ...(search === undefined ? {} : { search }),
        };
        const tag = toQueryString(values);
        const inScope = (vis: Visibility) => (row: Row) =>
          visible(bookSpec, row, vis) &&
          // The search hook's `title = term` compares under the column's collation.
          (search === undefined || compareValues('string', row['title'] as string, search, db) === 0) &&
          (!request.filter ||
            evaluate(request.filter, row, { root: bookSpec, visibility: vis, variables: new Map() }) === true);
        const visA: Visibility = { softDelete, tenant, db };
        const visB: Visibility = { softDelete, tenant: other, db };
        const rowsA = sortRows(bookSpec, LIBRARY.books.filter(inScope(visA)), request.sort, visA);
        const rowsB = sortRows(bookSpec, LIBRARY.books.filter(inScope(visB)), request.sort, visB);

        // Mint a cursor under B: the first page of `minted` rows.
        const pageB = await scoped(ctx, other, softDelete)().list({ ...values, limit: String(minted) });
        assert.equal(
          pageB.items.map((i) => i['id']),
          rowsB.slice(0, minted).map((r) => r['id']),
          `${tag}: B's first page`,
        );
        for (const item of pageB.items) assert.is(bookById(item['id'])['tenant'], other);
        const cursor = pageB.page.nextCursor;

        const pageA = await scoped(ctx, tenant, softDelete)().list({ ...values, ...(cursor ? { cursor } : {}) });
        const limit = Number(values['limit']);
        let want = rowsA;
        if (cursor) {
          const last = bookById(pageB.items[pageB.items.length - 1]!['id']);
          const at = sortKeyOf(bookSpec, request.sort, last, visB);
          want = rowsA.filter(
            (r) => compareSortKeys(bookSpec, request.sort, sortKeyOf(bookSpec, request.sort, r, visA), at, db) > 0,
          );
        }
        for (const item of pageA.items) assert.is(bookById(item['id'])['tenant'], tenant, `${tag}: B's row under A`);
        assert.equal(
          pageA.items.map((i) => i['id']),
          want.slice(0, limit).map((r) => r['id']),
          `${tag}: A's page after B's cursor`,
        );
        assert.is(pageA.page.count, rowsA.length, `${tag}: A's count`);
      });
    });

    test(`${TREES} nested selections under A: no row of B, no deleted row, at any level`, async (ctx) => {
      const engine = treeEngine(ctx.db.orm);
      const shape = { depth: 2, hops: 2, quantifiers: 1, ...shapeFor(db) };
      const arb = fc.record({
        t: treeRequestArb(bookTreeSpec, shape, { depth: 4, width: 3, filter: shape, sortHops: 2 }, 0),
        tenant: fc.constantFrom(1, 2),
        softDelete: fc.boolean(),
      });
      await check(arb, TREES, async ({ t, tenant, softDelete }) => {
        const visibility: Visibility = { softDelete, tenant, db };
        const values = treeValues(t);
        const tag = `${toQueryString(values)} (tenant ${tenant}, soft delete ${softDelete ? 'on' : 'off'})`;
        const page = await scopedTree(ctx, engine, tenant, softDelete).list(values);
        visitItems(bookTreeSpec, page.items, t.tree, (entity, item, path) => {
          const row = rowOfItem(LIBRARY, entity, item);
          assert.ok(row, `${tag}: ${path || 'top'} has an item of no ${entity.name} row`);
          if (entity.tenant)
            assert.is(row['tenant'], tenant, `${tag}: a ${entity.name} of tenant ${other(tenant)} at ${path}`);
          if (softDelete) assert.is(row['deletedAt'], null, `${tag}: a deleted ${entity.name} at ${path}`);
        });
        const rows = sortRows(
          bookTreeSpec,
          LIBRARY.books.filter(inScopeOf(t.request.filter, visibility)),
          t.request.sort,
          visibility,
        );
        const want = expectedItems(bookTreeSpec, rows.slice(0, t.request.limit), t.tree, { visibility });
        const diff = firstDifference(maskCursors(page.items), want);
        assert.ok(diff === undefined, `${tag}\n  ${diff}`);
      });
    });

    test(`${TREES} nested cursors minted with every filter off continue at A's rows only`, async (ctx) => {
      const engine = treeEngine(ctx.db.orm);
      const reviews = bookTreeSpec.relations.find((r) => r.name === 'reviews')!;
      const everything: Visibility = { softDelete: false, db };
      const arb = fc.record({
        book: fc.nat(LIBRARY.books.length - 1),
        minted: fc.integer({ min: 1, max: 4 }),
        limit: fc.integer({ min: 1, max: 6 }),
        descending: fc.boolean(),
        softDelete: fc.boolean(),
      });
      await check(arb, TREES, async ({ book: at, minted, limit, descending, softDelete }) => {
        // A book with reviews of both tenants or deleted ones, when there is one near the drawn index.
        const books = LIBRARY.books.filter((b) => (b['reviews'] as Row[]).length > minted);
        if (books.length === 0) return;
        const book = books[at % books.length]!;
        const tenant = book['tenant'] as number;
        const visibility: Visibility = { softDelete, tenant, db };
        if (!visible(bookTreeSpec, book, visibility)) return;
        const sel = (list: { limit: number; cursor?: string }): GenSelection => ({
          key: 'reviews',
          relation: reviews,
          fields: ['stars'],
          selections: [],
          list: {
            sort: [{ hops: [], field: reviews.target().fields[1]!, direction: descending ? 'desc' : 'asc' }],
            ...list,
          },
        });
        const top = (s: GenSelection) => ({ fields: ['id'], selections: [s] });
        const request = (s: GenSelection) => ({
          filter: `id eq ${book['id']}`,
          fields: printFields(top(s)),
          ...nestedValues(top(s)),
        });
        const mintedSel = sel({ limit: minted });
        const first = await engine
          .from((ctx.db.orm.em.fork() as any).createQueryBuilder(Book, 'b'), { filters: false })
          .list(request(mintedSel));
        const nested = first.items[0]!['reviews'] as { page: { nextCursor?: string } };
        const cursor = nested.page.nextCursor;
        if (!cursor) return;
        const last = listRows(book, mintedSel, everything)[minted - 1]!;
        const key = listKey(last, mintedSel, everything);
        const continued = sel({ limit, cursor });
        const values = request(continued);
        const tag = `${toQueryString(values)} (tenant ${tenant}, soft delete ${softDelete ? 'on' : 'off'})`;
        const page = await scopedTree(ctx, engine, tenant, softDelete).list(values);
        const scope = { visibility, continued: new Map([['reviews', { parent: book, backward: false, key }]]) };
        const diff = firstDifference(
          maskCursors(page.items),
          expectedItems(bookTreeSpec, [book], top(continued), scope),
        );
        assert.ok(diff === undefined, `${tag}\n  ${diff}`);
      });
    });
  },
);

/** The tree engine under tenant A (em.addFilter), soft delete on or off. */
function scopedTree(ctx: DialectContext, engine: ReturnType<typeof treeEngine>, tenant: number, softDelete: boolean) {
  const em = ctx.db.orm.em.fork();
  useTenant(em, tenant);
  return engine.from((em as any).createQueryBuilder(Book, 'b'), softDelete ? {} : { filters: { softDelete: false } });
}

const other = (tenant: number) => 3 - tenant;

/** Root rows in scope: visible, and matching the top-level filter if any. */
function inScopeOf(filter: GenFilter | undefined, visibility: Visibility) {
  return (row: Row) =>
    visible(bookTreeSpec, row, visibility) &&
    (!filter || evaluate(filter, row, { root: bookTreeSpec, visibility, variables: new Map() }) === true);
}

function bookById(id: unknown): Row {
  const row = LIBRARY.books.find((b) => b['id'] === id);
  if (!row) throw new Error(`no book ${String(id)}`);
  return row;
}
