/**
 * toOpenAPI: one endpoint or several in one document, checked by an OpenAPI 3.1 validator; parameters carry the
 * endpoint's bounds; the item schema comes from metadata and matches the items list() really returns (as the HTTP
 * layer writes them) on every dialect; the error body's code is an enum of every code; nothing private is named.
 */
import type { SqlEntityManager } from '@mikro-orm/sql';
import { Validator } from '@seriousme/openapi-schema-validator';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { ERROR_STATUS } from '../../src/errors.ts';
import { stringifyJSON } from '../../src/http/errors.ts';
import { type OpenAPIDocument, toOpenAPI } from '../../src/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { catalogEntities, Product, Stock, seedCatalog } from '../fixtures/catalog.ts';
import { eachDialect } from '../helpers/db.ts';

const policy = schema(Product)
  .expose('id', sortable())
  .expose('code', filterable('eq', 'in'), sortable())
  .expose('status', filterable())
  .expose('price', filterable('gt', 'lt', 'null'), sortable())
  .expose('createdAt', filterable('gte'), sortable());

const stockPolicy = schema(Stock).expose('warehouse', filterable('eq'), sortable()).expose('bin', sortable());

const OPTIONS = { path: '/products', title: 'Products', version: '1.0.0' };

/** Check a document with a maintained OpenAPI 3.1 validator; fail with its errors. */
async function assertValid(doc: OpenAPIDocument): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc) as never);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
  assert.is(validator.version, '3.1');
}

/** Whether a JSON value fits one property schema of the item: the subset toOpenAPI writes (type, format, enum). */
function fits(schema: any, value: unknown): boolean {
  if (schema.enum) return schema.enum.includes(value);
  const types: string[] = schema.type === undefined ? [] : [schema.type].flat();
  if (types.length === 0) return true;
  const type =
    value === null ? 'null' : Number.isInteger(value) ? 'integer' : typeof value === 'number' ? 'number' : typeof value;
  if (!types.includes(type) && !(type === 'integer' && types.includes('number'))) return false;
  if (typeof value !== 'string') return true;
  if (schema.pattern && !new RegExp(schema.pattern).test(value)) return false;
  if (schema.format === 'date-time') return !Number.isNaN(Date.parse(value)) && value.includes('T');
  if (schema.format === 'date') return /^\d{4}-\d{2}-\d{2}$/.test(value);
  if (schema.format === 'uuid') return /^[0-9a-f-]{36}$/i.test(value);
  return true;
}

eachDialect('toOpenAPI', { entities: catalogEntities, seed: seedCatalog }, (test, dialect) => {
  test('parameters carry the endpoint bounds; count and search appear only when enabled', async ({ em }) => {
    const doc = toOpenAPI(createEngine(em, { policy, maxLimit: 50, maxOffset: 900 }).describe(), OPTIONS) as any;
    const op = doc.paths['/products'].get;
    const byName = Object.fromEntries(op.parameters.map((p: any) => [p.name, p]));
    assert.equal(Object.keys(byName), ['filter', 'sort', 'limit', 'offset', 'cursor', 'fields']);
    assert.equal(byName.limit.schema, { type: 'integer', minimum: 0, maximum: 50, default: 20 });
    assert.is(byName.offset.schema.maximum, 900);
    assert.is(byName.filter.schema.maxLength, 8192);
    assert.is(byName.cursor.schema.maxLength, 4096);
    assert.is(op.operationId, 'listProducts');
    assert.is(doc.openapi, '3.1.0');
    await assertValid(doc);

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
    const pageProps =
      withAll.paths['/products'].get.responses['200'].content['application/json'].schema.properties.page.properties;
    assert.equal(pageProps.prevCursor.type, 'string', 'pages carry prevCursor for paging back');
    await assertValid(withAll);
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

  test('several endpoints make one valid document, from engines or descriptions', async ({ em }) => {
    const products = createEngine(em, { policy, allowCount: true });
    const stock = createEngine(em, { policy: stockPolicy });
    const doc = toOpenAPI(
      [
        { path: '/products', engine: products },
        { path: '/warehouse/stock', description: stock.describe(), operationId: 'listStock', summary: 'Stock' },
      ],
      { title: 'Shop', version: '2.0.0', description: 'Everything we sell.' },
    ) as any;
    await assertValid(doc);
    assert.equal(doc.info, { title: 'Shop', version: '2.0.0', description: 'Everything we sell.' });
    assert.equal(Object.keys(doc.paths), ['/products', '/warehouse/stock']);
    assert.equal(Object.keys(doc.components.schemas), ['ProductsItem', 'StockItem', 'ListError', 'InternalError']);
    const stockOp = doc.paths['/warehouse/stock'].get;
    assert.is(stockOp.operationId, 'listStock');
    assert.is(stockOp.summary, 'Stock');
    assert.equal(stockOp.responses['200'].content['application/json'].schema.properties.items.items, {
      $ref: '#/components/schemas/StockItem',
    });
    assert.not.ok(stockOp.parameters.some((p: any) => p.name === 'count'));
    // The single form is the one-endpoint case of the same document.
    const single = toOpenAPI(products.describe(), { ...OPTIONS, title: 'Shop', version: '2.0.0' });
    const multi = toOpenAPI([{ path: '/products', engine: products }], { title: 'Shop', version: '2.0.0' });
    assert.equal(single, multi);
  });

  test('a path or operationId given twice is refused', ({ em }) => {
    const engine = createEngine(em, { policy });
    for (const endpoints of [
      [
        { path: '/p', engine },
        { path: '/p', engine, operationId: 'other' },
      ],
      [
        { path: '/p', engine },
        { path: '/q', engine, operationId: 'listP' },
      ],
      [{ path: 'p', engine }],
    ])
      assert.throws(() => toOpenAPI(endpoints, { title: 't', version: '1' }), TypeError);
  });

  test('503: overloaded always; query_timeout with the statement timeout where a statement can be stopped, and the request deadline', async ({
    em,
  }) => {
    const timed = toOpenAPI(createEngine(em, { policy }).describe(), OPTIONS) as any;
    const responses = timed.paths['/products'].get.responses;
    assert.equal(Object.keys(responses), ['200', '400', '500', '503']);
    const said = responses['503'].description;
    assert.match(said, 'overloaded');
    assert.match(said, 'query_timeout');
    assert.match(said, '10000 ms together');
    // SQLite cannot stop a running statement: only the deadline between statements is advertised there.
    assert.is(said.includes('longer than 5000 ms,') || said.includes('longer than 5000 ms and'), dialect !== 'sqlite');
    const untimed = toOpenAPI(createEngine(em, { policy, statementTimeout: false }).describe(), OPTIONS) as any;
    const bare = untimed.paths['/products'].get.responses['503'].description;
    assert.match(bare, 'overloaded');
    assert.not.match(bare, 'query_timeout');
    await assertValid(timed);
  });

  test('ListError.code is an enum of every error code', async ({ em }) => {
    const doc = toOpenAPI(createEngine(em, { policy }).describe(), OPTIONS) as any;
    assert.equal(doc.components.schemas.ListError.properties.code.enum, Object.keys(ERROR_STATUS));
    assert.ok(doc.components.schemas.ListError.properties.code.enum.includes('invalid_cursor'));
  });

  test('the item schema comes from metadata: every serialized property with its JSON type', ({ em }) => {
    const doc = toOpenAPI(createEngine(em, { policy }).describe(), OPTIONS) as any;
    const item = doc.components.schemas.ProductsItem;
    assert.equal(Object.keys(item.properties), [
      'id',
      'name',
      'code',
      'description',
      'status',
      'stock',
      'views',
      'price',
      'rating',
      'active',
      'releasedOn',
      'createdAt',
      'uuid',
    ]);
    assert.equal(item.properties.status, { enum: ['draft', 'active', 'retired'] });
    assert.equal(item.properties.views, { type: 'string', format: 'int64', pattern: '^-?[0-9]+$' });
    assert.equal(item.properties.price, {
      type: ['string', 'null'],
      format: 'decimal',
      pattern: '^-?[0-9]+(\\.[0-9]+)?$',
    });
    assert.equal(item.properties.createdAt, { type: 'string', format: 'date-time' });
    assert.equal(item.properties.releasedOn, { type: ['string', 'null'], format: 'date' });
    assert.equal(item.properties.id, { type: 'integer' });
    assert.equal(item.properties.active, { type: ['boolean', 'null'] });
    assert.not.ok('secret' in item.properties, 'hidden properties are left out');
  });

  test('the items list() returns, as the HTTP layer writes them, fit the item schema', async ({ em }) => {
    const engine = createEngine(em, { policy });
    const item = (toOpenAPI(engine.describe(), OPTIONS) as any).components.schemas.ProductsItem;
    const page = await engine.from((em as SqlEntityManager).createQueryBuilder(Product, 'p')).list('limit=100');
    const items = JSON.parse(stringifyJSON(page)).items as Record<string, unknown>[];
    assert.ok(items.length >= 5);
    const seen = new Set<string>();
    for (const row of items)
      for (const [key, value] of Object.entries(row)) {
        assert.ok(item.properties[key], `item key ${key} is not in the schema`);
        assert.ok(fits(item.properties[key], value), `${key}: ${JSON.stringify(value)} does not fit`);
        if (value !== null) seen.add(key);
      }
    assert.equal([...seen].sort(), Object.keys(item.properties).sort(), 'every property seen with a value');
  });

  test('the document is deterministic JSON and names no table, column or hidden property', ({ em }) => {
    const engine = createEngine(em, { policy, allowCount: true });
    const text = JSON.stringify(toOpenAPI(engine.describe(), OPTIONS));
    assert.is(JSON.stringify(toOpenAPI(engine.describe(), OPTIONS)), text);
    // `sku` is the property behind the serialized name `code`; `created_at` is a column; `product` the table.
    for (const hidden of ['sku', 'created_at', '"product"', 'secret']) assert.not.ok(text.includes(hidden), hidden);
  });
});
