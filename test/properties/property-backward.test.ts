/**
 * Property: backward paging through list() over random filters and sorts of the catalog (every scalar kind,
 * duplicates and NULLs): walk forward with changing page sizes, then back from the last page by prevCursor. Walking
 * back with the forward page sizes in reverse gives the very same pages (items and both cursors); walking back with
 * other sizes covers the rows before the last page exactly once, each page the `limit` rows right before the
 * previous one. On SQLite and on PostgreSQL. See docs/pagination.md ("Paging backward").
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { catalogEntities, Product } from '../fixtures/catalog.ts';
import { eachDialect } from '../helpers/db.ts';
import { shapeFor } from '../oracle/arbitraries.ts';
import { budget, check, SEED } from '../oracle/budget.ts';
import { generateProducts, loadProducts, productPolicy, productSpec } from '../oracle/catalog.ts';
import { expectedRows, requestArb, requestValues, toQueryString } from '../oracle/request.ts';
import { dbModelFor } from '../oracle/values.ts';
import { walkBackPages, walkPages } from '../oracle/walk.ts';

const ROWS = generateProducts(SEED, 160);
const WALKS = budget(100);
const SHAPE = { depth: 3, hops: 0, quantifiers: 0 };

function base(em: EntityManager) {
  return (em as any).createQueryBuilder(Product, 'p');
}

eachDialect(
  'property: backward pages retrace forward walks',
  { entities: catalogEntities, seed: (em) => loadProducts(em, ROWS) },
  (test, dialect) => {
    const ALL = { softDelete: false, db: dbModelFor(dialect) };
    test(`${WALKS} walks forward then back, with changing page sizes, equal the reference`, async ({ db }) => {
      const fc = (await import('fast-check')).default;
      const engine = createEngine(db.orm, { policy: productPolicy, maxLimit: 100, allowCount: true });
      const scoped = () => engine.from(base(db.orm.em.fork()));
      const walk = fc.tuple(
        requestArb(productSpec, { ...SHAPE, ...shapeFor(ALL.db) }, 0),
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 5 }),
      );
      await check(walk, WALKS, async ([r, sizes, backSizes]) => {
        const want = expectedRows(productSpec, ROWS, r, ALL).map((row) => row['id']);
        const values = { ...requestValues(r, { offset: false }), count: 'true' };
        const label = `request ${toQueryString(values)} sizes ${sizes} back ${backSizes}`;
        const forward = await walkPages(scoped, values, sizes);
        assert.equal(forward.ids, want, label);
        const last = forward.trail.at(-1)!;
        if (forward.pages < 2) {
          assert.is(last.prevCursor, undefined, `${label}: the first page has no prevCursor`);
          return;
        }
        const start = want.length - last.ids.length;

        // The forward sizes in reverse: the same pages, cursors included.
        const mirrored = forward.trail.slice(0, -1).map((p) => p.ids.length);
        const same = await walkBackPages(scoped, values, last.prevCursor!, mirrored.reverse());
        assert.equal(same.trail, forward.trail.slice(0, -1).reverse(), `${label}: retraced pages`);
        for (const count of same.counts) assert.is(count, want.length, `${label}: count`);

        // Other sizes: each page is the `limit` rows right before the previous one; together, every row before.
        const back = await walkBackPages(scoped, values, last.prevCursor!, backSizes);
        assert.equal(back.ids, want.slice(0, start), `${label}: rows before the last page`);
        let end = start;
        back.trail.forEach((page, i) => {
          const limit = backSizes[i % backSizes.length]!;
          assert.equal(page.ids, want.slice(Math.max(0, end - limit), end), `${label}: back page ${i}`);
          end = Math.max(0, end - limit);
        });
      });
    });
  },
);
