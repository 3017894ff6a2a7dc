/**
 * What a list route does with a request body and an over-long request line, on every adapter (Express, Fastify,
 * Koa, Hono) on a real server at 127.0.0.1: a list route never reads a body, so a 600 MB one (chunked, or declared)
 * gets the page of the query string at once, the upload is cut early and the server's memory does not grow; Koa's
 * `app.use(listRoute(…))` answers a POST the same. A request line past Node's 16 KiB header limit gets Node's 431.
 *
 * SQLite only: no body or request line reaches the database.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { filterable, schema, sortable } from '../../src/index.ts';
import { catalogEntities, Stock, seedCatalog } from '../fixtures/catalog.ts';
import { openDatabase, type TestDatabase } from '../helpers/db.ts';
import { upload } from '../helpers/upload.ts';
import { ADAPTERS, type RunningServer } from '../http-servers.ts';

const test = suite('list routes and request bodies [sqlite]');
const state: { db?: TestDatabase; servers: Map<string, RunningServer> } = { servers: new Map() };
const MIB = 1024 * 1024;
// The first bin; the primary key (warehouse, bin) always comes along.
const ITEMS = [{ warehouse: 'east', bin: 1 }];

test.before(async () => {
  state.db = await openDatabase('sqlite', catalogEntities);
  await seedCatalog(state.db.orm.em.fork());
  const { orm } = state.db;
  const engine = createEngine(orm, { policy: schema(Stock).expose('bin', filterable(), sortable()) });
  const scope = () => ({ base: (orm.em.fork() as any).createQueryBuilder(Stock, 's') });
  for (const adapter of ADAPTERS) state.servers.set(adapter.name, await adapter.start(engine, scope, {}));
});

test.after(async () => {
  for (const server of state.servers.values()) await server.close();
  await state.db?.dispose();
});

for (const adapter of ADAPTERS) {
  const methods = adapter.name === 'koa' ? ['GET', 'POST'] : ['GET'];
  for (const method of methods)
    for (const contentLength of [true, false])
      test(`${adapter.name}: a ${method} with a 600 MB body (${contentLength ? 'declared' : 'chunked'}) gets its page at once`, async () => {
        const url = `${state.servers.get(adapter.name)!.url}/stock?sort=bin&limit=1&fields=bin`;
        const before = process.memoryUsage().rss;
        const res = await upload(url, { method, body: 600 * MIB, contentLength });
        assert.is(res.status, 200, `${res.error} after ${res.sent} bytes`);
        assert.equal(JSON.parse(res.body).items, ITEMS);
        assert.ok(res.sent < 64 * MIB, `sent ${res.sent} bytes`);
        assert.ok(process.memoryUsage().rss - before < 32 * MIB);
        const again = await fetch(url);
        assert.equal(((await again.json()) as any).items, ITEMS);
      });

  test(`${adapter.name}: a request line past Node's 16 KiB header limit gets Node's 431, and the server serves on`, async () => {
    const { url } = state.servers.get(adapter.name)!;
    const res = await fetch(`${url}/stock?filter=${'x'.repeat(1024 * 1024)}`);
    assert.is(res.status, 431);
    assert.is((await fetch(`${url}/stock?limit=1&sort=bin&fields=bin`)).status, 200);
  });
}

test.run();
