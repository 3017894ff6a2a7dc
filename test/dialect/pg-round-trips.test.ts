/**
 * What the server receives for one guarded request, and how the time limit holds without a transaction per
 * statement: a plain page under the statement timeout is one statement on the wire on every dialect (PostgreSQL:
 * no `begin; set local statement_timeout`, no `rollback`; MariaDB: the limit rides on the statement; SQLite has no
 * server), in a caller's transaction too. On PostgreSQL the client's timer keeps the limit and cancels the statement
 * on the server (on MariaDB the server does): a slow statement answers `query_timeout` at its limit plus a small
 * margin and is gone from the server afterwards, with every pooled connection busy too, and a cancel that arrives
 * after its statement ended stops nothing else on that connection.
 */
import type { EntityManager } from '@mikro-orm/core';
import { MikroORM as PostgresORM } from '@mikro-orm/postgresql';
import * as assert from 'uvu/assert';
import { Book, ENTITIES } from '../../examples/bookstore/entities.ts';
import { bookPolicy } from '../../examples/bookstore/policies.ts';
import { seed } from '../../examples/bookstore/seed.ts';
import { createEngine, type EngineConfig, isListError } from '../../src/index.ts';
import { captureDriver, type DriverCall, withoutTimeLimit } from '../helpers/capture.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';

/** `slow` sleeps `seconds` (PostgreSQL) or works through a cross join (MariaDB, about 60 ms a unit); SQLite counts. */
function slowSearch(dialect: Dialect, seconds: number): NonNullable<EngineConfig['search']> {
  return (_ctx, qb, term) => {
    if (term !== 'slow') return qb;
    if (dialect === 'postgresql') return qb.andWhere('(select true from pg_sleep(?))', [seconds]);
    if (dialect === 'mariadb')
      return qb.andWhere(
        `(with recursive n(x) as (select 1 union all select x + 1 from n where x < 1000)
          select count(*) from n a, n b, n c where a.x <= ? and a.x + b.x + c.x < 0) = 0`,
        [Math.max(1, Math.round(seconds * 16))],
      );
    return qb.andWhere(
      '(with recursive c(x) as (select 1 union all select x + 1 from c where x < ?) select count(*) from c) > 0',
      [Math.round(seconds * 10_000_000)],
    );
  };
}

function books(em: EntityManager) {
  return (em as unknown as { createQueryBuilder(e: unknown, a: string): any }).createQueryBuilder(Book, 'b').where({
    tenant: 1,
  });
}

async function outcome<T>(run: () => Promise<T>): Promise<T | Error> {
  return run().then(
    (value) => value,
    (err: unknown) => err as Error,
  );
}

/** The lookup of a pooled connection's server id, sent once per connection (for a cancel or KILL QUERY). */
const isIdLookup = (c: DriverCall) =>
  /^select (pg_backend_pid\(\) as listql_backend_pid|connection_id\(\) as listql_connection_id)$/.test(c.sql);

/** The slow statements the server still runs in this database, seen from a connection of the pool. */
async function running(em: EntityManager, dialect: Dialect): Promise<number> {
  const sql =
    dialect === 'postgresql'
      ? `select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
           and ((state = 'active' and query like '%pg_sleep%') or state = 'idle in transaction')`
      : `select count(*) as n from information_schema.processlist
           where db = database() and id <> connection_id() and command <> 'Sleep' and info like '%with recursive n(x)%'`;
  const [row] = await em.fork().getConnection().execute<{ n: string | number }[]>(sql);
  return Number(row?.n ?? 0);
}

/** Poll until nothing slow runs or `ms` pass; return the last count. */
async function settledRunning(em: EntityManager, dialect: Dialect, ms: number): Promise<number> {
  const started = performance.now();
  let n = await running(em, dialect);
  while (n > 0 && performance.now() - started < ms) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    n = await running(em, dialect);
  }
  return n;
}

/** Delay the connect of every cancel request's socket (pg's pool makes them with its Client class) by `ms`. */
async function slowCancels(em: EntityManager, ms: number): Promise<() => void> {
  const pool = (await (em.getConnection() as any).getNativeClient()) as { Client: new (options: object) => any };
  const Original = pool.Client;
  pool.Client = class extends Original {
    constructor(options: object) {
      super(options);
      const wire = this.connection as { connect(...args: unknown[]): void };
      const connect = wire.connect.bind(wire);
      wire.connect = (...args: unknown[]) => setTimeout(() => connect(...args), ms);
    }
  };
  return () => {
    pool.Client = Original;
  };
}

eachDialect(
  'statements on the wire per request',
  { entities: ENTITIES, seed, options: { pool: { min: 0, max: 2 } } },
  (test, dialect) => {
    const stops = dialect !== 'sqlite';

    test('a plain guarded page is one statement; with its count, two; no transaction around either', async ({ em }) => {
      const engine = createEngine(em, { policy: bookPolicy, allowCount: true, statementTimeout: 5000 });
      const { calls } = await captureDriver(
        async () => {
          for (let i = 0; i < 10; i++) await engine.from(books(em.fork())).list({ sort: 'title' });
          for (let i = 0; i < 5; i++) await engine.from(books(em.fork())).list({ count: 'true' });
        },
        { guards: true },
      );
      const statements = calls.filter((c) => !isIdLookup(c));
      assert.is(statements.length, 10 + 5 * 2, statements.map((c) => c.sql).join('\n'));
      // At most once per pooled connection (two), not per statement.
      assert.ok(calls.filter(isIdLookup).length <= 2, `${calls.filter(isIdLookup).length} id lookups`);
      // MariaDB's limit is part of its statement (`SET STATEMENT max_statement_time = … FOR select …`).
      for (const { sql } of statements)
        assert.not.match(withoutTimeLimit(sql), /^(begin|rollback|set |select set_config)/i);
    });

    test("in a caller's transaction: the page is one statement, and the transaction goes on", async ({ em }) => {
      const engine = createEngine(em, { policy: bookPolicy, statementTimeout: 5000 });
      await em.fork().transactional(async (tem) => {
        // The transaction's connection is known once it has run a statement.
        await engine.from(books(tem)).list({});
        const { result, calls } = await captureDriver(() => engine.from(books(tem)).list({ sort: 'title' }), {
          guards: true,
        });
        assert.ok(result.items.length > 0);
        assert.is(calls.length, 1, calls.map((c) => c.sql).join('\n'));
        assert.match(calls[0]!.sql, /from [`"]book[`"]/);
        const again = await engine.from(books(tem)).list({ sort: '-title' });
        assert.ok(again.items.length > 0);
      });
    });

    if (stops) {
      test('a slow statement: query_timeout at its limit plus a small margin, and gone from the server', async ({
        em,
      }) => {
        const limit = 300;
        const engine = createEngine(em, {
          policy: bookPolicy,
          statementTimeout: limit,
          search: slowSearch(dialect, 5),
        });
        // Warm the connection up, so that the timing below is the statement's alone.
        await engine.from(books(em.fork())).list({});
        const started = performance.now();
        const result = await outcome(() => engine.from(books(em.fork())).list({ search: 'slow' }));
        const took = performance.now() - started;
        assert.ok(isListError(result) && result.code === 'query_timeout', String(result));
        assert.match(result.message, new RegExp(`${limit} ms`));
        assert.ok(took >= limit - 5, `answered after ${Math.round(took)} ms, before its limit`);
        assert.ok(took < limit + 350, `answered after ${Math.round(took)} ms`);
        assert.is(await settledRunning(em, dialect, 200), 0, 'the statement still runs on the server');
      });

      test('statement timeouts while every pooled connection is busy: each stopped at its limit', async ({ em }) => {
        const limit = 400;
        const engine = createEngine(em, {
          policy: bookPolicy,
          statementTimeout: limit,
          search: slowSearch(dialect, 5),
        });
        const started = performance.now();
        // Two take both pooled connections; the third waits for one, then runs under its own limit.
        const results = await Promise.all(
          [0, 1, 2].map(async () => {
            const result = await outcome(() => engine.from(books(em.fork())).list({ search: 'slow' }));
            return { result, took: performance.now() - started };
          }),
        );
        for (const { result } of results)
          assert.ok(isListError(result) && result.code === 'query_timeout', String(result));
        const took = results.map((r) => Math.round(r.took)).sort((a, b) => a - b);
        // MariaDB's statements are CPU work, which a busy machine slows down; PostgreSQL's sleep.
        const margin = dialect === 'postgresql' ? 350 : 800;
        assert.ok(took[1]! < limit + margin, `the first two answered after ${took.join(', ')} ms`);
        assert.ok(took[2]! < 2 * limit + margin + 150, `the third answered after ${took[2]} ms`);
        assert.is(await settledRunning(em, dialect, 200), 0, 'a statement still runs on the server');
      });
    }

    if (dialect === 'postgresql')
      test('behind a pooler whose cancel keys name no backend (PgBouncer), the server keeps the limit', async ({
        db,
      }) => {
        // A pool whose clients' process ids are not their backends' (as behind PgBouncer): a cancel request could
        // not name the backend, so the statement runs inside `begin; set local statement_timeout`.
        const orm = await PostgresORM.init({ entities: [...ENTITIES], clientUrl: db.url!, pool: { max: 2 } });
        try {
          const pool = (await orm.em.getConnection().getNativeClient()) as any;
          const disguise = (client: { processID: number }) => {
            client.processID += 1_000_000;
          };
          for (const client of pool._clients) disguise(client);
          pool.on('connect', disguise);
          const limit = 300;
          const engine = createEngine(orm, {
            policy: bookPolicy,
            statementTimeout: limit,
            search: slowSearch(dialect, 5),
          });
          const { calls } = await captureDriver(() => engine.from(books(orm.em.fork())).list({}), { guards: true });
          assert.ok(
            calls.some((c) => c.sql === `begin; set local statement_timeout = ${limit}`),
            JSON.stringify(calls),
          );
          const started = performance.now();
          const result = await outcome(() => engine.from(books(orm.em.fork())).list({ search: 'slow' }));
          assert.ok(isListError(result) && result.code === 'query_timeout', String(result));
          assert.ok(performance.now() - started < limit + 1000, 'the statement ran past its limit');
          assert.is(await settledRunning(orm.em, dialect, 1000), 0);
        } finally {
          await orm.close(true);
        }
      });

    test('a cancel that arrives after its statement ended stops nothing else on the connection', async ({ em }) => {
      // Statements that end from just before to just after their limit runs out (so that some cancels are sent as
      // the result arrives), on two connections shared with 30 ms statements that have no limit at all: a cancel
      // that reached the connection's next statement would fail one of those.
      const limit = 40;
      const free = createEngine(em, {
        policy: bookPolicy,
        statementTimeout: false,
        requestTimeout: false,
        search: slowSearch(dialect, 0.03),
      });
      // PostgreSQL: each cancel request reaches the server 15 ms late, as over a slower network, so that a cancel sent
      // as its statement ends would land on the connection's next statement if the connection were let go first.
      const undo = dialect === 'postgresql' ? await slowCancels(em, 15) : () => {};
      const racing = (round: number) =>
        createEngine(em, {
          policy: bookPolicy,
          statementTimeout: limit,
          // The statement timeout alone: the time spent waiting for a pooled connection does not count.
          requestTimeout: false,
          search: slowSearch(dialect, (limit - 2 + (round % 12)) / 1000),
        });
      // Two lanes on the pool's two connections, each a statement with a limit and then one without, in turn: a
      // lane's next statement takes the connection its last one gave back.
      const lane = async () => {
        const out: { raced: boolean; result: unknown }[] = [];
        // Where no client cancels (MariaDB's server keeps the limit; SQLite has none), a few rounds show the same.
        for (let round = 0; round < (dialect === 'postgresql' ? 24 : 4); round++) {
          const raced = await outcome(() => racing(round).from(books(em.fork())).list({ search: 'slow' }));
          out.push({ raced: true, result: raced });
          out.push({ raced: false, result: await outcome(() => free.from(books(em.fork())).list({ search: 'slow' })) });
        }
        return out;
      };
      let results: { raced: boolean; result: unknown }[];
      try {
        results = (await Promise.all([lane(), lane()])).flat();
      } finally {
        undo();
      }
      for (const { raced, result } of results) {
        if (!raced) assert.ok(!(result instanceof Error), `a statement without a limit failed: ${String(result)}`);
        else if (result instanceof Error)
          assert.ok(isListError(result) && result.code === 'query_timeout', String(result));
      }
      if (stops) assert.is(await settledRunning(em, dialect, 1000), 0);
      const page = await free.from(books(em.fork())).list({});
      assert.ok(page.items.length > 0);
    });
  },
);
