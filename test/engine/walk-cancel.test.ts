/**
 * A walk's page stopped while it is read, on every dialect: an abort answers at once and (PostgreSQL, MariaDB) stops
 * the statement on the server, whose backend is then idle and whose connection is back in the pool; a page over the
 * statement timeout answers `query_timeout` (SQLite, which cannot stop a statement, reads on); a connection killed
 * under a page (pg_terminate_backend, KILL; SQLite: the database closed) fails the walk instead of hanging it. On
 * PostgreSQL the walk's pages are read past pg's Query (dialect/postgresql/walk-read.ts): the tests check they were,
 * and that pg's own `query_timeout` reaches such a page too.
 */
import { type EntityManager, EntitySchema } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type EngineConfig, isListError, type ListContext } from '../../src/index.ts';
import { schema, sortable } from '../../src/policy/index.ts';
import { type Dialect, eachDialect, openDatabase } from '../helpers/db.ts';

class Slow {
  id!: number;
  name!: string;
}

const SlowSchema = new EntitySchema<Slow>({
  class: Slow,
  tableName: 'walk_slow',
  properties: { id: { type: 'integer', primary: true, autoincrement: false }, name: { type: 'string' } },
});

const ROWS = 20;
const PAGE = 3;

async function seed(em: EntityManager, dialect: Dialect): Promise<void> {
  for (let i = 1; i <= ROWS; i++) em.create(Slow, { id: i, name: `slow ${i}` });
  await em.flush();
  if (dialect === 'postgresql') await em.getConnection().execute('create sequence walk_slow_calls');
  em.clear();
}

/**
 * `search=slow`: every data statement after the walk's first sleeps `seconds` on the server. PostgreSQL counts the
 * statements with a sequence (read once per statement); MariaDB sleeps on each row past the first page's (its
 * clustered key is read in order and the read stops at the limit); SQLite adds nothing.
 */
function slowAfterFirst(dialect: Dialect, seconds = 5): NonNullable<EngineConfig['search']> {
  return (_ctx, qb, term) => {
    if (term !== 'slow') return qb;
    if (dialect === 'postgresql')
      return qb.andWhere(`(select true from pg_sleep(case when nextval('walk_slow_calls') > 1 then ? else 0 end))`, [
        seconds,
      ]);
    if (dialect === 'mariadb')
      return qb.andWhere('(case when s.id > ? then sleep(?) else 0 end) = 0', [PAGE + 1, seconds]);
    return qb;
  };
}

const policy = schema(Slow).expose('id', sortable());

function walkOf(em: EntityManager, dialect: Dialect, config: Partial<EngineConfig>, ctx: ListContext = {}) {
  const engine = createEngine(em, { policy, search: slowAfterFirst(dialect), ...config });
  return engine
    .from((em.fork() as any).createQueryBuilder(Slow, 's'))
    .items({ search: 'slow' }, ctx, { pageSize: PAGE });
}

/** The slow statement running on the server: its backend's id, or undefined when none runs. */
async function running(em: EntityManager, dialect: Dialect): Promise<number | undefined> {
  const sql =
    dialect === 'postgresql'
      ? `select pid as id from pg_stat_activity where datname = current_database() and state = 'active'
           and query like '%pg_sleep%' and pid <> pg_backend_pid()`
      : `select id from information_schema.processlist where db = database() and id <> connection_id()
           and command <> 'Sleep' and info like '%sleep(%'`;
  const rows = await em.fork().getConnection().execute<{ id: number | string }[]>(sql);
  return rows[0] === undefined ? undefined : Number(rows[0].id);
}

/** Poll `read` until it gives something other than undefined, for up to five seconds. */
async function until<T>(read: () => Promise<T | undefined>, what = 'the slow page never ran'): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`test: ${what}`);
}

/** Pooled connections lent out (pg-pool, mysql2's pool). */
async function lent(em: EntityManager, dialect: Dialect): Promise<number> {
  const pool = (await (em.getConnection() as any).getNativeClient()) as Record<string, any>;
  if (dialect === 'postgresql') return pool.totalCount - pool.idleCount;
  return pool._allConnections.length - pool._freeConnections.length;
}

/** The server and the pool once a stopped page has settled: nothing running, every connection back (two seconds). */
async function settledState(em: EntityManager, dialect: Dialect): Promise<{ running: boolean; lent: number }> {
  let state = { running: true, lent: -1 };
  for (let i = 0; i < 40; i++) {
    state = { running: (await running(em, dialect)) !== undefined, lent: await lent(em, dialect) };
    if (!state.running && state.lent === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return state;
}

/** Whether pg-pool still holds the client of backend `pid` (PostgreSQL). */
async function pooled(em: EntityManager, pid: number | undefined): Promise<boolean> {
  const pool = (await (em.getConnection() as any).getNativeClient()) as { _clients: { processID?: number }[] };
  return pool._clients.some((client) => client.processID === pid);
}

interface PgClientClass {
  prototype: { query(this: unknown, config: unknown, ...rest: unknown[]): unknown };
}

/** Run `run`, counting the statements pg's clients got as a walk's direct read (PostgreSQL; 0 elsewhere). */
async function directReads(em: EntityManager, dialect: Dialect, run: () => Promise<void>): Promise<number> {
  if (dialect !== 'postgresql') {
    await run();
    return 0;
  }
  const pool = (await (em.getConnection() as any).getNativeClient()) as { Client: PgClientClass };
  const proto = pool.Client.prototype;
  const original = proto.query;
  let reads = 0;
  proto.query = function (config, ...rest) {
    if ((config as object | null)?.constructor?.name === 'WalkRead') reads++;
    return original.call(this, config, ...rest);
  };
  try {
    await run();
  } finally {
    proto.query = original;
  }
  return reads;
}

/** Drain `items`, calling `onFirst` at the first item; the items seen and the walk's error, if any. */
async function drain(
  items: AsyncIterable<unknown>,
  onFirst: () => void = () => {},
): Promise<{ seen: number; error?: unknown }> {
  let seen = 0;
  try {
    for await (const _ of items) if (++seen === 1) onFirst();
    return { seen };
  } catch (error) {
    return { seen, error };
  }
}

/** Settle with `pending`, or fail the test if it takes longer than `ms` (a hang). */
function within<T>(pending: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`test: the walk still hangs after ${ms} ms`)), ms);
  });
  return Promise.race([pending, hang]).finally(() => clearTimeout(timer));
}

eachDialect('a walk page stopped while it is read', { entities: [SlowSchema], seed }, (test, dialect) => {
  const sqlite = dialect === 'sqlite';
  const pg = dialect === 'postgresql';

  test.before.each(async ({ db }) => {
    if (pg) await db.orm.em.getConnection().execute('alter sequence walk_slow_calls restart');
  });

  test('an abort while a page is read answers at once, stops it on the server and frees its connection', async ({
    em,
  }) => {
    const controller = new AbortController();
    let abortedAt = 0;
    const abort = () => {
      abortedAt = performance.now();
      controller.abort(new Error('client went away'));
    };
    let outcome: { seen: number; error?: unknown } = { seen: 0 };
    const reads = await directReads(em, dialect, async () => {
      outcome = await within(
        drain(walkOf(em, dialect, { statementTimeout: false }, { signal: controller.signal }), () => {
          // SQLite reads the next page only when asked: abort before it. Elsewhere it is read ahead: abort it
          // while it runs on the server.
          if (sqlite) abort();
          else void until(() => running(em, dialect)).then(abort);
        }),
        10_000,
      );
    });
    const { seen, error } = outcome;
    assert.ok(isListError(error) && error.code === 'execution_failed', String(error));
    assert.ok(seen >= 1 && seen <= PAGE, `${seen} items`);
    assert.ok(performance.now() - abortedAt < 2000, 'the abort was not answered at once');
    if (pg) assert.ok(reads >= 2, `${reads} pages read past pg's Query`);
    if (!sqlite) assert.equal(await settledState(em, dialect), { running: false, lent: 0 });
  });

  test(`a page over the statement timeout: ${sqlite ? 'SQLite reads on' : 'query_timeout'}`, async ({ em }) => {
    let outcome: { seen: number; error?: unknown } = { seen: 0 };
    const started = performance.now();
    const reads = await directReads(em, dialect, async () => {
      outcome = await within(drain(walkOf(em, dialect, { statementTimeout: 300 })), 10_000);
    });
    const { seen, error } = outcome;
    if (sqlite) {
      assert.is(error, undefined);
      assert.is(seen, ROWS);
      return;
    }
    assert.ok(isListError(error) && error.code === 'query_timeout', String(error));
    assert.is(seen, PAGE);
    assert.ok(performance.now() - started < 3000, 'the page ran past its timeout');
    if (pg) assert.ok(reads >= 2, `${reads} pages read past pg's Query`);
    assert.equal(await settledState(em, dialect), { running: false, lent: 0 });
  });

  // Last: on SQLite it closes the suite's database.
  test(`a connection ${sqlite ? 'closed' : 'killed'} while a page is read fails the walk, which does not hang`, async ({
    em,
  }) => {
    const kill = async () => {
      if (sqlite) {
        ((await (em.getConnection() as any).getNativeClient()) as { close(): void }).close();
        return;
      }
      killed = await until(() => running(em, dialect));
      await em
        .fork()
        .getConnection()
        .execute(pg ? `select pg_terminate_backend(${killed})` : `kill connection ${killed}`);
    };
    let killed: number | undefined;
    let killing: Promise<void> | undefined;
    const started = performance.now();
    const { seen, error } = await within(
      drain(walkOf(em, dialect, { statementTimeout: false }), () => {
        killing = kill();
      }),
      10_000,
    );
    await killing;
    assert.ok(isListError(error), String(error));
    assert.ok(!/select|pg_sleep|walk_slow/i.test(error.message), `SQL in the error: ${error.message}`);
    assert.ok(seen >= 1 && seen <= PAGE, `${seen} items`);
    assert.ok(performance.now() - started < 4000, 'the walk waited for the killed statement');
    if (sqlite) return;
    // As with pg's Query, the statement fails on the server's error, before the socket closes: the client may go back
    // to the pool's idle ones first, and the pool drops it when its socket closes. Then the pool serves again.
    if (pg) await until(async () => ((await pooled(em, killed)) ? undefined : true), 'the pool kept the killed client');
    // The pool serves again: a walk of fast pages reads every row.
    const again = await within(
      drain(
        createEngine(em, { policy })
          .from((em.fork() as any).createQueryBuilder(Slow, 's'))
          .items({}, {}, { pageSize: PAGE }),
      ),
      10_000,
    );
    assert.equal(again, { seen: ROWS });
    assert.equal(await settledState(em, dialect), { running: false, lent: 0 });
  });

  if (pg)
    test("PostgreSQL: pg's own query_timeout fails a page read past its Query, once", async () => {
      const db = await openDatabase('postgresql', [SlowSchema], { driverOptions: { query_timeout: 400 } });
      try {
        await seed(db.orm.em.fork(), dialect);
        const em = db.orm.em.fork();
        const rejections: unknown[] = [];
        const onRejection = (reason: unknown) => rejections.push(reason);
        process.on('unhandledRejection', onRejection);
        let outcome: { seen: number; error?: unknown } = { seen: 0 };
        const started = performance.now();
        try {
          const reads = await directReads(em, dialect, async () => {
            outcome = await within(
              drain(walkOf(em, dialect, { statementTimeout: false, search: slowAfterFirst(dialect, 1) })),
              10_000,
            );
          });
          assert.ok(reads >= 2, `${reads} pages read past pg's Query`);
        } finally {
          process.off('unhandledRejection', onRejection);
        }
        assert.ok(isListError(outcome.error), String(outcome.error));
        assert.is(outcome.seen, PAGE);
        assert.ok(performance.now() - started < 3000, 'the read timeout did not answer');
        assert.equal(rejections, []);
      } finally {
        await db.dispose();
      }
    });
});
