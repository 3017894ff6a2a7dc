/**
 * Property: for random filters, sorts and pages within the catalog policy (every scalar kind, every operator),
 * parseHTTP → bind → apply → execute returns exactly the reference's rows in the reference's order, and
 * executeCount the reference's count, on SQLite and on PostgreSQL. See docs/testing.md ("The reference oracle").
 */
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { execute, executeCount } from '../../src/engine/execute.ts';
import { createEngine } from '../../src/engine/index.ts';
import { apply } from '../../src/plan/index.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { fromQueryString } from '../../src/syntax/query-string.ts';
import { catalogEntities, Product } from '../fixtures/catalog.ts';
import { eachDialect } from '../helpers/db.ts';
import { shapeFor } from '../oracle/arbitraries.ts';
import { budget, check, SEED } from '../oracle/budget.ts';
import { generateProducts, loadProducts, productPolicy, productSpec } from '../oracle/catalog.ts';
import { DATA_ONLY_STRINGS, STRINGS } from '../oracle/pools.ts';
import { expectedRows, type GenRequest, requestArb, requestValues, toQueryString } from '../oracle/request.ts';
import { compareStrings, dbModelFor, MODELLED_CHARACTERS } from '../oracle/values.ts';
import { walkPages } from '../oracle/walk.ts';

const ROWS = generateProducts(SEED, 160);
const RUNS = budget(2000);
const WALKS = budget(200);
const OFFSET_WALKS = budget(60);
const ENGINE_RUNS = budget(400);
const SHAPE = { depth: 4, hops: 0, quantifiers: 0 };

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
  (test, dialect) => {
    const db = dbModelFor(dialect);
    const ALL = { softDelete: false, db };
    const SHAPE_HERE = { ...SHAPE, ...shapeFor(db) };
    test('the database orders and equates strings as the reference does (collation model)', async ({ em }) => {
      // Every pool string, and on MariaDB every character the general_ci model knows, ranked by the database
      // (dense_rank: equal strings share a rank) and by the reference; a tie the model misses or invents fails.
      const strings = [
        ...new Set([
          ...STRINGS,
          ...DATA_ONLY_STRINGS,
          ...(db.strings === 'general_ci' ? MODELLED_CHARACTERS : ['b', 'B', 'a b']),
        ]),
      ];
      const c = em.getConnection();
      const v = db.strings === 'general_ci' ? 'v collate utf8mb4_general_ci' : 'v';
      const rows = await c.execute(
        `select i, dense_rank() over (order by ${v}) as r from (${strings.map(() => 'select ? as v, ? as i').join(' union all ')}) t order by r, i`,
        strings.flatMap((s, i) => [s, i]),
      );
      const got = rows.map((r: { i: number | string; r: number | string }) => [Number(r.i), Number(r.r)]);
      const order = strings
        .map((_, i) => i)
        .sort((a, b) => compareStrings(strings[a]!, strings[b]!, db.strings) || a - b);
      let rank = 0;
      const want = order.map((i, k) => {
        if (k === 0 || compareStrings(strings[order[k - 1]!]!, strings[i]!, db.strings) !== 0) rank++;
        return [i, rank];
      });
      const show = (pairs: number[][]) => pairs.map(([i, r]) => `${r}:${JSON.stringify(strings[i!])}`).join(' ');
      assert.equal(got, want, `database ${show(got)}\nreference ${show(want)}`);
      if (dialect === 'mariadb') {
        // The oracle models the collation the test tables get: MariaDB's default for utf8mb4.
        const columns = await c.execute(`show full columns from product where Field in ('name', 'description')`);
        assert.equal(
          columns.map((col: { Collation: string }) => col.Collation),
          ['utf8mb4_general_ci', 'utf8mb4_general_ci'],
        );
      }
    });

    test(`${RUNS} random requests return the reference rows, order and count`, async ({ db }) => {
      await check(requestArb(productSpec, SHAPE_HERE, ROWS.length + 5), RUNS, async (r) => {
        const all = expectedRows(productSpec, ROWS, r, ALL);
        const want = ids(all.slice(r.offset, r.offset + r.limit));
        const got = await page(db.orm, r, requestValues(r));
        assert.equal(ids(got.rows), want, describe(r, ids(got.rows), want));
        assert.is(got.count, all.length, describe(r, got.count, all.length));
      });
    });

    test(`${ENGINE_RUNS} requests through list(), compiled and planned afresh, return the reference rows`, async ({
      db,
    }) => {
      // Shallow filters repeat shapes with new literals, so compiled statements are reused with other values.
      const config = { policy: productPolicy, maxLimit: 100, allowCount: true };
      const hot = createEngine(db.orm, config);
      const cold = createEngine(db.orm, { ...config, compileStatements: false });
      const shallow = { ...SHAPE_HERE, depth: 2 };
      await check(requestArb(productSpec, shallow, ROWS.length + 5), ENGINE_RUNS, async (r) => {
        const limit = Math.max(1, r.limit);
        const all = expectedRows(productSpec, ROWS, r, ALL);
        const want = ids(all.slice(r.offset, r.offset + limit));
        const values = { ...requestValues(r), limit: String(limit), count: 'true' };
        for (const [name, engine] of [
          ['compiled', hot],
          ['planned', cold],
          ['compiled again', hot],
        ] as const) {
          const got = await engine.from(base(db.orm.em.fork())).list(values);
          assert.equal(ids(got.items), want, `${name}: ${describe(r, ids(got.items), want)}`);
          assert.is(got.page.count, all.length, name);
        }
      });
    });

    test(`${OFFSET_WALKS} offset walks with changing page sizes cover the reference order exactly once`, async ({
      db,
    }) => {
      const fc = (await import('fast-check')).default;
      const walk = fc.tuple(
        requestArb(productSpec, SHAPE_HERE, 0),
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
        requestArb(productSpec, SHAPE_HERE, 0),
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
