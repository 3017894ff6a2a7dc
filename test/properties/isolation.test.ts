/**
 * Isolation: under tenant A's base scope (a tenant filter registered with em.addFilter), list() never returns or
 * counts a row of tenant B — with filters through relations, sorts through relations, a search, and cursors minted
 * under B's scope. A cursor is position, not authority: from B's cursor, A's scope yields exactly A's rows after
 * that position, as the reference computes them. Soft delete on and off.
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
import { bookPolicy, bookSpec, generateLibrary, loadLibrary } from '../oracle/library.ts';
import { type Row, type Visibility, visible } from '../oracle/model.ts';
import { requestArb, requestValues, toQueryString } from '../oracle/request.ts';
import { compareSortKeys, sortKeyOf, sortRows } from '../oracle/sort.ts';
import { compareValues, dbModelFor } from '../oracle/values.ts';

const LIBRARY = generateLibrary(SEED ^ 0x5a5a);
const RUNS = budget(150);
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
  },
);

function bookById(id: unknown): Row {
  const row = LIBRARY.books.find((b) => b['id'] === id);
  if (!row) throw new Error(`no book ${String(id)}`);
  return row;
}
