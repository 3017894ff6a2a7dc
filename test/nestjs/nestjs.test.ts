/**
 * listql/nestjs in a real Nest app on a port at 127.0.0.1, on the Express and the Fastify platform, over SQLite,
 * PostgreSQL and MariaDB: MikroOrmModule.forRoot with its request context, engines from ListqlModule.forFeature, the
 * query from @ListQuery(), the disconnect signal from @ListSignal(), and errors answered by ListErrorFilter.
 *
 * Node strips types and runs no decorator transform, so the app applies Nest's decorators as plain functions.
 */
import { EntityManager, MikroORM, RequestContext } from '@mikro-orm/core';
import { MariaDbDriver } from '@mikro-orm/mariadb';
import { MikroOrmModule, type MikroOrmModuleSyncOptions } from '@mikro-orm/nestjs';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { Controller, ForbiddenException, Get, Headers, Inject, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, type Engine, type ListContext } from '../../src/engine/index.ts';
import { InjectEngine, ListQuery, ListqlModule, ListRoute, ListSignal } from '../../src/nestjs/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import type { QueryValues } from '../../src/syntax/index.ts';
import { Author, Book, libraryEntities, seedLibrary } from '../fixtures/library.ts';
import { createDatabase, DIALECTS, type Dialect } from '../helpers/db.ts';

type Platform = 'express' | 'fastify';
const PLATFORMS: readonly Platform[] = ['express', 'fastify'];

const SECRET = 'secret-detail-7f3a';
const INTERNAL = { code: 'internal_error', message: 'internal server error' };

const f = filterable();
const s = sortable();
const bookPolicy = schema(Book)
  .expose('id', f, s)
  .expose('title', f, s)
  .relation('author', schema(Author).expose('name', f, s));

/** What the app's controller and search callback saw, and what the filter logged. */
interface State {
  logged: unknown[];
  contexts: ListContext[];
  /** Per request: the EntityManager the base scope was built on, and the request context's own. */
  managers: { used: EntityManager; request: EntityManager | undefined }[];
}

interface RunningApp {
  readonly url: string;
  /** The app's ORM, as far as the tests compare it. */
  readonly orm: { readonly em: EntityManager };
  close(): Promise<void>;
}

/** Build the Nest app's modules, its controller reading the tenant from `x-tenant`. */
function appModule(dialect: Dialect, clientUrl: string | undefined, state: State): new () => object {
  class BooksController {
    readonly books: Engine;
    readonly em: EntityManager;
    constructor(books: Engine, em: EntityManager) {
      this.books = books;
      this.em = em;
    }

    list(query: QueryValues, signal: AbortSignal, tenant: string | undefined) {
      if (tenant === 'none') throw new ForbiddenException();
      if (tenant === 'throws') throw new Error(SECRET);
      const used = this.em.getContext();
      state.managers.push({ used, request: RequestContext.getEntityManager() });
      const base = (used as any).createQueryBuilder(Book, 'b').where({ tenant: tenant === '2' ? 2 : 1 });
      if (tenant === 'bad-sql') base.andWhere(`b.${SECRET.replaceAll('-', '_')} = 1`);
      return this.books.from(base).list(query, { signal });
    }

    /** A value Nest's JSON.stringify would throw on, as a bigint column's items hold. */
    big() {
      return { items: [{ id: 2n ** 63n - 1n }] };
    }
  }
  InjectEngine('books')(BooksController, undefined, 0);
  // The core EntityManager, which @mikro-orm/nestjs provides: it resolves to the request's fork.
  Inject(EntityManager)(BooksController, undefined, 1);
  const proto = BooksController.prototype;
  Get()(proto, 'list', Object.getOwnPropertyDescriptor(proto, 'list')!);
  ListQuery()(proto, 'list', 0);
  ListSignal()(proto, 'list', 1);
  Headers('x-tenant')(proto, 'list', 2);
  Get('big')(proto, 'big', Object.getOwnPropertyDescriptor(proto, 'big')!);
  ListRoute({ onInternalError: (err) => state.logged.push(err) })(BooksController);
  Controller('books')(BooksController);

  const search = async (ctx: ListContext, qb: any, term: string) => {
    state.contexts.push(ctx);
    // Hold the request until the client goes away.
    if (term === 'wait') await new Promise((resolve) => ctx.signal?.addEventListener('abort', resolve));
    return qb.andWhere({ title: term });
  };
  class BooksModule {}
  Module({
    imports: [
      ListqlModule.forFeature([{ name: 'books', create: (orm) => createEngine(orm, { policy: bookPolicy, search }) }]),
    ],
    controllers: [BooksController],
  })(BooksModule);

  class AppModule {}
  const database =
    dialect === 'sqlite'
      ? { driver: SqliteDriver, dbName: ':memory:' }
      : { driver: dialect === 'postgresql' ? PostgreSqlDriver : MariaDbDriver, clientUrl };
  const options = { ...database, entities: [...libraryEntities], debug: false } as MikroOrmModuleSyncOptions;
  Module({
    imports: [MikroOrmModule.forRoot(options), BooksModule],
  })(AppModule);
  return AppModule;
}

async function startApp(platform: Platform, dialect: Dialect, state: State): Promise<RunningApp> {
  const server = dialect === 'sqlite' ? undefined : await createDatabase(dialect, 'listql_nest');
  try {
    const adapter = platform === 'express' ? new ExpressAdapter() : new FastifyAdapter();
    // abortOnError: false, or Nest exits the process on a start-up error and the cause is lost.
    const app = await NestFactory.create(appModule(dialect, server?.url, state), adapter, {
      logger: false,
      abortOnError: false,
    });
    const orm = app.get(MikroORM);
    await orm.schema.create();
    await seedLibrary(orm.em.fork());
    await app.listen(0, '127.0.0.1');
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    return {
      url,
      orm,
      async close() {
        // As the other adapter tests do: keep-alive sockets of the test's fetch calls must not hold the close.
        app.getHttpServer().closeAllConnections();
        await app.close();
        await server?.drop();
      },
    };
  } catch (err) {
    await server?.drop();
    throw err;
  }
}

interface Row {
  readonly name: string;
  readonly query: string;
  readonly tenant?: string;
  readonly status: number;
  readonly body: Record<string, unknown> | ((body: any) => void);
  readonly logged?: boolean;
}

const titles = (body: any) => body.items.map((item: { title: string }) => item.title);

const ROWS: readonly Row[] = [
  {
    name: 'a valid list: items, page and a next cursor',
    query: '?sort=id&limit=2',
    status: 200,
    body: (body) => {
      assert.equal(
        body.items.map((b: { id: number; title: string }) => [b.id, b.title]),
        [
          [1, 'Alpha'],
          [2, 'Beta'],
        ],
      );
      assert.equal(
        { ...body.page, nextCursor: typeof body.page.nextCursor },
        {
          limit: 2,
          offset: 0,
          hasMore: true,
          nextCursor: 'string',
        },
      );
    },
  },
  {
    name: 'a filter through a relation',
    query: "?filter=author/name eq 'Ann'&sort=-id",
    status: 200,
    body: (body) => assert.equal(titles(body), ['Beta', 'Alpha']),
  },
  {
    name: 'tenant isolation: the base scope keeps tenant 2 to its own rows',
    query: '?sort=id',
    tenant: '2',
    status: 200,
    body: (body) => assert.equal(titles(body), ['Eta']),
  },
  {
    name: "tenant isolation: a filter cannot reach another tenant's row",
    query: "?filter=title eq 'Alpha' or author/name eq 'Ann'",
    tenant: '2',
    status: 200,
    body: { items: [], page: { limit: 20, offset: 0, hasMore: false } },
  },
  {
    name: 'a repeated filter parameter (Nest would merge it): 400 invalid_parameter',
    query: "?filter=id eq 1&filter=title eq 'Beta'",
    status: 400,
    body: (body) => assert.equal([body.code, body.parameter], ['invalid_parameter', 'filter']),
  },
  {
    name: 'invalid UTF-8 in a known parameter (a parsed query would hide it): 400 invalid_parameter',
    query: '?filter=%FF',
    status: 400,
    body: (body) => assert.equal([body.code, body.parameter], ['invalid_parameter', 'filter']),
  },
  {
    name: 'a bad filter: 400 with code, parameter and position',
    query: '?filter=title gt(1)',
    status: 400,
    body: {
      code: 'invalid_syntax',
      message: "expected whitespace before '('",
      parameter: 'filter',
      position: { offset: 8, line: 1, column: 9 },
    },
  },
  {
    name: 'an unknown field: 400 unknown_field at its position',
    query: '?sort=id&filter=secret eq 1',
    status: 400,
    body: (body) => assert.equal([body.code, body.parameter, body.position?.offset], ['unknown_field', 'filter', 0]),
  },
  {
    name: 'a database failure: bare 500, no SQL, the cause only in the log hook',
    query: '?sort=id',
    tenant: 'bad-sql',
    status: 500,
    body: INTERNAL,
    logged: true,
  },
  {
    name: 'a plain Error from the route: bare 500',
    query: '',
    tenant: 'throws',
    status: 500,
    body: INTERNAL,
    logged: true,
  },
  {
    name: "a Nest HttpException keeps Nest's own answer",
    query: '',
    tenant: 'none',
    status: 403,
    body: { statusCode: 403, message: 'Forbidden' },
  },
];

for (const dialect of DIALECTS) {
  for (const platform of PLATFORMS) {
    const test = suite(`nestjs [${platform}, ${dialect}]`);
    const state: State = { logged: [], contexts: [], managers: [] };
    let app: RunningApp;
    const get = (query: string, tenant?: string, signal?: AbortSignal) =>
      fetch(`${app.url}/books${query}`, {
        headers: tenant === undefined ? {} : { 'x-tenant': tenant },
        ...(signal ? { signal } : {}),
      });

    test.before(async () => {
      app = await startApp(platform, dialect, state);
    });
    test.after(async () => {
      await app?.close();
    });

    for (const row of ROWS) {
      test(row.name, async () => {
        state.logged = [];
        const res = await get(row.query, row.tenant);
        const text = await res.text();
        assert.is(res.status, row.status, text);
        assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
        const body = JSON.parse(text);
        if (typeof row.body === 'function') row.body(body);
        else assert.equal(body, row.body);
        for (const leak of [SECRET, 'secret_detail', 'select', 'stack', 'Error'])
          assert.not.ok(text.includes(leak), `response leaks '${leak}': ${text}`);
        if (row.logged) {
          assert.is(state.logged.length, 1);
          assert.instance(state.logged[0], Error);
        } else assert.equal(state.logged, []);
      });
    }

    test('a bigint is written as its decimal string, as on the other adapters', async () => {
      const res = await fetch(`${app.url}/books/big`);
      assert.is(res.status, 200);
      assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.is(await res.text(), '{"items":[{"id":"9223372036854775807"}]}');
    });

    test('the base scope is built on the request fork of @mikro-orm/nestjs', async () => {
      state.managers = [];
      for (let i = 0; i < 2; i++) assert.is((await get('?limit=1')).status, 200);
      assert.is(state.managers.length, 2);
      const [first, second] = state.managers;
      for (const m of [first!, second!]) {
        assert.ok(m.request !== undefined, 'a request context is open');
        assert.is(m.used, m.request);
        assert.is.not(m.used, app.orm.em);
      }
      assert.is.not(first!.used, second!.used);
    });

    test('nextCursor continues the walk with no gap or repeat', async () => {
      const seen: string[] = [];
      let next: string | undefined;
      do {
        const res = await get(`?sort=title&limit=2${next === undefined ? '' : `&cursor=${encodeURIComponent(next)}`}`);
        assert.is(res.status, 200);
        const body = (await res.json()) as { items: { title: string }[]; page: { nextCursor?: string } };
        seen.push(...body.items.map((b) => b.title));
        next = body.page.nextCursor;
      } while (next !== undefined);
      assert.equal(seen, ['Alpha', 'Beta', 'Delta', 'Eps', 'Gamma', 'Theta']);
    });

    test('a client that disconnects aborts the signal, and nothing is logged', async () => {
      state.contexts = [];
      state.logged = [];
      const client = new AbortController();
      const request = get('?search=wait', undefined, client.signal);
      await until(() => state.contexts.length === 1);
      assert.is(state.contexts[0]?.signal?.aborted, false);
      client.abort();
      await request.catch(() => {});
      await until(() => state.contexts[0]?.signal?.aborted === true);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(state.logged, []);
    });

    test.run();
  }
}

/** Wait until `done()` holds, failing after ten seconds. */
async function until(done: () => boolean): Promise<void> {
  // Generous: a loaded 2-core CI machine can be slow; a passing run never waits this long.
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
