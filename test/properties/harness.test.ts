import * as assert from 'uvu/assert';
import { catalogEntities, PRODUCTS, Product, STOCK, Stock, seedCatalog } from '../fixtures/catalog.ts';
import { eachDialect } from '../helpers/db.ts';

eachDialect('harness: catalog fixture round-trips', { entities: catalogEntities, seed: seedCatalog }, (test) => {
  test('every product row is stored and read back', async ({ em }) => {
    const rows = await em.find(Product, {}, { orderBy: { id: 'asc' } });
    assert.equal(
      rows.map((r) => r.id),
      PRODUCTS.map((p) => p.id),
    );
    // better-sqlite3 reads bigints as Numbers, so compare exactly in the database instead of in JS.
    assert.equal(
      (await em.find(Product, { views: 9007199254740993n })).map((r) => r.id),
      [1],
    );
    assert.equal(rows[1]?.description, null);
  });
  test('the composite-key table holds every stock row', async ({ em }) => {
    assert.is(await em.count(Stock, {}), STOCK.length);
  });
});
