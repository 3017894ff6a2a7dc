/**
 * Every adapter (Express, Fastify, Koa, Hono) on a real server at 127.0.0.1, over SQLite, PostgreSQL and MariaDB:
 * a page with its cursor followed, client errors as 400 with code and position, and internal failures as a
 * bare 500 `internal_error` that leaks nothing (no SQL, no cause, no stack), while the original reaches the log hook.
 */
import type { QueryBuilder } from '@mikro-orm/sql';
import * as assert from 'uvu/assert';
import { createEngine, type ListContext } from '../../src/engine/index.ts';
import { filterable, schema, sortable } from '../../src/index.ts';
import { catalogEntities, Stock, seedCatalog } from '../fixtures/catalog.ts';
import { eachDialect } from '../helpers/db.ts';
import { ADAPTERS, type RunningServer } from '../http-servers.ts';

/** How the next request's base scope behaves. */
type ScopeMode = 'ok' | 'throws' | 'bad-sql';

interface Row {
  readonly name: string;
  readonly query: string;
  readonly mode?: ScopeMode;
  readonly status: number;
  /** The exact body, or a check of it. */
  readonly body: Record<string, unknown> | ((body: any) => void);
  /** Whether the log hook must have received the original error. */
  readonly logged?: boolean;
}

const INTERNAL = { code: 'internal_error', message: 'internal server error' };
const SECRET = 'secret-detail-7f3a';

const ROWS: readonly Row[] = [
  {
    name: 'a page: items, limit, hasMore, nextCursor and count',
    query: "?filter=warehouse eq 'north'&sort=bin&limit=1&count=true",
    status: 200,
    body: (body) => {
      assert.equal(body.items, [{ warehouse: 'north', bin: 1, qty: null }]);
      assert.equal(
        { ...body.page, nextCursor: typeof body.page.nextCursor },
        {
          limit: 1,
          offset: 0,
          hasMore: true,
          nextCursor: 'string',
          count: 2,
        },
      );
    },
  },
  {
    name: 'search narrows through the callback, which receives { signal }',
    query: '?search=east&sort=-bin',
    status: 200,
    body: {
      items: [
        { warehouse: 'east', bin: 3, qty: 5 },
        { warehouse: 'east', bin: 1, qty: 8 },
      ],
      page: { limit: 20, offset: 0, hasMore: false },
    },
  },
  {
    name: 'percent-encoding and + as a space come from the raw query string',
    query: "?filter=qty+eq+5%20and%20warehouse%20ne%20'east'",
    status: 200,
    body: { items: [{ warehouse: 'north', bin: 2, qty: 5 }], page: { limit: 20, offset: 0, hasMore: false } },
  },
  {
    name: 'a filter syntax error: 400 with code, parameter and position',
    query: '?filter=qty gt(1)',
    status: 400,
    body: {
      code: 'invalid_syntax',
      message: "expected whitespace before '('",
      parameter: 'filter',
      position: { offset: 6, line: 1, column: 7 },
    },
  },
  {
    name: 'a repeated parameter is seen (frameworks would merge it): 400',
    query: '?sort=bin&sort=qty',
    status: 400,
    body: (body) => assert.equal([body.code, body.parameter], ['invalid_parameter', 'sort']),
  },
  {
    name: 'a bad cursor: 400 invalid_cursor',
    query: '?cursor=abc=',
    status: 400,
    body: (body) => assert.equal([body.code, body.parameter], ['invalid_cursor', 'cursor']),
  },
  {
    name: 'invalid UTF-8 in a known parameter: 400',
    query: '?filter=%FF',
    status: 400,
    body: (body) => assert.equal([body.code, body.parameter], ['invalid_parameter', 'filter']),
  },
  {
    name: 'a search callback throwing a plain Error: bare 500',
    query: '?search=boom',
    status: 500,
    body: INTERNAL,
    logged: true,
  },
  { name: 'a base scope that throws: bare 500', query: '', mode: 'throws', status: 500, body: INTERNAL, logged: true },
  {
    name: 'a database error (unknown column): bare 500, no SQL',
    query: '?sort=bin',
    mode: 'bad-sql',
    status: 500,
    body: INTERNAL,
    logged: true,
  },
];

/** One dialect's servers, and what the scope and search callback do and saw. */
interface State {
  readonly servers: Map<string, RunningServer>;
  mode: ScopeMode;
  logged: unknown[];
  contexts: ListContext[];
}

const stockPolicy = schema(Stock)
  .expose('warehouse', filterable('eq', 'ne', 'startswith'), sortable())
  .expose('bin', filterable(), sortable())
  .expose('qty', filterable(), sortable());

eachDialect('http adapters', { entities: catalogEntities, seed: seedCatalog }, (test) => {
  const ctx: State = { servers: new Map(), mode: 'ok', logged: [], contexts: [] };
  test.before(async ({ db }) => {
    const engine = createEngine(db.orm, {
      policy: stockPolicy,
      allowCount: true,
      search: async (listCtx, qb, term) => {
        ctx.contexts.push(listCtx);
        if (term === 'boom') throw new Error(SECRET);
        // Hold the request until the client goes away.
        if (term === 'wait') await new Promise((resolve) => listCtx.signal?.addEventListener('abort', resolve));
        return qb.andWhere({ warehouse: term });
      },
    });
    const scope = () => {
      const base = (db.orm.em.fork() as any).createQueryBuilder(Stock, 's') as QueryBuilder<Stock>;
      if (ctx.mode === 'throws') throw new Error(SECRET);
      if (ctx.mode === 'bad-sql') base.andWhere(`s.${SECRET.replaceAll('-', '_')} = 1`);
      return { base };
    };
    for (const adapter of ADAPTERS)
      ctx.servers.set(adapter.name, await adapter.start(engine, scope, { onInternalError: (e) => ctx.logged.push(e) }));
  });
  test.after(async () => {
    for (const server of ctx.servers.values()) await server.close();
  });

  for (const adapter of ADAPTERS) {
    for (const row of ROWS) {
      test(`${adapter.name}: ${row.name}`, async () => {
        ctx.mode = row.mode ?? 'ok';
        ctx.logged = [];
        const res = await fetch(`${ctx.servers.get(adapter.name)!.url}/stock${row.query}`);
        const text = await res.text();
        assert.is(res.status, row.status, text);
        assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
        const body = JSON.parse(text);
        if (typeof row.body === 'function') row.body(body);
        else assert.equal(body, row.body);
        for (const leak of [SECRET, 'secret_detail', 'select', 'stack', 'Error'])
          assert.not.ok(text.includes(leak), `response leaks '${leak}': ${text}`);
        if (row.logged) {
          assert.is(ctx.logged.length, 1);
          assert.instance(ctx.logged[0], Error);
        } else assert.is(ctx.logged.length, 0);
      });
    }

    test(`${adapter.name}: nextCursor continues the walk with no gap or repeat`, async () => {
      ctx.mode = 'ok';
      const url = `${ctx.servers.get(adapter.name)!.url}/stock?sort=warehouse,bin&limit=2`;
      const seen: string[] = [];
      let next: string | undefined;
      do {
        const res = await fetch(next === undefined ? url : `${url}&cursor=${encodeURIComponent(next)}`);
        assert.is(res.status, 200);
        const body = (await res.json()) as { items: Stock[]; page: { nextCursor?: string } };
        seen.push(...body.items.map((s) => `${s.warehouse}/${s.bin}`));
        next = body.page.nextCursor;
      } while (next !== undefined);
      assert.equal(seen, ['east/1', 'east/3', 'north/1', 'north/2', 'south/1']);
    });

    test(`${adapter.name}: a client that disconnects aborts the signal, and nothing is logged`, async () => {
      ctx.mode = 'ok';
      ctx.contexts = [];
      ctx.logged = [];
      const client = new AbortController();
      const request = fetch(`${ctx.servers.get(adapter.name)!.url}/stock?search=wait`, { signal: client.signal });
      await until(() => ctx.contexts.length === 1);
      client.abort();
      await request.catch(() => {});
      await until(() => ctx.contexts[0]?.signal?.aborted === true);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(ctx.logged, []);
    });

    test(`${adapter.name}: the search callback gets an AbortSignal in its ctx`, async () => {
      ctx.mode = 'ok';
      ctx.contexts = [];
      await (await fetch(`${ctx.servers.get(adapter.name)!.url}/stock?search=north`)).text();
      assert.is(ctx.contexts.length, 1);
      assert.instance(ctx.contexts[0]?.signal, AbortSignal);
      assert.is(ctx.contexts[0]?.signal?.aborted, false);
    });
  }
});

/** Wait until `done()` holds, failing after ten seconds. */
async function until(done: () => boolean): Promise<void> {
  // Generous: a loaded 2-core CI machine can be slow; a passing run never waits this long.
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
