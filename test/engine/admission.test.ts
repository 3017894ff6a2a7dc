/**
 * Fair share under load, on real databases: every request is weighed before its first statement; a burst of
 * expensive requests takes `maxExpensive` slots, waits in a short queue or is refused with `overloaded` (503 with
 * `retryAfter`), while a cheap request never waits behind them (on PostgreSQL it answers within 1.5 s while the pool
 * is full of slow work, and waits for it without admission). Turns are given back on success, error, timeout and
 * abort, walks hold one per page, the engines of one ORM share one admission, and after all that the engine admits a
 * full set again. The expensive requests are made slow by their base scope (a large generated series counted in a
 * sub-query), never by sleeping.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { Book, ENTITIES } from '../../examples/bookstore/entities.ts';
import { bookPolicy } from '../../examples/bookstore/policies.ts';
import { seed } from '../../examples/bookstore/seed.ts';
import { admissionOf, weighedWork, weighRequest } from '../../src/engine/admission-weight.ts';
import { validateConfig } from '../../src/engine/config.ts';
import { parseRequest } from '../../src/engine/request.ts';
import { REQUEST_WORK } from '../../src/engine/request-work.ts';
import {
  type AdmissionOptions,
  createEngine,
  type EngineConfig,
  isListError,
  type ListError,
} from '../../src/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';

/** Four connections: eight slow requests without admission hold them all. */
const POOL = 4;
const EXPENSIVE = { filter: 'reviews/any(r: r/stars gt 0)', count: 'true' } as const;
const CHEAP = { limit: '20' } as const;

function books(em: EntityManager) {
  return (em.fork() as unknown as { createQueryBuilder(e: unknown, a: string): any })
    .createQueryBuilder(Book, 'b')
    .where({ tenant: 1 });
}

/**
 * A base scope whose every statement does real work first: it counts a generated series of `size` units in an
 * uncorrelated sub-query (PostgreSQL: 1.5 million rows a unit, about half a second here; MariaDB: a cross join of
 * a thousand-row sequence, some 60 ms a unit; SQLite: a million-row recursive count, which holds the event loop).
 */
function slowBooks(em: EntityManager, dialect: Dialect, size = 1) {
  const qb = books(em);
  if (dialect === 'postgresql')
    return qb.andWhere('(select count(*) from generate_series(1, cast(? as integer))) > 0', [1_500_000 * size]);
  if (dialect === 'mariadb')
    return qb.andWhere(
      `(with recursive n(x) as (select 1 union all select x + 1 from n where x < 1000)
        select count(*) from n a, n b, n c where a.x <= ? and a.x + b.x + c.x < 0) = 0`,
      [Math.max(1, Math.round(size * 3))],
    );
  return qb.andWhere(
    '(with recursive c(x) as (select 1 union all select x + 1 from c where x < ?) select count(*) from c) > 0',
    [1_000_000 * size],
  );
}

function engineOf(em: EntityManager, admission: AdmissionOptions | false, config: Partial<EngineConfig> = {}) {
  // A generous statement timeout: a loaded machine must not turn slow work into query_timeout here.
  return createEngine(em, { policy: bookPolicy, allowCount: true, statementTimeout: 60_000, admission, ...config });
}

interface Timed<T> {
  readonly ms: number;
  readonly value?: T;
  readonly error?: ListError;
}

/** Start `run` now and time it to its answer or its error. */
function timed<T>(run: () => Promise<T>): Promise<Timed<T>> {
  const started = performance.now();
  return run().then(
    (value) => ({ ms: performance.now() - started, value }),
    (error: unknown) => {
      if (!isListError(error)) throw error;
      return { ms: performance.now() - started, error };
    },
  );
}

const codes = (results: readonly Timed<unknown>[]) => results.map((r) => r.error?.code ?? 'ok');

/** The connections of this ORM's pool that are lent out (0 when every one is back; SQLite has no pool). */
async function lentConnections(em: EntityManager, dialect: Dialect): Promise<number> {
  if (dialect === 'sqlite') return 0;
  const pool = (await (em.getConnection() as any).getNativeClient()) as any;
  if (dialect === 'postgresql') return pool.totalCount - pool.idleCount;
  return pool._allConnections.length - pool._freeConnections.length;
}

/** Poll until `check` holds or three seconds pass (a cancelled statement gives its connection back a moment later). */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 30; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

eachDialect(
  'admission: fair share under load',
  { entities: ENTITIES, seed, options: { pool: { max: POOL } } },
  (test, dialect) => {
    const pg = dialect === 'postgresql';

    test('requests weigh as documented, before any statement; a plain request is weighed without binding', ({ em }) => {
      const engine = engineOf(em, {});
      // Requests whose work holds no filter: their weight in full. Statements: the page (at least 1), the count, a
      // nested level and its count; then 2 for a relation sort and 1 per 1,000 rows of offset.
      const whole: [Record<string, string>, number][] = [
        [{}, 1],
        [{ limit: '100' }, 1],
        [{ limit: '0' }, 1],
        [{ count: 'true' }, 2],
        [{ filter: "title eq 'x' and year gt 1900" }, 1],
        [{ sort: 'author/name' }, 3],
        [{ sort: 'author/name,-year', count: 'true' }, 4],
        [{ offset: '5000' }, 6],
        [{ offset: '1' }, 2],
        [{ fields: 'title,reviews(stars)' }, 2],
        [{ fields: 'title,reviews(stars)', 'reviews.count': 'true' }, 3],
      ];
      // Requests with relationship conditions: their statements, plus the sub-queries the cost budget counts (its
      // own model, priced in src/bind), plus what admission adds (written here): relation sort, offset.
      const withFilter: [Record<string, string>, statements: number, added: number][] = [
        [{ filter: "author/name eq 'x'" }, 1, 0],
        [{ filter: "author/name eq 'x'", count: 'true' }, 2, 0],
        [{ filter: 'reviews/any(r: r/stars gt 3)' }, 1, 0],
        [{ filter: "reviews/any(r: r/stars gt 3) or tags/any(t: t/name eq 'a')", count: 'true' }, 2, 0],
        [{ sort: 'author/name', filter: 'reviews/any(r: r/stars gt 3)' }, 1, 2],
        [{ offset: '3000', filter: "publisher/name eq 'x'" }, 1, 3],
      ];
      // Patterns at the root: whatever the budget charges for them, the quick path and the full one agree.
      const patterns: Record<string, string>[] = [
        { filter: "title contains 'x'" },
        { filter: "title startswith 'x' or year gt 1" },
      ];
      type Weighed = { weight: number; subqueries: number; statements: number };
      const price = (engine as unknown as Record<symbol, (q: object) => Weighed>)[REQUEST_WORK]!;
      const settings = validateConfig({ policy: bookPolicy, allowCount: true });
      const bound = bookPolicy.bind(em);
      const check = (query: Record<string, string>, weight: number) => {
        assert.is(price(query).weight, weight, JSON.stringify(query));
        const parsed = parseRequest(query, settings);
        assert.is(weighRequest(settings, bound, parsed), weight, `fast path: ${JSON.stringify(query)}`);
        assert.is(weighedWork(settings, bound, parsed).weight, weight);
      };
      for (const [query, weight] of whole) check(query, weight);
      for (const [query, statements, added] of withFilter) {
        const work = price(query);
        assert.is(work.statements, statements, JSON.stringify(query));
        assert.ok(
          // A to-one hop weighs 1, a quarter on SQLite (docs/security.md, Cost budget).
          work.subqueries >= (dialect === 'sqlite' ? 0.25 : 1),
          `a relationship condition costs a sub-query: ${JSON.stringify(query)}`,
        );
        check(query, statements + work.subqueries + added);
      }
      for (const query of patterns) check(query, 1 + price(query).subqueries);
      // A request its own checks refuse needs no turn: it gets its own error, never overloaded.
      assert.is(
        weighRequest(settings, bound, parseRequest({ filter: 'reviews/any(r: r/nope eq 1)' }, settings)),
        undefined,
      );
      assert.is(
        weighRequest(settings, bound, parseRequest({ limit: '50' }, settings), 5000),
        6,
        'a walk of 5,000 rows',
      );
    });

    test('engines of one ORM with the same settings share one admission; the defaults follow its pool', ({ em }) => {
      const one = admissionOf(engineOf(em, {}));
      assert.ok(one);
      assert.is(admissionOf(engineOf(em, {})), one);
      assert.is(admissionOf(createEngine(em, { policy: bookPolicy })), one, 'on by default, the same numbers');
      assert.is.not(admissionOf(engineOf(em, { maxExpensive: 1 })), one);
      assert.is(admissionOf(engineOf(em, false)), undefined);
      assert.equal(
        { ...one.settings },
        {
          maxExpensive: POOL / 2,
          expensiveAbove: 2,
          queue: POOL,
          queueTimeout: 2000,
          maxCheap: Number.POSITIVE_INFINITY,
          retryAfter: 2,
        },
      );
      assert.throws(
        () => engineOf(em, { queue: -1 }),
        (err: unknown) => isListError(err) && err.message === 'engine config: admission.queue must be a whole number',
      );
    });

    test('time waiting for a slot counts against the request deadline: past it, query_timeout and no statement', async ({
      em,
    }) => {
      const engine = engineOf(em, { maxExpensive: 1, queue: 1, queueTimeout: 60_000 });
      const admission = admissionOf(engine)!;
      const expensive = { filter: 'reviews/any(r: r/stars gt 3)', count: 'true' };
      const hold = await admission.enter(99);
      const { result, calls } = await captureDriver(async () => {
        const waiting = engine
          .from(books(em))
          .list(expensive, { requestTimeout: 150 })
          .catch((err: unknown) => err);
        await new Promise((resolve) => setTimeout(resolve, 400));
        hold();
        return waiting;
      });
      assert.ok(isListError(result) && result.code === 'query_timeout', String(result));
      assert.is(calls.length, 0, 'no statement ran after the deadline');
      // The same wait within the deadline runs.
      const again = await admission.enter(99);
      setTimeout(again, 100);
      const page = await engine.from(books(em)).list(expensive, { requestTimeout: 30_000 });
      assert.ok(page.items.length > 0);
    });

    test('with read replicas the defaults follow the pools reads use: the replicas’ together', async ({ db }) => {
      // The primary's pool holds 2; one replica brings its own pool of 6, the other inherits the primary's 2.
      const where = db.url ? { clientUrl: db.url } : { dbName: ':memory:' };
      const driver =
        dialect === 'sqlite'
          ? await import('@mikro-orm/sqlite')
          : dialect === 'postgresql'
            ? await import('@mikro-orm/postgresql')
            : await import('@mikro-orm/mariadb');
      const open = (prefer: boolean) =>
        driver.MikroORM.init({
          entities: [...ENTITIES],
          ...where,
          debug: false,
          pool: { min: 0, max: 2 },
          replicas: [
            { ...where, name: 'r1', pool: { min: 0, max: 6 } },
            { ...where, name: 'r2' },
          ],
          preferReadReplicas: prefer,
        } as never);
      const replicated = await open(true);
      const primaryOnly = await open(false);
      try {
        const settingsOf = (orm: { em: EntityManager }) => admissionOf(engineOf(orm.em.fork(), {}))!.settings;
        assert.equal([settingsOf(replicated).maxExpensive, settingsOf(replicated).queue], [4, 8]);
        // preferReadReplicas: false sends reads to the primary: its pool alone.
        assert.equal([settingsOf(primaryOnly).maxExpensive, settingsOf(primaryOnly).queue], [1, 2]);
      } finally {
        await replicated.close(true);
        await primaryOnly.close(true);
      }
    });

    test('a burst: maxExpensive run, the queue waits its turn, the rest is refused at once; a cheap request answers meanwhile', async ({
      em,
    }) => {
      const engine = engineOf(em, { maxExpensive: 2, queue: 2, queueTimeout: 60_000, retryAfter: 7 });
      const admission = admissionOf(engine)!;
      // On PostgreSQL slow enough (about a second a request on a quiet machine) that the timing claim below means something.
      const expensive = Array.from({ length: 8 }, () =>
        timed(() => engine.from(slowBooks(em, dialect, pg ? 3 : 1)).list(EXPENSIVE)),
      );
      // Weighed and placed before any statement: two run, two wait, four are refused.
      assert.equal(admission.stats(), { expensive: { running: 2, queued: 2 }, cheap: { running: 0, queued: 0 } });
      const cheap = await timed(() => engine.from(books(em)).list(CHEAP));
      const results = await Promise.all(expensive);
      assert.equal(codes(results), ['ok', 'ok', 'ok', 'ok', 'overloaded', 'overloaded', 'overloaded', 'overloaded']);
      assert.is(cheap.error, undefined);
      assert.ok((cheap.value?.items.length ?? 0) > 0);
      for (const refused of results.slice(4)) {
        assert.equal([refused.error!.status, refused.error!.retryAfter], [503, 7]);
        assert.equal(Object.keys(refused.error!.toJSON()), ['code', 'message'], 'retryAfter is not in the JSON');
        assert.ok(refused.ms < Math.min(...results.slice(0, 4).map((r) => r.ms)), 'refused before any slow work ended');
      }
      assert.equal(admission.stats(), { expensive: { running: 0, queued: 0 }, cheap: { running: 0, queued: 0 } });
      if (pg) {
        // The timing claim, with a wide margin: the pool is full of slow work (the first answers took this long).
        assert.ok(Math.min(...results.slice(0, 2).map((r) => r.ms)) > 500, `slow work: ${results[0]!.ms} ms`);
        assert.ok(cheap.ms < 1500, `the cheap request took ${cheap.ms.toFixed(0)} ms`);
      }
    });

    if (pg)
      test('without admission the same burst holds every pooled connection and the cheap request waits behind it', async ({
        em,
      }) => {
        // One slow statement alone, for the lower bound below.
        const alone = await timed(() => engineOf(em, false).from(slowBooks(em, dialect)).list({ limit: '1' }));
        const engine = engineOf(em, false);
        const expensive = Array.from({ length: 8 }, () =>
          timed(() => engine.from(slowBooks(em, dialect)).list(EXPENSIVE)),
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
        const cheap = await timed(() => engine.from(books(em)).list(CHEAP));
        const results = await Promise.all(expensive);
        assert.equal(codes(results), Array(8).fill('ok'));
        // All four connections run slow statements and four more wait for one ahead of it: it waits at least one.
        assert.ok(
          cheap.ms > alone.ms * 0.8,
          `cheap ${cheap.ms.toFixed(0)} ms, one slow statement ${alone.ms.toFixed(0)} ms`,
        );
      });

    test('a queued request is refused after queueTimeout; a refusal sends no statement', async ({ em }) => {
      const engine = engineOf(em, { maxExpensive: 1, queue: 1, queueTimeout: 50, retryAfter: 1 });
      const running = timed(() => engine.from(slowBooks(em, dialect)).list(EXPENSIVE));
      const queued = timed(() => engine.from(books(em)).list(EXPENSIVE));
      const { result: full, calls } = await captureDriver(() => timed(() => engine.from(books(em)).list(EXPENSIVE)));
      assert.is(full.error?.code, 'overloaded');
      assert.is(calls.length, 0, 'refused before any statement');
      const waited = await queued;
      assert.is(waited.error?.code, 'overloaded');
      assert.match(waited.error!.message, /no turn came within 50 ms: retry after 1 s/);
      assert.is((await running).error, undefined);
      assert.equal(admissionOf(engine)!.stats().expensive, { running: 0, queued: 0 });
    });

    test('walks hold a turn per page: none between pages, so a paused walk keeps nobody out', async ({ em }) => {
      const engine = engineOf(em, { maxExpensive: 1, queue: 0 });
      const admission = admissionOf(engine)!;
      const walk = engine.from(books(em)).pages({ ...EXPENSIVE, limit: '2' });
      const first = walk.next();
      assert.equal(admission.stats().expensive, { running: 1, queued: 0 }, 'the page being read holds the slot');
      const during = await timed(() => engine.from(books(em)).list(EXPENSIVE));
      assert.is(during.error?.code, 'overloaded');
      assert.ok(((await first).value as { items: unknown[] }).items.length === 2);
      assert.equal(admission.stats().expensive, { running: 0, queued: 0 }, 'paused between pages: nothing held');
      assert.is((await timed(() => engine.from(books(em)).list(EXPENSIVE))).error, undefined);
      let pages = 1;
      for await (const _ of walk) pages++;
      assert.ok(pages > 2);
      let items = 0;
      for await (const _ of engine.from(books(em)).items(EXPENSIVE, {}, { pageSize: 3 })) {
        items++;
        // On PostgreSQL and MariaDB items() reads the next page ahead: that page's query holds its own turn.
        assert.ok(admission.stats().expensive.running <= (dialect === 'sqlite' ? 0 : 1));
      }
      assert.equal(admission.stats().expensive, { running: 0, queued: 0 }, 'a finished walk holds nothing');
      assert.ok(items > 3);
    });

    test('no slot leaks: after aborts, timeouts, failures, refusals and abandoned walks it admits a full set again', async ({
      em,
    }) => {
      const options = { maxExpensive: 2, queue: 2, queueTimeout: 100 };
      const search = (_ctx: unknown, qb: any, term: string) => {
        if (term === 'boom') throw new Error('search failed');
        return qb;
      };
      const engine = engineOf(em, options, { search });
      const admission = admissionOf(engine)!;
      const abortAt = (ms: number) => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(new Error('client went away')), ms);
        return controller.signal;
      };
      // Slow enough that the aborts come while the first statement runs (SQLite: before it could start its count).
      const long = dialect === 'sqlite' ? 6 : 3;
      const outcomes = await Promise.all([
        // Two run and are aborted (the statement is stopped on PostgreSQL and MariaDB; SQLite finishes it first), well
        // after the third waiter's queueTimeout: a slot freed by an abort never races its refusal.
        timed(() => engine.from(slowBooks(em, dialect, long)).list(EXPENSIVE, { signal: abortAt(300) })),
        timed(() => engine.from(slowBooks(em, dialect, long)).list(EXPENSIVE, { signal: abortAt(350) })),
        // One waits and is aborted while it waits, one waits past queueTimeout, one finds the queue full.
        timed(() => engine.from(books(em)).list(EXPENSIVE, { signal: abortAt(20) })),
        timed(() => engine.from(books(em)).list(EXPENSIVE)),
        timed(() => engine.from(books(em)).list(EXPENSIVE)),
      ]);
      assert.equal(codes(outcomes), [
        'execution_failed',
        'execution_failed',
        'execution_failed',
        'overloaded',
        'overloaded',
      ]);
      // A statement timeout (PostgreSQL, MariaDB), a failing search callback, and walks left or failed half-way.
      const timeout = await timed(() => engine.from(slowBooks(em, dialect)).list(EXPENSIVE, { statementTimeout: 50 }));
      // SQLite cannot stop a statement: it may answer, or miss its time between statements.
      if (dialect !== 'sqlite') assert.is(timeout.error?.code, 'query_timeout');
      assert.is(
        (await timed(() => engine.from(books(em)).list({ ...EXPENSIVE, search: 'boom' }))).error?.code,
        'execution_failed',
      );
      for await (const _ of engine.from(books(em)).pages({ ...EXPENSIVE, limit: '1' })) break;
      const failing = async () => {
        for await (const _ of engine.from(books(em)).items(EXPENSIVE, {}, { pageSize: 1 })) throw new Error('consumer');
      };
      await failing().catch(() => {});
      const walk = engine.from(books(em)).pages({ ...EXPENSIVE, limit: '1' });
      await walk.next();
      await walk.return(undefined);

      assert.equal(admission.stats(), { expensive: { running: 0, queued: 0 }, cheap: { running: 0, queued: 0 } });
      assert.ok(await eventually(async () => (await lentConnections(em, dialect)) === 0), 'every connection back');
      // A full set again: maxExpensive run and the queue's worth wait, none refused.
      const again = await Promise.all(
        Array.from({ length: 4 }, () => timed(() => engine.from(books(em)).list(EXPENSIVE))),
      );
      assert.equal(codes(again), ['ok', 'ok', 'ok', 'ok']);
      assert.equal(admission.stats(), { expensive: { running: 0, queued: 0 }, cheap: { running: 0, queued: 0 } });
    });
  },
);
