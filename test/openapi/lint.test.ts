/**
 * The documents toOpenAPI() builds pass the linters API teams run: Redocly's `recommended` rules and Spectral's
 * `spectral:oas` ruleset, with no error, on every dialect. Without options the only findings are two warnings
 * that ask for facts only the API owner has (a license, a contact); with them, none at all. The bookstore's own
 * document (its `x-tenant` header and `invalid_tenant` error included) has no finding either, nor has a document
 * with nested selections two levels deep (their item and page schemas and path-named parameters).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../examples/bookstore/app.ts';
import { openBookstore } from '../../examples/bookstore/database.ts';
import { createEngine } from '../../src/engine/index.ts';
import { type OpenAPIDocument, toOpenAPI } from '../../src/index.ts';
import { filterable, schema, selectable, sortable } from '../../src/policy/index.ts';
import { catalogEntities, Product, Stock, seedCatalog } from '../fixtures/catalog.ts';
import { Author, Book, libraryEntities, Profile, Publisher, Review, seedLibrary, Tag } from '../fixtures/library.ts';
import { eachDialect } from '../helpers/db.ts';

/** Every finding of both linters, as `tool severity rule @ where`, sorted. */
async function lint(doc: OpenAPIDocument): Promise<string[]> {
  const source = JSON.stringify(doc, null, 2);
  const config = await createConfig({ extends: ['recommended'] });
  const redocly = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  const spectral = new spectralCore.Spectral();
  spectral.setRuleset(oas as never);
  const found = await spectral.run(new spectralCore.Document(source, spectralParsers.Json, 'openapi.json'));
  const severity = ['error', 'warn', 'info', 'hint'];
  return [
    ...redocly.map((p) => `redocly ${p.severity} ${p.ruleId} @ ${p.location[0]?.pointer ?? ''}`),
    ...found.map((r) => `spectral ${severity[r.severity]} ${r.code} @ ${r.path.join('.')}`),
  ].sort();
}

const policy = schema(Product)
  .expose('id', sortable())
  .expose('code', filterable('eq', 'in'), sortable())
  .expose('price', filterable('gt', 'lt', 'null'), sortable());
const stockPolicy = schema(Stock).expose('warehouse', filterable('eq'), sortable());

eachDialect('toOpenAPI lint', { entities: catalogEntities, seed: seedCatalog }, (test) => {
  test('without options: no error; only the license and contact warnings', async ({ em }) => {
    const doc = toOpenAPI(
      [
        { path: '/products', engine: createEngine(em, { policy, allowCount: true, search: (_c, qb) => qb }) },
        { path: '/stock', engine: createEngine(em, { policy: stockPolicy, statementTimeout: false }) },
      ],
      { title: 'Shop', version: '1.0.0' },
    );
    assert.equal(await lint(doc), ['redocly warn info-license @ #/info', 'spectral warn info-contact @ info']);
  });

  test('with license, contact, servers, security, a header, an error code and a response: no finding', async ({
    em,
  }) => {
    const doc = toOpenAPI(
      [
        { path: '/products', engine: createEngine(em, { policy, allowCount: true }) },
        { path: '/stock', engine: createEngine(em, { policy: stockPolicy }), security: [] },
      ],
      {
        title: 'Shop',
        version: '1.0.0',
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'Shop team', url: 'https://shop.test/support' },
        servers: [{ url: 'https://api.shop.test/v1', description: 'Production' }],
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
        security: [{ bearer: [] }],
        parameters: [{ name: 'x-tenant', in: 'header', description: 'Tenant id.', schema: { enum: ['1', '2'] } }],
        errors: { invalid_tenant: { status: 400, description: 'x-tenant is not a tenant.' } },
        responses: { '401': { description: 'Missing or expired token.' } },
        tagDescriptions: { Products: 'What we sell.' },
      },
    );
    assert.equal(await lint(doc), []);
  });
});

// Selections two levels deep (to-one, owning 1:1, 1:m, m:n), aliases' parameters, composite keys: still no finding.
const nestedPolicy = schema(Book)
  .expose('id', sortable())
  .expose('title', filterable(), sortable())
  .relation(
    'author',
    schema(Author)
      .expose('name', sortable())
      .relation('profile', schema(Profile).expose('bio'), selectable())
      .relation('books', schema(Book).expose('title', sortable()), selectable({ defaultSort: 'title' })),
    selectable(),
  )
  .relation('publisher', schema(Publisher).expose('name'), selectable())
  .relation('reviews', schema(Review).expose('stars', filterable(), sortable()), selectable({ allowCount: true }))
  .relation('tags', schema(Tag).expose('label'), selectable());

eachDialect('toOpenAPI lint, nested selections', { entities: libraryEntities, seed: seedLibrary }, (test) => {
  test('nested item and page schemas and path-named parameters: no finding', async ({ em }) => {
    const doc = toOpenAPI([{ path: '/books', engine: createEngine(em, { policy: nestedPolicy, allowCount: true }) }], {
      title: 'Library',
      version: '1.0.0',
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'Library team', url: 'https://library.test/support' },
    });
    assert.ok(JSON.stringify(doc).includes('"author.books.cursor"'));
    assert.equal(await lint(doc), []);
  });
});

test('the bookstore document documents x-tenant and invalid_tenant, with no finding', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'listql-openapi-lint-'));
  const orm = await openBookstore({ sqliteFile: join(dir, 'bookstore.sqlite') });
  const server = createApp(orm).listen(0, '127.0.0.1');
  try {
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const doc = (await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).json()) as any;
    assert.equal(await lint(doc), []);
    for (const path of ['/books', '/authors']) {
      const op = doc.paths[path].get;
      const header = op.parameters.find((p: any) => p.in === 'header');
      assert.is(header?.name, 'x-tenant', `${path} documents the tenant header a client must be able to send`);
      assert.match(op.responses['400'].description, 'invalid_tenant');
    }
    assert.ok(doc.components.schemas.ListError.properties.code.enum.includes('invalid_tenant'));
  } finally {
    server.close();
    await orm.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
