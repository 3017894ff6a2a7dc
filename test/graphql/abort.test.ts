/**
 * Aborts reach the engine from GraphQL: the signal of the GraphQL context (graphql-http on node:http, wired with
 * abortOnClose), of Yoga-style contexts (`request.signal`) and of graphql-js 17's `abortSignal` goes to every engine
 * call. A client that hangs up mid-statement has its statement stopped on the server within a second (PostgreSQL
 * cancel, MariaDB KILL QUERY); on SQLite, which cannot stop a statement, no statement starts after the abort. Nothing
 * is logged for a client that went away.
 */
import { type ClientRequest, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EntityManager } from '@mikro-orm/core';
import { execute, parse } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/http';
import * as assert from 'uvu/assert';
import { Book, ENTITIES } from '../../examples/bookstore/entities.ts';
import { bookPolicy } from '../../examples/bookstore/policies.ts';
import { seed } from '../../examples/bookstore/seed.ts';
import { createEngine, type EngineConfig } from '../../src/engine/index.ts';
import { abortOnClose, graphqlSchema } from '../../src/graphql/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';

/**
 * A search that makes the data statement slow: PostgreSQL sleeps five seconds; MariaDB works through a cross join
 * for about as long (real work, which only KILL QUERY stops); SQLite counts to a few million (a quarter of a second
 * that holds the event loop), after calling `lq_test_hang_up()`, which the test defines to hang the client up.
 */
function slowSearch(dialect: Dialect): NonNullable<EngineConfig['search']> {
  return (_ctx, qb, term) => {
    if (term !== 'slow') return qb;
    if (dialect === 'postgresql') return qb.andWhere('(select true from pg_sleep(?))', [5]);
    if (dialect === 'mariadb')
      return qb.andWhere(
        `(with recursive n(x) as (select 1 union all select x + 1 from n where x < 1000)
          select count(*) from n a, n b, n c where a.x <= ? and a.x + b.x + c.x < 0) = 0`,
        [80],
      );
    return qb.andWhere(
      `lq_test_hang_up() = 1 and
        (with recursive c(x) as (select 1 union all select x + 1 from c where x < ?) select count(*) from c) > 0`,
      [3_000_000],
    );
  };
}

/** The slow statements the server is running now (PostgreSQL, MariaDB). */
async function running(em: EntityManager, dialect: Dialect): Promise<number> {
  const sql =
    dialect === 'postgresql'
      ? `select count(*) as n from pg_stat_activity
           where datname = current_database() and state = 'active' and query like '%pg_sleep%' and pid <> pg_backend_pid()`
      : `select count(*) as n from information_schema.processlist
           where db = database() and id <> connection_id() and command <> 'Sleep' and info like '%with recursive n(x)%'`;
  const [row] = await em.fork().getConnection().execute<{ n: string | number }[]>(sql);
  return Number(row?.n ?? 0);
}

/** Poll `probe` every 25 ms until it holds or `ms` pass; return whether it held. */
async function until(probe: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// With totalCount: on PostgreSQL and MariaDB the count runs beside the page, so one or two slow statements run.
const SLOW = '{ books(search: "slow") { totalCount nodes { id } } }';

eachDialect('graphql-abort', { entities: ENTITIES, seed }, (test, dialect) => {
  const internal: unknown[] = [];
  /** The server's signals, to see when it learnt of the abort. */
  const signals: AbortSignal[] = [];
  let url: string;
  let close: () => Promise<void>;
  let schema: ReturnType<typeof graphqlSchema>;

  test.before(async ({ db }) => {
    const em = db.orm.em.fork();
    const books = createEngine(em, {
      policy: bookPolicy,
      allowCount: true,
      statementTimeout: false,
      search: slowSearch(dialect),
    });
    schema = graphqlSchema<{ signal?: AbortSignal }>({
      endpoints: [
        {
          field: 'books',
          type: 'Book',
          engine: books,
          scope: () => ({ base: (em.fork() as any).createQueryBuilder(Book, 'b').where({ tenant: 1 }) }),
        },
      ],
      onInternalError: (err) => internal.push(err),
    });
    // The wiring docs/graphql.md shows: the signal aborts when the response closes before it was written.
    const handler = createHandler({
      schema,
      context: (req) => {
        const signal = abortOnClose(req.context.res);
        signals.push(signal);
        return { signal };
      },
    });
    const server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  });
  test.after(async () => close());

  /** Send a query with node:http, so that the test can hang up at any moment with `destroy()`. */
  const send = (query: string): ClientRequest => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
    });
    req.on('error', () => {});
    req.end(JSON.stringify({ query }));
    return req;
  };

  if (dialect === 'sqlite')
    test('SQLite: a client that hangs up during the data statement: the count never starts', async ({ db }) => {
      let client: ClientRequest | undefined;
      const native = (await (db.orm.em.getConnection() as any).getNativeClient()) as {
        function(name: string, fn: () => number): void;
      };
      // Called inside the slow statement: the client goes away while SQLite holds the event loop.
      native.function('lq_test_hang_up', () => {
        client?.destroy();
        return 1;
      });
      internal.length = 0;
      const { calls } = await captureDriver(async () => {
        client = send(SLOW);
        assert.ok(await until(async () => signals.at(-1)?.aborted === true, 3000), 'the server never saw the abort');
        // Time for a count that would start after the abort to reach the driver.
        await new Promise((resolve) => setTimeout(resolve, 500));
      });
      assert.is(calls.length, 1, `statements after the abort: ${calls.map((c) => c.sql).join('\n')}`);
      assert.equal(internal, []);
    });
  else
    test(`${dialect}: a client that hangs up: its statement is gone from the server within a second`, async ({
      em,
    }) => {
      internal.length = 0;
      const client = send(SLOW);
      assert.ok(await until(async () => (await running(em, dialect)) >= 1, 3000), 'the statement never ran');
      const aborted = Date.now();
      client.destroy();
      assert.ok(await until(async () => (await running(em, dialect)) === 0, 1000), 'still running after 1 s');
      assert.ok(Date.now() - aborted < 1000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(internal, [], 'an abort was logged as an internal error');
    });

  if (dialect !== 'sqlite')
    test('the signal of graphql-js 17 (abortSignal) and of a Yoga-style context.request reaches the engine', async ({
      em,
    }) => {
      const document = parse(SLOW);
      const runs: ((controller: AbortController) => Promise<unknown>)[] = [
        (c) => Promise.resolve(execute({ schema, document, abortSignal: c.signal })),
        (c) =>
          Promise.resolve(
            execute({ schema, document, contextValue: { request: new Request(url, { signal: c.signal }) } }),
          ),
      ];
      for (const run of runs) {
        const controller = new AbortController();
        const answer = run(controller).catch((err: unknown) => err);
        assert.ok(await until(async () => (await running(em, dialect)) >= 1, 3000), 'the statement never ran');
        controller.abort(new Error('client went away'));
        assert.ok(await until(async () => (await running(em, dialect)) === 0, 1000), 'still running after 1 s');
        await answer;
      }
    });
});
