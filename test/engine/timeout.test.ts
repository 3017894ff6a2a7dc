/**
 * Statement timeouts and aborts: every data and count query runs under the statement timeout (the engine's, or
 * ctx.statementTimeout), on PostgreSQL kept by a client timer that cancels it on the server (`statement_timeout`
 * with ctx.pgSettings), on MariaDB by `SET STATEMENT max_statement_time … FOR`, and answers
 * `query_timeout` (503) when it runs out, scoped so that nothing leaks to the pool or to a caller's transaction; on
 * SQLite, which cannot stop a statement, it runs to its end. On every dialect an aborted request never starts its
 * next query (count after data, the next page of a walk), and aborts leave no unhandled error, no log line, and a
 * pool that still serves; on PostgreSQL and MariaDB the aborted statement is stopped on the server.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { Book, ENTITIES } from '../../examples/bookstore/entities.ts';
import { bookPolicy } from '../../examples/bookstore/policies.ts';
import { seed } from '../../examples/bookstore/seed.ts';
import {
  apply,
  createEngine,
  type EngineConfig,
  errorResponse,
  execute,
  executeCount,
  isListError,
  type ListContext,
  parseHTTP,
} from '../../src/index.ts';
import { captureDriver, type DriverCall } from '../helpers/capture.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';

/**
 * A search that makes the query slow on purpose: `slow` sleeps (PostgreSQL), works through a cross join of a
 * thousand-row sequence with itself (MariaDB: about 16 million rows per unit, some 60 ms, `seconds` worth of units:
 * real work, which only KILL QUERY or the time limit stops), or counts to a few million (SQLite, about a quarter of a
 * second: a statement the signal cannot interrupt); `fast` adds nothing.
 */
function slowSearch(dialect: Dialect, seconds = 2): NonNullable<EngineConfig['search']> {
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
      [3_000_000],
    );
  };
}

/**
 * A signal that aborts while the slow data statement runs, from a timer (a macrotask, as a timeout or a closed socket
 * is): on SQLite the statement schedules it when it starts (through a function it calls), so the timer falls due
 * while the statement still holds the event loop; on PostgreSQL and MariaDB a timer fires while the statement runs.
 */
async function abortDuringStatement(
  em: EntityManager,
  dialect: Dialect,
): Promise<{ signal: AbortSignal; search: NonNullable<EngineConfig['search']> }> {
  const controller = new AbortController();
  const abort = () => controller.abort(new Error('client went away'));
  if (dialect !== 'sqlite') {
    setTimeout(abort, 300);
    return { signal: controller.signal, search: slowSearch(dialect) };
  }
  const native = (await (em.getConnection() as any).getNativeClient()) as {
    function(name: string, fn: () => number): void;
  };
  let scheduled = false;
  native.function('lq_test_abort_soon', () => {
    if (!scheduled) setTimeout(abort, 0);
    scheduled = true;
    return 1;
  });
  const slow = slowSearch(dialect);
  return {
    signal: controller.signal,
    search: (ctx, qb, term) => slow(ctx, qb.andWhere('lq_test_abort_soon() = 1'), term),
  };
}

function books(em: EntityManager) {
  return (em as unknown as { createQueryBuilder(e: unknown, a: string): any }).createQueryBuilder(Book, 'b').where({
    tenant: 1,
  });
}

function engineFor(em: EntityManager, dialect: Dialect, config: Partial<EngineConfig> = {}) {
  return createEngine(em, { policy: bookPolicy, allowCount: true, search: slowSearch(dialect), ...config });
}

async function outcome<T>(run: () => Promise<T>): Promise<T | Error> {
  return run().then(
    (value) => value,
    (err: unknown) => err as Error,
  );
}

const dataQueries = (calls: readonly DriverCall[]) => calls.filter((c) => /from [`"]book[`"]/.test(c.sql));
const countQueries = (calls: readonly DriverCall[]) => calls.filter((c) => /^select count\(/.test(c.sql));

/** Record console.error/warn/log output and unhandled rejections while `run` runs (and a moment after). */
async function quietly(run: () => Promise<void>): Promise<string[]> {
  const noise: string[] = [];
  const originals = { error: console.error, warn: console.warn, log: console.log };
  for (const name of ['error', 'warn', 'log'] as const)
    console[name] = (...args: unknown[]) => noise.push(`console.${name}: ${args.map(String).join(' ')}`);
  const onRejection = (reason: unknown) => noise.push(`unhandledRejection: ${String(reason)}`);
  process.on('unhandledRejection', onRejection);
  try {
    await run();
    // Background work (cancel queries, rollbacks, Kysely's handlers) settles after the requests do.
    await new Promise((resolve) => setTimeout(resolve, 500));
  } finally {
    Object.assign(console, originals);
    process.off('unhandledRejection', onRejection);
  }
  return noise;
}

async function serverState(em: EntityManager): Promise<{ idleInTransaction: number; sleeping: number }> {
  const [row] = await em.getConnection().execute<{ idle: string | number; sleeping: string | number }[]>(
    `select count(*) filter (where state = 'idle in transaction') as idle,
              count(*) filter (where state = 'active' and query like '%pg_sleep%' and pid <> pg_backend_pid()) as sleeping
       from pg_stat_activity where datname = current_database()`,
  );
  return { idleInTransaction: Number(row?.idle ?? 0), sleeping: Number(row?.sleeping ?? 0) };
}

/**
 * On MariaDB: the slow statements still running in this database, and this ORM's pooled connections (all of which
 * must be idle in the pool again: none kept by a statement that was given up on).
 */
async function mariaState(em: EntityManager): Promise<{ running: number; lent: number }> {
  const [row] = await em.getConnection().execute<{ running: string | number }[]>(
    `select count(*) as running from information_schema.processlist
        where db = database() and id <> connection_id() and command <> 'Sleep' and info like '%with recursive n(x)%'`,
  );
  const pool = (await (em.getConnection() as any).getNativeClient()) as {
    _allConnections: { length: number };
    _freeConnections: { length: number };
  };
  return { running: Number(row?.running ?? 0), lent: pool._allConnections.length - pool._freeConnections.length };
}

/** Poll `state` until it equals `want` or two seconds pass; return the last reading. */
async function settled<T>(state: () => Promise<T>, want: T): Promise<T> {
  let now = await state();
  for (let i = 0; i < 20 && JSON.stringify(now) !== JSON.stringify(want); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    now = await state();
  }
  return now;
}

eachDialect('engine timeouts and aborts', { entities: ENTITIES, seed }, (test, dialect) => {
  const pg = dialect === 'postgresql';
  const maria = dialect === 'mariadb';
  /** PostgreSQL and MariaDB stop a statement on the server; SQLite cannot. */
  const stops = dialect !== 'sqlite';

  // SQLite reads the count after the page: an abort during the page leaves it unsent. PostgreSQL and MariaDB run the
  // count of a cheap request beside its page (list-page.ts): the abort stops both, and nothing starts after it.
  test(`an abort during the data query: ${stops ? 'the count beside it is stopped too' : 'the count never reaches the driver'}`, async ({
    em,
  }) => {
    const { signal, search } = await abortDuringStatement(em, dialect);
    const engine = engineFor(em, dialect, { statementTimeout: false, search });
    const { result, calls } = await captureDriver(() =>
      outcome(() => engine.from(books(em)).list({ search: 'slow', count: 'true' }, { signal })),
    );
    assert.ok(isListError(result) && result.code === 'execution_failed', String(result));
    const counts = countQueries(calls);
    assert.is(dataQueries(calls).length - counts.length, 1);
    assert.is(
      counts.length,
      stops ? 1 : 0,
      stops ? 'the count did not run beside the page' : 'the count started after the abort',
    );
    if (pg)
      assert.equal(await settled(() => serverState(em), { idleInTransaction: 0, sleeping: 0 }), {
        idleInTransaction: 0,
        sleeping: 0,
      });
    if (maria) assert.equal(await settled(() => mariaState(em), { running: 0, lent: 0 }), { running: 0, lent: 0 });
  });

  test('an abort during a walk: the next page never reaches the driver', async ({ em }) => {
    const { signal, search } = await abortDuringStatement(em, dialect);
    const engine = engineFor(em, dialect, { statementTimeout: false, search });
    const pages: unknown[] = [];
    const { result, calls } = await captureDriver(() =>
      outcome(async () => {
        for await (const page of engine.from(books(em)).pages({ search: 'slow', limit: '1' }, { signal }))
          pages.push(page);
      }),
    );
    assert.ok(isListError(result) && result.code === 'execution_failed', String(result));
    assert.ok(pages.length <= 1);
    assert.is(dataQueries(calls).length, 1, 'a page started after the abort');
  });

  test(`a statement over statementTimeout: ${stops ? 'query_timeout (503), a public answer' : 'SQLite runs it to its end'}`, async ({
    em,
  }) => {
    const engine = engineFor(em, dialect, { statementTimeout: 100 });
    const started = Date.now();
    const result = await outcome(() => engine.from(books(em)).list({ search: 'slow' }));
    if (!stops) {
      assert.ok(!(result instanceof Error), String(result));
      return;
    }
    assert.ok(Date.now() - started < 1500, 'the statement ran past its timeout');
    if (!isListError(result)) throw new Error(`expected a ListError, got ${String(result)}`);
    assert.is(result.code, 'query_timeout');
    assert.ok(result.message.includes('try a cheaper request'), result.message);
    const response = errorResponse(result);
    assert.is(response.status, 503);
    assert.equal(Object.keys(response.body).sort(), ['code', 'message']);
    assert.is(response.body.code, 'query_timeout');
  });

  test('the count query is bounded too', async ({ em }) => {
    const engine = engineFor(em, dialect, { statementTimeout: 100 });
    const result = await outcome(() => engine.from(books(em)).list({ search: 'slow', count: 'true', limit: '0' }));
    if (stops) assert.ok(isListError(result) && result.code === 'query_timeout', String(result));
    else assert.ok(!(result instanceof Error), String(result));
  });

  test('ctx.statementTimeout overrides the engine setting, both ways', async ({ em }) => {
    const none = engineFor(em, dialect, { statementTimeout: false, search: slowSearch(dialect, 0.3) });
    const shortened = await outcome(() => none.from(books(em)).list({ search: 'slow' }, { statementTimeout: 50 }));
    if (stops) assert.ok(isListError(shortened) && shortened.code === 'query_timeout', String(shortened));
    else assert.ok(!(shortened instanceof Error));
    const tight = engineFor(em, dialect, { statementTimeout: 50, search: slowSearch(dialect, 0.3) });
    const page = await outcome(() => tight.from(books(em)).list({ search: 'slow' }, { statementTimeout: 5000 }));
    assert.ok(!(page instanceof Error), String(page));
  });

  test('execute() and executeCount() of the apply() path take a statement timeout too', async ({ em }) => {
    const slow = await slowSearch(dialect, 1)({}, books(em), 'slow');
    const qb = apply(slow, bookPolicy.bind(em), parseHTTP({ filter: 'year gt 1900' }));
    const runs: (() => Promise<unknown>)[] = [
      () => execute(qb, { statementTimeout: 50 }),
      () => executeCount(qb, { statementTimeout: 50 }),
    ];
    for (const run of runs) {
      const result = await outcome(run);
      if (stops) assert.ok(isListError(result) && result.code === 'query_timeout', String(result));
      else assert.ok(!(result instanceof Error), String(result));
    }
  });

  test('a ctx.statementTimeout that is not a positive whole number is invalid_schema, before any query', async ({
    em,
  }) => {
    for (const bad of [0, -5, 1.5, Number.NaN]) {
      const { result, calls } = await captureDriver(() =>
        outcome(() =>
          engineFor(em, dialect)
            .from(books(em))
            .list({}, { statementTimeout: bad } as ListContext),
        ),
      );
      assert.ok(isListError(result) && result.code === 'invalid_schema', `${bad}: ${String(result)}`);
      assert.is(calls.length, 0);
    }
  });

  test('aborting many running requests: no unhandled error, no log line, and the pool still serves', async ({ em }) => {
    const engine = engineFor(em, dialect);
    const results: unknown[] = [];
    const noise = await quietly(async () => {
      const runs = Array.from({ length: 20 }, (_, i) => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(new Error('client went away')), 20 + (i % 5) * 25);
        return outcome(() =>
          engine.from(books(em.fork())).list({ search: 'slow', count: 'true' }, { signal: controller.signal }),
        );
      });
      results.push(...(await Promise.all(runs)));
    });
    assert.equal(noise, []);
    for (const r of results) assert.ok(isListError(r) && r.code === 'execution_failed', String(r));
    const page = await engine.from(books(em)).list({ search: 'fast', count: 'true' });
    assert.ok(page.items.length > 0);
    if (pg) {
      // Cancelled on the server, not left sleeping; no connection left inside a transaction.
      let state = await serverState(em);
      for (let i = 0; i < 20 && (state.sleeping > 0 || state.idleInTransaction > 0); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        state = await serverState(em);
      }
      assert.equal(state, { idleInTransaction: 0, sleeping: 0 });
    }
    // Killed on the server, not left running; every pooled connection back in the pool.
    if (maria) assert.equal(await settled(() => mariaState(em), { running: 0, lent: 0 }), { running: 0, lent: 0 });
  });

  if (pg || maria)
    test('many timeouts in a row leave the pool serving, with nothing left in a transaction or running', async ({
      em,
    }) => {
      const engine = engineFor(em, dialect, { statementTimeout: 30, search: slowSearch(dialect, 1) });
      for (let round = 0; round < 3; round++) {
        const results = await Promise.all(
          Array.from({ length: 15 }, () => outcome(() => engine.from(books(em.fork())).list({ search: 'slow' }))),
        );
        for (const r of results) assert.ok(isListError(r) && r.code === 'query_timeout', String(r));
      }
      // The pool serves again: a cheap request answers. Its engine allows 2 s, not 30 ms: on a loaded machine the
      // first statement after 45 stopped ones may wait for a connection the server is still tidying up.
      const after = engineFor(em, dialect, { statementTimeout: 2000, search: slowSearch(dialect, 1) });
      const page = await after.from(books(em)).list({ search: 'fast' });
      assert.ok(page.items.length > 0);
      // Within 2 s: a cancelled statement's rollback may still be on its way back from the server under load.
      if (pg) {
        const clean = { idleInTransaction: 0, sleeping: 0 };
        assert.equal(await settled(() => serverState(em), clean), clean);
      } else assert.equal(await settled(() => mariaState(em), { running: 0, lent: 0 }), { running: 0, lent: 0 });
    });

  if (pg) {
    test('the timeout does not leak into the pool', async ({ em }) => {
      const engine = engineFor(em, dialect, { statementTimeout: 1234 });
      for (let i = 0; i < 5; i++) await Promise.all([1, 2, 3].map(() => engine.from(books(em.fork())).list({})));
      const settings = await Promise.all(
        Array.from({ length: 10 }, () =>
          em.fork().getConnection().execute<{ t: string }[]>("select current_setting('statement_timeout') as t"),
        ),
      );
      for (const [row] of settings) assert.is(row?.t, '0');
    });

    test("in a caller's transaction: bounded, and its own setting is put back", async ({ em }) => {
      const engine = engineFor(em, dialect, { statementTimeout: 100 });
      await em.transactional(async (tem) => {
        const connection = tem.getConnection();
        const ctx = tem.getTransactionContext();
        await connection.execute("set local statement_timeout = '12345'", [], 'run', ctx);
        const page = await engine.from(books(tem)).list({ search: 'fast' });
        assert.ok(page.items.length > 0);
        const [row] = await connection.execute<{ t: string }[]>(
          "select current_setting('statement_timeout') as t",
          [],
          'all',
          ctx,
        );
        assert.is(row?.t, '12345ms');
      });
      const failed = await outcome(() =>
        em.fork().transactional((tem) => engine.from(books(tem)).list({ search: 'slow' })),
      );
      assert.ok(isListError(failed) && failed.code === 'query_timeout', String(failed));
    });
  }

  if (maria) {
    test('MariaDB: an aborted statement is killed on the server soon after, and its connection goes back', async ({
      em,
    }) => {
      const controller = new AbortController();
      const engine = engineFor(em, dialect, { statementTimeout: false, search: slowSearch(dialect, 5) });
      const running = outcome(() => engine.from(books(em)).list({ search: 'slow' }, { signal: controller.signal }));
      // Wait until the server runs it, so the test shows a running statement stopped.
      assert.equal(await settled(() => mariaState(em), { running: 1, lent: 1 }), { running: 1, lent: 1 });
      const aborted = Date.now();
      controller.abort(new Error('client went away'));
      const result = await running;
      assert.ok(isListError(result) && result.code === 'execution_failed', String(result));
      assert.ok(Date.now() - aborted < 200, 'the caller waited for the statement');
      assert.equal(await settled(() => mariaState(em), { running: 0, lent: 0 }), { running: 0, lent: 0 });
      assert.ok(Date.now() - aborted < 1500, 'the statement ran on after the abort');
    });

    test("MariaDB: an abort in a caller's transaction stops the statement, and the transaction goes on", async ({
      em,
    }) => {
      const engine = engineFor(em, dialect, { statementTimeout: false, search: slowSearch(dialect, 5) });
      await em.fork().transactional(async (tem) => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(new Error('client went away')), 300);
        const started = Date.now();
        const result = await outcome(() =>
          engine.from(books(tem)).list({ search: 'slow' }, { signal: controller.signal }),
        );
        assert.ok(isListError(result) && result.code === 'execution_failed', String(result));
        assert.ok(Date.now() - started < 1500, 'the statement ran on after the abort');
        // Answered only once the statement stopped: the transaction's connection runs nothing of listql's now.
        assert.is((await mariaState(em)).running, 0);
        const page = await engine.from(books(tem)).list({ search: 'fast' });
        assert.ok(page.items.length > 0);
      });
      assert.equal(await settled(() => mariaState(em), { running: 0, lent: 0 }), { running: 0, lent: 0 });
    });

    test("MariaDB: the time limit is the statement's own: no session setting changes", async ({ em }) => {
      const engine = engineFor(em, dialect, { statementTimeout: 1234 });
      for (let i = 0; i < 5; i++) await Promise.all([1, 2, 3].map(() => engine.from(books(em.fork())).list({})));
      const settings = await Promise.all(
        Array.from({ length: 10 }, () =>
          em.fork().getConnection().execute<{ t: unknown }[]>('select @@session.max_statement_time as t'),
        ),
      );
      for (const [row] of settings) assert.is(Number(row?.t), 0);
      await em.fork().transactional(async (tem) => {
        const connection = tem.getConnection();
        const ctx = tem.getTransactionContext();
        await connection.execute('set session max_statement_time = 12.5', [], 'run', ctx);
        try {
          const page = await engine.from(books(tem)).list({ search: 'fast' });
          assert.ok(page.items.length > 0);
          const [row] = await connection.execute<{ t: unknown }[]>(
            'select @@session.max_statement_time as t',
            [],
            'all',
            ctx,
          );
          assert.is(Number(row?.t), 12.5);
        } finally {
          await connection.execute('set session max_statement_time = 0', [], 'run', ctx);
        }
      });
      const failed = await outcome(() =>
        em.fork().transactional((tem) => engine.from(books(tem)).list({ search: 'slow' })),
      );
      assert.ok(isListError(failed) && failed.code === 'query_timeout', String(failed));
    });
  }
});
