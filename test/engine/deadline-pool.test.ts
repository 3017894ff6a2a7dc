/**
 * Stopping a statement never waits for the pool: with a pool of two connections, both busy with slow statements, an
 * abort or a passed deadline stops one of them on the server at once (PostgreSQL: a cancel request on a socket of
 * its own; MariaDB: KILL QUERY from a connection of its own). On SQLite, which has no pool and cannot stop a
 * statement, a request past its deadline starts no further statement while another request holds the database.
 */
import type { EntityManager } from '@mikro-orm/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import * as assert from 'uvu/assert';
import { Book, ENTITIES } from '../../examples/bookstore/entities.ts';
import { bookPolicy } from '../../examples/bookstore/policies.ts';
import { seed } from '../../examples/bookstore/seed.ts';
import { createEngine, type EngineConfig, isListError } from '../../src/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';

/** Five seconds of sleep (PostgreSQL) or of cross-join work (MariaDB); SQLite counts to three million. */
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
      '(with recursive c(x) as (select 1 union all select x + 1 from c where x < ?) select count(*) from c) > 0',
      [3_000_000],
    );
  };
}

function books(em: EntityManager) {
  return (em as unknown as { createQueryBuilder(e: unknown, a: string): any }).createQueryBuilder(Book, 'b').where({
    tenant: 1,
  });
}

/** Count the slow statements the server runs in `url`'s database, on a connection outside the ORM's full pool. */
async function watcher(dialect: Dialect, url: string): Promise<{ running(): Promise<number>; close(): Promise<void> }> {
  if (dialect === 'postgresql') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return {
      async running() {
        const { rows } = await client.query(
          `select count(*)::int as n from pg_stat_activity
             where datname = current_database() and state = 'active' and query like '%pg_sleep%' and pid <> pg_backend_pid()`,
        );
        return rows[0].n as number;
      },
      close: () => client.end(),
    };
  }
  const client = await mysql.createConnection({ uri: url });
  return {
    async running() {
      const [rows] = await client.query(
        `select count(*) as n from information_schema.processlist
           where db = database() and id <> connection_id() and command <> 'Sleep' and info like '%with recursive n(x)%'`,
      );
      return Number((rows as { n: number }[])[0]?.n ?? 0);
    },
    close: () => client.end(),
  };
}

/** Poll `probe` every 10 ms until it holds or `ms` pass; return the milliseconds it took, or undefined. */
async function within(probe: () => Promise<boolean>, ms: number): Promise<number | undefined> {
  const started = performance.now();
  for (;;) {
    if (await probe()) return performance.now() - started;
    if (performance.now() - started > ms) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

eachDialect(
  'engine deadline, full pool',
  { entities: ENTITIES, seed, options: { pool: { min: 0, max: 2 } } },
  (test, dialect) => {
    if (dialect === 'sqlite') {
      test('SQLite: a request past its deadline while another holds the database starts no further statement', async ({
        em,
      }) => {
        const engine = createEngine(em, { policy: bookPolicy, allowCount: true, search: slowSearch(dialect) });
        const { result, calls } = await captureDriver(() =>
          Promise.allSettled([
            engine.from(books(em.fork())).list({ search: 'slow', count: 'true' }),
            engine
              .from(books(em.fork()))
              .list({ search: 'fast', count: 'true' }, { requestTimeout: 50, requestStart: performance.now() }),
          ]),
        );
        assert.is(result[0].status, 'fulfilled');
        const late = result[1].status === 'rejected' ? result[1].reason : undefined;
        assert.ok(isListError(late) && late.code === 'query_timeout', String(late));
        // The slow request's data and count; the late one's statements never started.
        assert.is(calls.length, 2, calls.map((c) => c.sql).join('\n'));
      });
      return;
    }

    for (const how of ['abort', 'deadline'] as const)
      test(`${how}: the statement is gone from the server within 200 ms while both pooled connections are busy`, async ({
        db,
        em,
      }) => {
        const engine = createEngine(em, { policy: bookPolicy, statementTimeout: false, search: slowSearch(dialect) });
        const watch = await watcher(dialect, db.url!);
        try {
          const controllers = [new AbortController(), new AbortController()];
          const started = performance.now();
          const runs = controllers.map((c, i) =>
            engine
              .from(books(em.fork()))
              .list(
                { search: 'slow' },
                { signal: c.signal, requestTimeout: how === 'deadline' && i === 0 ? 1500 : 60_000 },
              )
              .catch((err: unknown) => err),
          );
          assert.ok(await within(async () => (await watch.running()) === 2, 3000), 'both statements never ran');
          let stopped: number | undefined;
          if (how === 'abort') {
            controllers[0]!.abort(new Error('client went away'));
            stopped = await within(async () => (await watch.running()) === 1, 1000);
          } else {
            // The first request's deadline passes 1.5 s after it started (a little after \`started\`).
            await within(async () => (await watch.running()) === 1, 3000);
            stopped = performance.now() - (started + 1500);
          }
          const first = await runs[0];
          assert.ok(stopped !== undefined && stopped < 200, `stopped after ${stopped} ms`);
          assert.ok(isListError(first), String(first));
          assert.is(first.code, how === 'abort' ? 'execution_failed' : 'query_timeout');
          controllers[1]!.abort(new Error('done'));
          await runs[1];
          assert.ok(await within(async () => (await watch.running()) === 0, 1000), 'the second statement kept running');
          // The pool serves again.
          const page = await engine.from(books(em.fork())).list({ search: 'fast' });
          assert.ok(page.items.length > 0);
        } finally {
          await watch.close();
        }
      });
  },
);
