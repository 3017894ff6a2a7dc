/**
 * Facet values read as items read the field, on every dialect: enums, decimals, bigints, booleans, dates and
 * datetimes, NULLs; each bucket's count is the number of items holding that value (the whole catalog in one page).
 */
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { facetable, schema, sortable } from '../../src/policy/index.ts';
import { catalogEntities, PRODUCTS, Product, seedCatalog } from '../fixtures/catalog.ts';
import { eachDialect } from '../helpers/db.ts';

const FIELDS = ['status', 'stock', 'views', 'price', 'rating', 'active', 'releasedOn', 'createdAt', 'code'] as const;
const policy = schema(Product)
  .expose('id', sortable())
  .expose('name')
  .expose('status', facetable())
  .expose('stock', facetable())
  .expose('views', facetable())
  .expose('price', facetable())
  .expose('rating', facetable())
  .expose('active', facetable())
  .expose('releasedOn', facetable())
  .expose('createdAt', facetable())
  .expose('code', facetable());

eachDialect('facet values', { entities: catalogEntities, seed: seedCatalog }, (test) => {
  for (const field of FIELDS)
    test(`${field}: values as items write them, counts as items hold them`, async ({ em }) => {
      const engine = createEngine(em, { policy, maxLimit: 500, limits: { maxFacetValues: 500 } });
      const scoped = engine.from((em as any).createQueryBuilder(Product, 'p'));
      const page = await scoped.list({ limit: String(PRODUCTS.length), facets: `${field}:500` });
      assert.is(page.items.length, PRODUCTS.length);
      const held = new Map<string, number>();
      for (const item of page.items) {
        const key = JSON.stringify(item[field]);
        held.set(key, (held.get(key) ?? 0) + 1);
      }
      const buckets = page.facets?.[field] ?? [];
      const answered = new Map(buckets.map((b) => [JSON.stringify(b.value), b.count]));
      assert.equal(answered, held);
      // Most frequent first, ties by value, NULL last among its tie.
      for (let i = 1; i < buckets.length; i++) assert.ok(buckets[i - 1]!.count >= buckets[i]!.count);
    });
});
