/**
 * Property: over a generated library (books at the root; m:1, composite-key m:1, 1:1 owner and inverse, 1:m, m:n
 * owner and inverse, a self-reference; NULLs, empty and large collections, soft-deleted rows, two tenants), random
 * filters with to-one paths and nested any/all, random sorts through to-one relations and random pages give, through
 * createEngine().from(base).list(), exactly the reference's items, order and count, on SQLite and PostgreSQL; and
 * a full cursor walk whose page size changes between pages yields the reference order with no gap or duplicate, and
 * a walk back from its last page the rows before it.
 * Reviews are sometimes narrowed by a MikroORM filter whose condition reaches through Review.book (`pricedBook`).
 * Filters compare relation aggregates (count, sum, avg, min, max, with and without an inner filter), and sorts place
 * up to two aggregate keys among the field keys (`-reviews/count()`, `author/books/avg(price):nullsfirst`).
 */
import fc from 'fast-check';
import * as assert from 'uvu/assert';
import { createEngine, type Engine } from '../../src/engine/index.ts';
import { fromQueryString } from '../../src/syntax/query-string.ts';
import { Book, libraryEntities, libraryOptions, useTenant } from '../fixtures/library.ts';
import { NO_BUDGET } from '../helpers/budget.ts';
import { type DialectContext, eachDialect } from '../helpers/db.ts';
import { shapeFor } from '../oracle/arbitraries.ts';
import { budget, check, printable, SEED } from '../oracle/budget.ts';
import { bookPolicy, bookSpec, generateLibrary, loadLibrary } from '../oracle/library.ts';
import type { Visibility } from '../oracle/model.ts';
import { expectedRows, type GenRequest, requestArb, requestValues, toQueryString } from '../oracle/request.ts';
import { type DbModel, dbModelFor } from '../oracle/values.ts';
import { walkBackPages, walkPages } from '../oracle/walk.ts';

const LIBRARY = generateLibrary(SEED);
const RUNS = budget(1000);
const WALKS = budget(200);
const BACK = budget(60);
const SHAPE = { depth: 3, hops: 3, quantifiers: 2 };

interface Case {
  readonly request: GenRequest;
  readonly visibility: Visibility;
}

/** `pathFilter`: Review's `pricedBook` filter, whose condition reaches through Review.book (off with `filters: false`). */
const visibilityArb: fc.Arbitrary<Visibility> = fc
  .record(
    { softDelete: fc.boolean(), tenant: fc.constantFrom(1, 2), pathFilter: fc.boolean() },
    { requiredKeys: ['softDelete', 'pathFilter'] },
  )
  .map((v) => (v.tenant === undefined && !v.softDelete ? { ...v, pathFilter: false } : v));

/** Requests and scopes on a database that compares as `db` does. */
function caseArb(maxOffset: number, db: DbModel): fc.Arbitrary<Case> {
  return fc
    .record({
      request: requestArb(bookSpec, { ...SHAPE, ...shapeFor(db) }, maxOffset, SHAPE.hops, { aggregates: true }),
      visibility: visibilityArb.map((v) => ({ ...v, db })),
    })
    .map((c) =>
      printable(
        c,
        (x) =>
          `${toQueryString(requestValues(x.request))} (soft delete ${x.visibility.softDelete ? 'on' : 'off'}, tenant ${x.visibility.tenant ?? 'any'}${x.visibility.pathFilter ? ', pricedBook' : ''})`,
      ),
    );
}

/**
 * The engine scoped as the case says: a tenant through em.addFilter, soft delete on or off. With neither, a tenant
 * filter is still registered and `filters: false` must switch it off along with soft delete, in sub-queries too.
 */
function scopedFor(engine: Engine, ctx: DialectContext, visibility: Visibility) {
  return () => {
    const em = ctx.db.orm.em.fork();
    const everything = visibility.tenant === undefined && !visibility.softDelete;
    if (visibility.tenant !== undefined || everything) useTenant(em, visibility.tenant ?? 1);
    const base = (em as any).createQueryBuilder(Book, 'b');
    if (everything) return engine.from(base, { filters: false });
    const filters = {
      ...(visibility.softDelete ? {} : { softDelete: false }),
      ...(visibility.pathFilter ? { pricedBook: true } : {}),
    };
    return engine.from(base, { filters });
  };
}

function ids(rows: readonly { [k: string]: unknown }[]): unknown[] {
  return rows.map((r) => r['id']);
}

/** Create the engine under test: up to 100 rows with counts, and no limit on cost. */
function referenceEngine(ctx: DialectContext) {
  return createEngine(ctx.db.orm, {
    policy: bookPolicy,
    maxLimit: 100,
    allowCount: true,
    // Correctness over arbitrary requests, not cost: no budget, and no statement timeout (some continuation
    // shapes, UNION ALL seeks through relation sorts with nested quantifiers, take seconds on PostgreSQL).
    limits: NO_BUDGET,
    statementTimeout: false,
  });
}

eachDialect(
  'property: relationship filters and sorts through list() equal the reference',
  { entities: libraryEntities, seed: (em) => loadLibrary(em, LIBRARY), options: libraryOptions },
  (test, dialect) => {
    const db = dbModelFor(dialect);
    test(`${RUNS} random requests return the reference items, order, count and hasMore`, async (ctx) => {
      const engine = referenceEngine(ctx);
      await check(caseArb(LIBRARY.books.length + 5, db), RUNS, async ({ request, visibility }) => {
        const all = expectedRows(bookSpec, LIBRARY.books, request, visibility);
        const want = ids(all.slice(request.offset, request.offset + request.limit));
        const values = { ...requestValues(request), count: 'true' };
        const query = request.raw ? fromQueryString(`?${toQueryString(values)}`) : values;
        const page = await scopedFor(engine, ctx, visibility)().list(query);
        const tag = `${toQueryString(values)}`;
        assert.equal(
          ids(page.items),
          want,
          `${tag}\n got ${JSON.stringify(ids(page.items))}\n want ${JSON.stringify(want)}`,
        );
        assert.is(page.page.count, all.length, `${tag}: count`);
        if (request.limit > 0)
          assert.is(page.page.hasMore, all.length > request.offset + request.limit, `${tag}: hasMore`);
      });
    });

    test(`${WALKS} cursor walks with changing page sizes cover the reference order exactly once`, async (ctx) => {
      const engine = referenceEngine(ctx);
      const walk = fc.tuple(caseArb(0, db), fc.array(fc.integer({ min: 1, max: 25 }), { minLength: 1, maxLength: 6 }));
      await check(walk, WALKS, async ([{ request, visibility }, sizes]) => {
        const want = ids(expectedRows(bookSpec, LIBRARY.books, request, visibility));
        const values = { ...requestValues(request, { offset: false }), count: 'true' };
        const got = await walkPages(scopedFor(engine, ctx, visibility), values, sizes);
        assert.equal(
          got.ids,
          want,
          `${toQueryString(values)} sizes ${sizes}\n got ${JSON.stringify(got.ids)}\n want ${JSON.stringify(want)}`,
        );
        for (const count of got.counts) assert.is(count, want.length);
      });
    });

    test(`${BACK} walks back from the last page cover the rows before it exactly once`, async (ctx) => {
      const engine = referenceEngine(ctx);
      const walk = fc.tuple(caseArb(0, db), fc.array(fc.integer({ min: 1, max: 25 }), { minLength: 1, maxLength: 4 }));
      await check(walk, BACK, async ([{ request, visibility }, sizes]) => {
        const want = ids(expectedRows(bookSpec, LIBRARY.books, request, visibility));
        const values = requestValues(request, { offset: false });
        const forward = await walkPages(scopedFor(engine, ctx, visibility), values, sizes);
        const last = forward.trail.at(-1)!;
        if (!last.prevCursor) return;
        const back = await walkBackPages(scopedFor(engine, ctx, visibility), values, last.prevCursor, sizes);
        const label = `${toQueryString(values)} sizes ${sizes}`;
        assert.equal(back.ids, want.slice(0, want.length - last.ids.length), `${label}: rows before the last page`);
      });
    });
  },
);
