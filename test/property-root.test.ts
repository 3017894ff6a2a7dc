/**
 * Property: for random filters, sorts and pages within the catalog policy (every scalar kind, every operator),
 * parseHTTP → bind → apply → execute returns exactly the reference's rows in the reference's order, and
 * executeCount the reference's count, on SQLite and on PostgreSQL. See docs/testing.md ("The reference oracle").
 */
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { execute, executeCount } from '../src/engine/execute.ts';
import { createEngine } from '../src/engine/index.ts';
import { fromQueryString } from '../src/http/query-string.ts';
import { apply } from '../src/plan/index.ts';
import { parseHTTP } from '../src/syntax/index.ts';
import { catalogEntities, Product } from './fixtures/catalog.ts';
import { eachDialect } from './helpers/db.ts';
import { budget, check, SEED } from './oracle/budget.ts';
import { generateProducts, loadProducts, productPolicy, productSpec } from './oracle/catalog.ts';
import { expectedRows, type GenRequest, requestArb, requestValues, toQueryString } from './oracle/request.ts';
import { walkPages } from './oracle/walk.ts';

const ROWS = generateProducts(SEED, 160);
const RUNS = budget(2000);
const WALKS = budget(200);
const OFFSET_WALKS = budget(60);
const SHAPE = { depth: 4, hops: 0, quantifiers: 0 };
const ALL = { softDelete: false };

function base(em: EntityManager) {
  return (em as any).createQueryBuilder(Product, 'p');
}

function ids(rows: readonly Record<string, unknown>[]): unknown[] {
  return rows.map((r) => r['id']);
}

function describe(r: GenRequest, actual: unknown, expected: unknown): string {
  return `request ${toQueryString(requestValues(r))}\n  got      ${JSON.stringify(actual)}\n  expected ${JSON.stringify(expected)}`;
}

/** Run one request through the public lower-level path, optionally from a raw query string. */
async function page(orm: MikroORM, r: GenRequest, values: Record<string, string>, count = true) {
  const query = r.raw ? fromQueryString(`?${toQueryString(values)}`) : values;
  const bound = productPolicy.bind(orm);
  const em = orm.em.fork();
  const parsed = parseHTTP(query);
  return {
    rows: await execute(apply(base(em), bound, parsed)),
    count: count ? await executeCount(apply(base(em), bound, parsed)) : undefined,
  };
}

eachDialect(
  'property: root filters, sorts and pages equal the reference',
  { entities: catalogEntities, seed: (em) => loadProducts(em, ROWS) },
  (test) => {
    test('the database orders strings by code point, as the reference does', async ({ em }) => {
      const strings = ['b', 'B', 'a', 'é', 'z', '😀', '\uFFFD', '\uE000', 'a b', 'ab', ''];
      const c = em.getConnection();
      const rows = await c.execute(
        `select v from (${strings.map(() => 'select ? as v').join(' union all ')}) t order by v`,
        strings,
      );
      assert.equal(
        rows.map((r: { v: string }) => r.v),
        ['', 'B', 'a', 'a b', 'ab', 'b', 'z', 'é', '\uE000', '\uFFFD', '😀'],
      );
    });

    test(`${RUNS} random requests return the reference rows, order and count`, async ({ db }) => {
      await check(requestArb(productSpec, SHAPE, ROWS.length + 5), RUNS, async (r) => {
        const all = expectedRows(productSpec, ROWS, r, ALL);
        const want = ids(all.slice(r.offset, r.offset + r.limit));
        const got = await page(db.orm, r, requestValues(r));
        assert.equal(ids(got.rows), want, describe(r, ids(got.rows), want));
        assert.is(got.count, all.length, describe(r, got.count, all.length));
      });
    });

    test(`${OFFSET_WALKS} offset walks with changing page sizes cover the reference order exactly once`, async ({
      db,
    }) => {
      const fc = (await import('fast-check')).default;
      const walk = fc.tuple(
        requestArb(productSpec, SHAPE, 0),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }),
      );
      await check(walk, WALKS, async ([r, sizes]) => {
        const want = ids(expectedRows(productSpec, ROWS, r, ALL));
        const seen: unknown[] = [];
        for (let i = 0; seen.length < want.length && i < 1000; i++) {
          const limit = sizes[i % sizes.length]!;
          const values = {
            ...requestValues(r, { offset: false }),
            limit: String(limit),
            ...(seen.length ? { offset: String(seen.length) } : {}),
          };
          const got = await page(db.orm, r, values);
          assert.ok(got.rows.length <= limit);
          if (got.rows.length === 0) break;
          seen.push(...ids(got.rows));
        }
        assert.equal(seen, want, describe(r, seen, want));
      });
    });

    test(`${WALKS} cursor walks through list() with changing page sizes cover the reference order exactly once`, async ({
      db,
    }) => {
      const fc = (await import('fast-check')).default;
      const engine = createEngine(db.orm, { policy: productPolicy, maxLimit: 100, allowCount: true });
      const walk = fc.tuple(
        requestArb(productSpec, SHAPE, 0),
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 6 }),
      );
      await check(walk, WALKS, async ([r, sizes]) => {
        const want = ids(expectedRows(productSpec, ROWS, r, ALL));
        const values = { ...requestValues(r, { offset: false }), count: 'true' };
        const got = await walkPages(() => engine.from(base(db.orm.em.fork())), values, sizes);
        assert.equal(got.ids, want, describe(r, got.ids, want) + ` sizes ${sizes}`);
        for (const count of got.counts) assert.is(count, want.length);
      });
    });
  },
);
