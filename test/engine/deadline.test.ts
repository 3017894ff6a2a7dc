/**
 * One deadline per request (engine `requestTimeout`, `ctx.requestTimeout`): a page, its count and every nested level
 * share it, each statement runs under the time left (the statement timeout when that is shorter), and a request past
 * it gets `query_timeout` with nothing left running on the server. On SQLite, which cannot stop a statement, no
 * statement starts once the deadline has passed. A pages() walk gives each page its own deadline.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { Book, ENTITIES } from '../../examples/bookstore/entities.ts';
import { bookPolicy } from '../../examples/bookstore/policies.ts';
import { seed } from '../../examples/bookstore/seed.ts';
import { clientLimitWatchers } from '../../src/dialect/postgresql/execute.ts';
import { createEngine, type EngineConfig, errorResponse, isListError, type ListContext } from '../../src/index.ts';
import { captureDriver, type DriverCall } from '../helpers/capture.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';

/**
 * A search that makes each statement it is in (the data query and the count) slow on purpose: PostgreSQL sleeps
 * `seconds`; MariaDB works through a cross join of a thousand-row sequence with itself (about 60 ms per unit, real
 * work that only the time limit or KILL QUERY stops); SQLite counts to `sqliteRows` (three million: a quarter of a
 * second or more, which nothing can interrupt).
 */
function slowSearch(dialect: Dialect, seconds: number, sqliteRows = 3_000_000): NonNullable<EngineConfig['search']> {
  return (_ctx, qb, term) => {
    if (term !== 'slow') return qb;
    if (dialect === 'postgresql') return qb.andWhere('(select true from pg_sleep(?))', [seconds]);
    if (dialect === 'mariadb')
      return qb.andWhere(
        `(with recursive n(x) as (select 1 union all select x + 1 from n where x < 1000)
          select count(*) from n a, n b, n c where a.x <= ? and a.x + b.x + c.x < 0) = 0`,
        [Math.max(1, Math.round(seconds * 64))],
      );
    return qb.andWhere(
      '(with recursive c(x) as (select 1 union all select x + 1 from c where x < ?) select count(*) from c) > 0',
      [sqliteRows],
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

/** The slow statements still running in this database (PostgreSQL, MariaDB), and connections left in a transaction. */
async function leftRunning(em: EntityManager, dialect: Dialect): Promise<number> {
  const sql =
    dialect === 'postgresql'
      ? `select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
           and ((state = 'active' and query like '%pg_sleep%') or state = 'idle in transaction')`
      : `select count(*) as n from information_schema.processlist
           where db = database() and id <> connection_id() and command <> 'Sleep' and info like '%with recursive n(x)%'`;
  const [row] = await em.fork().getConnection().execute<{ n: string | number }[]>(sql);
  return Number(row?.n ?? 0);
}

/** Poll until nothing slow is left running or two seconds pass; return the last count. */
async function settledRunning(em: EntityManager, dialect: Dialect): Promise<number> {
  let n = await leftRunning(em, dialect);
  for (let i = 0; i < 40 && n > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    n = await leftRunning(em, dialect);
  }
  return n;
}

const isCount = (c: DriverCall) => /^(SET STATEMENT [^F]+ FOR )?select count\(/i.test(c.sql);
const isData = (c: DriverCall) => /from [`"]book[`"]/i.test(c.sql) && !isCount(c);
const isLevel = (c: DriverCall) => /from [`"]review[`"]/i.test(c.sql);

/** The time limit each statement ran under, in milliseconds, in the order sent (server-side limits). */
function limitsSent(calls: readonly DriverCall[]): number[] {
  const out: number[] = [];
  for (const { sql } of calls) {
    const pg = /^begin; set local statement_timeout = (\d+)$/.exec(sql);
    if (pg) out.push(Number(pg[1]));
    const maria = /^SET STATEMENT max_statement_time = ([\d.]+)(?:, optimizer_switch = '[^']*')? FOR /.exec(sql);
    if (maria) out.push(Math.round(Number(maria[1]) * 1000));
  }
  return out;
}

/**
 * Run `fn`, recording the statements the drivers receive and the time limit of each, in milliseconds: PostgreSQL's
 * client timer keeps the limit of a plain statement (it is in no SQL text), MariaDB's statement carries its own.
 */
async function captureLimits<T>(fn: () => Promise<T>): Promise<{ result: T; calls: DriverCall[]; limits: number[] }> {
  const kept: number[] = [];
  const watch = (_sql: string, milliseconds: number) => kept.push(milliseconds);
  clientLimitWatchers.add(watch);
  try {
    const { result, calls } = await captureDriver(fn, { guards: true });
    return { result, calls, limits: [...limitsSent(calls), ...kept] };
  } finally {
    clientLimitWatchers.delete(watch);
  }
}

eachDialect('engine request deadline', { entities: ENTITIES, seed }, (test, dialect) => {
  const stops = dialect !== 'sqlite';
  const nested = { search: 'slow', count: 'true', fields: 'title,reviews(stars)', limit: '3' };

  test('a page, its nested level and its count share one deadline: query_timeout, nothing left running', async ({
    em,
  }) => {
    // Each statement fits the statement timeout (5 s); together they pass the request's 700 ms. SQLite's data
    // statement (counting to eight million) alone runs past 400 ms.
    const engine = createEngine(em, {
      policy: bookPolicy,
      allowCount: true,
      statementTimeout: 5000,
      requestTimeout: stops ? 700 : 400,
      search: slowSearch(dialect, 0.4, 8_000_000),
    });
    const started = performance.now();
    const { result, calls } = await captureDriver(() => outcome(() => engine.from(books(em)).list(nested)));
    const took = performance.now() - started;
    if (!isListError(result)) throw new Error(`expected query_timeout, got ${String(result)}`);
    assert.is(result.code, 'query_timeout');
    assert.match(result.message, /ran longer than (700|400) ms together/);
    assert.is(errorResponse(result).status, 503);
    assert.is(calls.filter(isData).length, 1);
    if (dialect === 'postgresql') {
      // The data query slept 400 ms and ended; the nested level ran; the count was stopped at the deadline.
      assert.is(calls.filter(isLevel).length, 1, 'the nested level ran in the time left');
      assert.is(calls.filter(isCount).length, 1, 'the count started in the time left');
      assert.ok(took < 1200, `stopped at the deadline, not after both statements (${Math.round(took)} ms)`);
    }
    if (dialect === 'sqlite') {
      // The data statement cannot be stopped; past the deadline, neither the nested level nor the count starts.
      assert.is(calls.filter(isLevel).length, 0, 'a nested level started after the deadline');
      assert.is(calls.filter(isCount).length, 0, 'the count started after the deadline');
    }
    if (stops) assert.is(await settledRunning(em, dialect), 0, 'a statement of the request is still running');
  });

  test('each statement gets what is left of the deadline, or its statement timeout when that is shorter', async ({
    em,
  }) => {
    const engine = (statementTimeout: number, requestTimeout: number) =>
      createEngine(em, {
        policy: bookPolicy,
        allowCount: true,
        statementTimeout,
        requestTimeout,
        search: slowSearch(dialect, 0.3),
      });
    const request = { ...nested, search: stops ? 'slow' : 'fast' };
    const left = await captureLimits(() => engine(20_000, 10_000).from(books(em)).list(request));
    assert.is(left.result.items.length, 3);
    const first = await captureLimits(() => engine(5000, 60_000).from(books(em)).list(request));
    assert.is(first.result.items.length, 3);
    if (!stops) {
      // SQLite sends no time limit: the request ran its three statements within the deadline.
      assert.is(left.calls.filter((c) => isData(c) || isLevel(c) || isCount(c)).length, 3);
      return;
    }
    const [data, level, count] = left.limits;
    assert.ok(data !== undefined && level !== undefined && count !== undefined, JSON.stringify(left.calls));
    assert.ok(data <= 10_000 && data > 9500, `the data query got the request's time: ${data}`);
    // The data query ran about 300 ms: the nested level gets that much less, the count less again.
    assert.ok(level <= data - 250, `the nested level got ${level} after ${data}`);
    assert.ok(count < level, `the count got ${count} after ${level}`);
    // A statement timeout shorter than the time left is the limit itself.
    assert.equal(first.limits, [5000, 5000, 5000]);
  });

  test('ctx.requestTimeout overrides the engine setting; requestTimeout: false turns the deadline off', async ({
    em,
  }) => {
    const config = { policy: bookPolicy, allowCount: true, search: slowSearch(dialect, 0.3) };
    const request = { search: 'slow', count: 'true', limit: '2' };
    const none = createEngine(em, { ...config, requestTimeout: false });
    const short = await outcome(() => none.from(books(em)).list(request, { requestTimeout: 150 }));
    assert.ok(isListError(short) && short.code === 'query_timeout', String(short));
    const tight = createEngine(em, { ...config, requestTimeout: 150 });
    const page = await outcome(() => tight.from(books(em)).list(request, { requestTimeout: 60_000 }));
    assert.ok(!(page instanceof Error), String(page));
    const off = await outcome(() => none.from(books(em)).list(request));
    assert.ok(!(off instanceof Error), String(off));
  });

  test('ctx.requestStart: the deadline counts from when the request started, before any statement', async ({ em }) => {
    const engine = createEngine(em, { policy: bookPolicy, requestTimeout: 200 });
    const { result, calls } = await captureDriver(() =>
      outcome(() => engine.from(books(em)).list({}, { requestStart: performance.now() - 500 })),
    );
    assert.ok(isListError(result) && result.code === 'query_timeout', String(result));
    assert.is(calls.length, 0, 'a statement started after the deadline');
    const fresh = await engine.from(books(em)).list({}, { requestStart: performance.now() });
    assert.ok(fresh.items.length > 0);
  });

  test('a pages() walk gives each page its own deadline', async ({ em }) => {
    // Every page's statement is slow; the pages together run past one request's time, each page within it. The
    // time is set from one slow page measured here, so the test holds on a busy machine too.
    const config = { policy: bookPolicy, statementTimeout: 10_000, search: slowSearch(dialect, 0.3) };
    const request = { search: 'slow', limit: '1', sort: 'id' };
    // Once to warm up (connections, prepared statements), then the longer of two timed pages.
    await createEngine(em, config).from(books(em)).list(request);
    let page = 0;
    for (let i = 0; i < 2; i++) {
      const measuring = performance.now();
      await createEngine(em, config).from(books(em)).list(request);
      page = Math.max(page, performance.now() - measuring);
    }
    // PostgreSQL and MariaDB: three pages' time (each page fits, eight do not); SQLite: less than one page.
    const requestTimeout = Math.round(stops ? page * 3 : 100);
    const engine = createEngine(em, { ...config, requestTimeout });
    let pages = 0;
    const started = performance.now();
    for await (const items of engine.from(books(em)).pages(request)) {
      pages++;
      assert.ok(items.items.length > 0);
    }
    const took = performance.now() - started;
    assert.is(pages, 8, 'tenant 1 has 8 books: eight pages of one');
    assert.ok(
      took > requestTimeout,
      `the walk took ${Math.round(took)} ms, less than one deadline (${requestTimeout})`,
    );
  });

  test('a ctx.requestTimeout or requestStart that is not valid is invalid_schema, before any query', async ({ em }) => {
    const engine = createEngine(em, { policy: bookPolicy });
    const bad = [{ requestTimeout: 0 }, { requestTimeout: 1.5 }, { requestStart: Number.NaN }];
    for (const ctx of bad) {
      const { result, calls } = await captureDriver(() =>
        outcome(() => engine.from(books(em)).list({}, ctx as ListContext)),
      );
      assert.ok(isListError(result) && result.code === 'invalid_schema', `${JSON.stringify(ctx)}: ${String(result)}`);
      assert.is(calls.length, 0);
    }
    assert.throws(() => createEngine(em, { policy: bookPolicy, requestTimeout: 0 }), /requestTimeout/);
  });
});
