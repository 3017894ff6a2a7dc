/**
 * toOpenAPI options: what an application adds to the document besides listql's endpoints (servers, security
 * schemes and requirements, its own header or path parameters, its own error codes in listql's error body, its own
 * responses, tags), each checked by the OpenAPI 3.1 validator; and the mistakes refused with a TypeError.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { ERROR_STATUS } from '../../src/errors.ts';
import { type OpenAPIDocument, type OpenAPIEndpoint, toOpenAPI } from '../../src/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { catalogEntities, Product, Stock, seedCatalog } from '../fixtures/catalog.ts';
import { eachDialect } from '../helpers/db.ts';

const policy = schema(Product).expose('id', sortable()).expose('code', filterable('eq'), sortable());
const stockPolicy = schema(Stock).expose('warehouse', filterable('eq'));
const INFO = { title: 'Shop', version: '1.0.0' };

async function assertValid(doc: OpenAPIDocument): Promise<void> {
  const result = await new Validator().validate(structuredClone(doc) as never);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
}

eachDialect('toOpenAPI options', { entities: catalogEntities, seed: seedCatalog }, (test) => {
  const endpoints = (em: Parameters<typeof createEngine>[0]): OpenAPIEndpoint[] => [
    { path: '/products', engine: createEngine(em, { policy }) },
    { path: '/stock', engine: createEngine(em, { policy: stockPolicy }) },
  ];

  test('defaults: a relative server, no security requirement, one described tag per endpoint', async ({ em }) => {
    const doc = toOpenAPI(endpoints(em), INFO) as any;
    assert.equal(doc.servers, [{ url: '/' }]);
    assert.equal(doc.security, []);
    assert.equal(doc.tags, [
      { name: 'Products', description: 'The list endpoint `/products`.' },
      { name: 'Stock', description: 'The list endpoint `/stock`.' },
    ]);
    assert.equal(doc.paths['/products'].get.tags, ['Products']);
    assert.type(doc.paths['/products'].get.description, 'string');
    assert.type(doc.info.description, 'string');
    assert.not.ok('securitySchemes' in doc.components);
    await assertValid(doc);
  });

  test('servers, license, contact, security schemes, and security for the document and per endpoint', async ({
    em,
  }) => {
    const [products, stock] = endpoints(em);
    const doc = toOpenAPI([products!, { ...stock!, security: [] }], {
      ...INFO,
      license: { name: 'Apache 2.0', identifier: 'Apache-2.0' },
      contact: { email: 'api@shop.test' },
      servers: [{ url: 'https://api.shop.test/{version}', variables: { version: { default: 'v1' } } }],
      securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      security: [{ key: [] }],
    }) as any;
    assert.equal(doc.info.license, { name: 'Apache 2.0', identifier: 'Apache-2.0' });
    assert.equal(doc.info.contact, { email: 'api@shop.test' });
    assert.is(doc.servers[0].url, 'https://api.shop.test/{version}');
    assert.equal(doc.components.securitySchemes, { key: { type: 'apiKey', in: 'header', name: 'x-api-key' } });
    assert.equal(doc.security, [{ key: [] }]);
    assert.not.ok('security' in doc.paths['/products'].get, 'the document default applies');
    assert.equal(doc.paths['/stock'].get.security, [], 'the endpoint needs no credentials');
    await assertValid(doc);
  });

  test('header and path parameters, for the document and per endpoint', async ({ em }) => {
    const engine = createEngine(em, { policy });
    const doc = toOpenAPI(
      [
        { path: '/products', engine },
        {
          path: '/shops/{shop}/products',
          engine,
          operationId: 'listShopProducts',
          parameters: [{ name: 'shop', in: 'path', required: true, schema: { type: 'integer' } }],
        },
      ],
      { ...INFO, parameters: [{ name: 'x-tenant', in: 'header', description: 'Tenant.', example: '1' }] },
    ) as any;
    const names = (path: string) => doc.paths[path].get.parameters.map((p: any) => `${p.in}:${p.name}`);
    assert.equal(names('/products').slice(-1), ['header:x-tenant']);
    assert.equal(names('/shops/{shop}/products').slice(-2), ['header:x-tenant', 'path:shop']);
    assert.equal(doc.paths['/products'].get.parameters.at(-1), {
      name: 'x-tenant',
      in: 'header',
      required: false,
      description: 'Tenant.',
      schema: { type: 'string' },
      example: '1',
    });
    await assertValid(doc);
  });

  test("the application's error codes join ListError.code and their status's response", async ({ em }) => {
    const doc = toOpenAPI(
      [
        ...endpoints(em).slice(0, 1),
        {
          path: '/stock',
          engine: createEngine(em, { policy: stockPolicy }),
          errors: { stock_closed: { status: 409, description: 'the warehouse is closed.' } },
        },
      ],
      {
        ...INFO,
        errors: {
          invalid_tenant: { status: 400, description: 'x-tenant is not a tenant.' },
          tenant_suspended: { status: 403, description: 'the tenant is suspended.' },
        },
      },
    ) as any;
    assert.equal(doc.components.schemas.ListError.properties.code.enum, [
      ...Object.keys(ERROR_STATUS),
      'invalid_tenant',
      'tenant_suspended',
      'stock_closed',
    ]);
    const products = doc.paths['/products'].get.responses;
    assert.match(products['400'].description, /^The request is malformed or not allowed\. .*`invalid_tenant`/);
    assert.equal(products['403'], {
      description: 'code `tenant_suspended`: the tenant is suspended.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ListError' } } },
    });
    assert.not.ok(products['409'], 'an endpoint error stays on its endpoint');
    assert.match(doc.paths['/stock'].get.responses['409'].description, 'stock_closed');
    await assertValid(doc);
  });

  test('responses of its own, and tags with descriptions', async ({ em }) => {
    const [products, stock] = endpoints(em);
    const doc = toOpenAPI(
      [
        { ...products!, tags: ['Catalog'] },
        { ...stock!, tags: ['Catalog', 'Stock'] },
      ],
      {
        ...INFO,
        responses: { '401': { description: 'No valid token.', headers: { 'www-authenticate': { schema: {} } } } },
        tagDescriptions: { Catalog: 'What we sell.' },
      },
    ) as any;
    assert.equal(doc.paths['/products'].get.responses['401'].description, 'No valid token.');
    assert.equal(doc.tags, [{ name: 'Catalog', description: 'What we sell.' }, { name: 'Stock' }]);
    await assertValid(doc);
  });

  test('the single form takes the same document options', async ({ em }) => {
    const engine = createEngine(em, { policy });
    const options = {
      ...INFO,
      servers: [{ url: 'https://x.test' }],
      parameters: [{ name: 'x-a', in: 'header' as const }],
    };
    assert.equal(
      toOpenAPI(engine.describe(), { ...options, path: '/products', tags: ['P'] }),
      toOpenAPI([{ path: '/products', engine, tags: ['P'] }], options),
    );
  });

  test('mistakes of the calling code are TypeErrors', ({ em }) => {
    const [products] = endpoints(em);
    const refused: [string, () => unknown][] = [
      ['empty servers', () => toOpenAPI([products!], { ...INFO, servers: [] })],
      ['unknown scheme', () => toOpenAPI([products!], { ...INFO, security: [{ nope: [] }] })],
      ['unknown scheme on an endpoint', () => toOpenAPI([{ ...products!, security: [{ nope: [] }] }], INFO)],
      ["listql's parameter", () => toOpenAPI([products!], { ...INFO, parameters: [{ name: 'filter', in: 'query' }] })],
      [
        'a header twice',
        () =>
          toOpenAPI([{ ...products!, parameters: [{ name: 'X-Tenant', in: 'header' }] }], {
            ...INFO,
            parameters: [{ name: 'x-tenant', in: 'header' }],
          }),
      ],
      ['optional path parameter', () => toOpenAPI([{ ...products!, parameters: [{ name: 'a', in: 'path' }] }], INFO)],
      [
        "listql's code",
        () => toOpenAPI([products!], { ...INFO, errors: { invalid_cursor: { status: 400, description: 'x' } } }),
      ],
      ['status 500', () => toOpenAPI([products!], { ...INFO, errors: { oops: { status: 500, description: 'x' } } })],
      ['status 200', () => toOpenAPI([products!], { ...INFO, errors: { oops: { status: 200, description: 'x' } } })],
      ['a written response', () => toOpenAPI([products!], { ...INFO, responses: { '400': { description: 'x' } } })],
      ['not a status', () => toOpenAPI([products!], { ...INFO, responses: { '4000': { description: 'x' } } })],
    ];
    for (const [name, call] of refused) assert.throws(call, (err: unknown) => err instanceof TypeError, name);
  });
});
