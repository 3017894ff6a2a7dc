/**
 * Property: rows inserted and deleted between the pages of a cursor walk never disturb the rows present for the
 * whole walk. Each of those that matches appears exactly once, in the reference order; no row appears twice; every
 * item returned existed at some point of the walk. Temporary rows reuse the data pools, so their sort keys tie
 * with the stable rows' keys all over the order. Runs on its own database per dialect.
 */
import type { EntityManager } from '@mikro-orm/core';
import fc from 'fast-check';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { catalogEntities, Product } from '../fixtures/catalog.ts';
import { eachDialect } from '../helpers/db.ts';
import { shapeFor } from '../oracle/arbitraries.ts';
import { budget, check, SEED } from '../oracle/budget.ts';
import { generateProducts, loadProducts, productPolicy, productSpec } from '../oracle/catalog.ts';
import type { Row } from '../oracle/model.ts';
import { expectedRows, requestArb, requestValues, toQueryString } from '../oracle/request.ts';
import { dbModelFor } from '../oracle/values.ts';
import { walkPages } from '../oracle/walk.ts';

const ROWS = generateProducts(SEED, 80);
const WALKS = budget(100);
const TEMP_BASE = 1_000_000;
/** Temporary ids stay below this, clear of the generated edge id 2147483647. */
const TEMP_LIMIT = 2_000_000_000;

interface Plan {
  /** Temporary rows inserted before the walk. */
  readonly before: number;
  /** Per page boundary (the first few): rows to insert, and how many temporary rows to delete (picked by index). */
  readonly steps: readonly { readonly insert: number; readonly remove: readonly number[] }[];
  readonly seed: number;
}

const planArb: fc.Arbitrary<Plan> = fc.record({
  before: fc.integer({ min: 0, max: 20 }),
  steps: fc.array(fc.record({ insert: fc.integer({ min: 0, max: 6 }), remove: fc.array(fc.nat(), { maxLength: 4 }) }), {
    minLength: 1,
    maxLength: 8,
  }),
  seed: fc.integer(),
});

async function insert(em: EntityManager, rows: readonly Row[]): Promise<void> {
  await loadProducts(em, rows);
}

eachDialect(
  'property: inserts and deletes between pages',
  { entities: catalogEntities, seed: (em) => loadProducts(em, ROWS) },
  (test, dialect) => {
    const ALL = { softDelete: false, db: dbModelFor(dialect) };
    test(`${WALKS} walks under concurrent change skip no stable row and repeat none`, async ({ db }) => {
      const engine = createEngine(db.orm, { policy: productPolicy, maxLimit: 100 });
      const scoped = () => engine.from((db.orm.em.fork() as any).createQueryBuilder(Product, 'p'));
      let nextId = TEMP_BASE;
      const arb = fc.tuple(
        requestArb(productSpec, { depth: 2, hops: 0, quantifiers: 0, ...shapeFor(ALL.db) }, 0),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 4 }),
        planArb,
      );
      await check(arb, WALKS, async ([r, sizes, plan]) => {
        const fresh = (n: number, salt: number): Row[] =>
          generateProducts(plan.seed ^ salt, n).map((row) => ({ ...row, id: nextId++ }));
        const initial = fresh(plan.before, 0);
        const live = [...initial];
        const everExisted = new Set<unknown>(live.map((row) => row['id']));
        await insert(db.orm.em.fork(), live);
        const removed = new Set<Row>();
        try {
          const got = await walkPages(scoped, requestValues(r, { offset: false }), sizes, async (page) => {
            // Only the first boundaries change data: appending forever would make the walk endless, correctly.
            const step = plan.steps[page];
            if (!step) return;
            const added = fresh(step.insert, page + 1);
            for (const row of added) everExisted.add(row['id']);
            await insert(db.orm.em.fork(), added);
            live.push(...added);
            const gone = step.remove.map((i) => live[i % Math.max(live.length, 1)]).filter((x): x is Row => !!x);
            for (const row of gone) removed.add(row);
            if (gone.length)
              await db.orm.em.fork().nativeDelete(Product, { id: { $in: gone.map((row) => row['id'] as number) } });
          });
          // Present for the whole walk: the seed rows and the rows inserted before it that were never deleted.
          const stable = [...ROWS, ...initial.filter((row) => !removed.has(row))];
          const want = expectedRows(productSpec, stable, r, ALL).map((row) => row['id']);
          const tag = `${toQueryString(requestValues(r))} sizes ${sizes}`;
          assert.is(new Set(got.ids).size, got.ids.length, `${tag}: an item appeared twice`);
          for (const id of got.ids)
            assert.ok(
              everExisted.has(id) || ROWS.some((row) => row['id'] === id),
              `${tag}: unknown item ${String(id)}`,
            );
          const wanted = new Set<unknown>(want);
          assert.equal(
            got.ids.filter((id) => wanted.has(id)),
            want,
            `${tag}: stable rows skipped or out of order\n got ${JSON.stringify(got.ids)}\n want ${JSON.stringify(want)}`,
          );
        } finally {
          await db.orm.em.fork().nativeDelete(Product, { id: { $gte: TEMP_BASE, $lt: TEMP_LIMIT } });
        }
      });
    });
  },
);
