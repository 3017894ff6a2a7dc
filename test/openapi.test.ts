import * as assert from 'uvu/assert';
import { createEngine } from '../src/engine/index.ts';
import { toOpenAPI } from '../src/openapi/to-openapi.ts';
import { filterable, schema, sortable } from '../src/policy/index.ts';
import { catalogEntities, Product, seedCatalog } from './fixtures/catalog.ts';
import { eachDialect } from './helpers/db.ts';

const policy = schema(Product)
  .expose('id', sortable())
  .expose('code', filterable('eq', 'in'), sortable())
  .expose('status', filterable())
  .expose('price', filterable('gt', 'lt', 'null'), sortable())
  .expose('createdAt', filterable('gte'), sortable());

const OPTIONS = { path: '/products', title: 'Products', version: '1.0.0' };

eachDialect('toOpenAPI', { entities: catalogEntities, seed: seedCatalog }, (test) => {
  test('parameters carry the endpoint bounds; count and search appear only when enabled', ({ em }) => {
    const doc = toOpenAPI(createEngine(em, { policy, maxLimit: 50, maxOffset: 900 }).describe(), OPTIONS) as any;
    const op = doc.paths['/products'].get;
    const byName = Object.fromEntries(op.parameters.map((p: any) => [p.name, p]));
    assert.equal(Object.keys(byName), ['filter', 'sort', 'limit', 'offset', 'cursor']);
    assert.equal(byName.limit.schema, { type: 'integer', minimum: 0, maximum: 50, default: 20 });
    assert.is(byName.offset.schema.maximum, 900);
    assert.is(byName.filter.schema.maxLength, 8192);
    assert.is(byName.cursor.schema.maxLength, 4096);
    assert.is(op.operationId, 'listProducts');
    assert.is(doc.openapi, '3.1.0');

    const withAll = toOpenAPI(
      createEngine(em, { policy, allowCount: true, search: (_ctx, qb) => qb }).describe(),
      OPTIONS,
    ) as any;
    const names = withAll.paths['/products'].get.parameters.map((p: any) => p.name);
    assert.equal(names.slice(-2), ['search', 'count']);
    assert.ok(
      withAll.paths['/products'].get.responses['200'].content['application/json'].schema.properties.page.properties
        .count,
    );
  });

  test('the filter and sort help list public names and operators only', ({ em }) => {
    const doc = toOpenAPI(createEngine(em, { policy }).describe(), OPTIONS) as any;
    const [filter, sort] = doc.paths['/products'].get.parameters;
    assert.match(
      filter.description,
      /code: eq, in; status: eq, ne, in, not in; price: gt, lt, is null; createdAt: gte/,
    );
    assert.match(sort.description, /Sortable: id, code, price, createdAt\./);
  });

  test('item fields are typed from the description, nullability included', ({ em }) => {
    const doc = toOpenAPI(createEngine(em, { policy }).describe(), OPTIONS) as any;
    const item = doc.paths['/products'].get.responses['200'].content['application/json'].schema.properties.items.items;
    assert.equal(item.properties.status, { enum: ['draft', 'active', 'retired'] });
    assert.equal(item.properties.price, { type: ['string', 'number', 'null'] });
    assert.equal(item.properties.createdAt, { type: 'string', format: 'date-time' });
    assert.equal(item.properties.id, { type: 'integer' });
  });

  test('the document is deterministic JSON and names no table, column or property', ({ em }) => {
    const engine = createEngine(em, { policy, allowCount: true });
    const text = JSON.stringify(toOpenAPI(engine.describe(), OPTIONS));
    assert.is(JSON.stringify(toOpenAPI(engine.describe(), OPTIONS)), text);
    // `code` is the public name of the `sku` property; `created_at` is a column; `product` the table.
    for (const hidden of ['sku', 'created_at', '"product"', 'secret']) assert.not.ok(text.includes(hidden), hidden);
  });
});
