/**
 * Compiled statements (engine option `compileStatements`, on by default): a request whose shape the engine has seen
 * sends that shape's compiled SQL text with its own values in the parameter slots. Every answer here is compared
 * with the same request planned afresh (`compileStatements: false`) on the same data, and the statements the driver
 * receives show that the text is reused and that every value travels as a bound parameter.
 */
import type { EntityManager } from '@mikro-orm/core';
import { QueryBuilder } from '@mikro-orm/sql';
import * as assert from 'uvu/assert';
import { createEngine, type EngineConfig } from '../../src/engine/index.ts';
import { compiledPages } from '../../src/engine/page/compiled-page.ts';
import { Entry, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { captureDriver, countCalls, type DriverCall } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

function base(em: EntityManager) {
  return (em as any).createQueryBuilder(Entry, 'e');
}

type Query = Record<string, string>;

/** The same engine twice: compiling, and planning every request afresh. */
function engines(em: EntityManager, config: Partial<EngineConfig> = {}) {
  const settings = { policy: entryPolicy, maxLimit: 20, allowCount: true, ...config } as EngineConfig;
  return {
    hot: createEngine(em, { ...settings, compileStatements: true }),
    cold: createEngine(em, { ...settings, compileStatements: false }),
  };
}

/** Data statements only (not counts, not the writer check's). */
function dataCalls(calls: readonly DriverCall[]): DriverCall[] {
  return calls.filter((c) => /walk_entry/.test(c.sql) && !/count\(/i.test(c.sql));
}

/** Walk every page forward by nextCursor, then back from the last page by prevCursor; ids and cursors seen. */
async function walk(list: (q: Query) => Promise<any>, query: Query) {
  const forward: unknown[] = [];
  const cursors: string[] = [];
  let page = await list(query);
  for (let i = 0; i < 50; i++) {
    forward.push(...page.items.map((item: any) => item.id));
    if (!page.page.nextCursor) break;
    cursors.push(page.page.nextCursor);
    page = await list({ ...query, cursor: page.page.nextCursor });
  }
  const backward: unknown[] = page.items.map((item: any) => item.id);
  for (let i = 0; i < 50 && page.page.prevCursor; i++) {
    page = await list({ ...query, cursor: page.page.prevCursor });
    backward.unshift(...page.items.map((item: any) => item.id));
  }
  return { forward, backward, cursors };
}

eachDialect('compiled statements', { entities: walkEntities, seed: seedWalk }, (test) => {
  test('same shape, new values: one statement text, the answers of a fresh plan', async ({ em }) => {
    const { hot, cold } = engines(em);
    const shapes = [
      (v: number) => ({ filter: `score gt ${v} and title ne 'zz${v}'`, sort: '-score', limit: '3' }),
      (v: number) => ({ filter: `id in (${v}, ${v + 1}, ${v + 5}) or amount lt ${v}.5`, sort: 'amount,-id' }),
      (v: number) => ({ filter: `title startswith '${['a', 'b', 'c_', 'a%'][v % 4]}'`, sort: 'title', limit: '2' }),
      (v: number) => ({ filter: `day gt '2024-01-0${1 + (v % 2)}' or flag eq ${v % 2 === 0}`, sort: 'day,-at' }),
      (v: number) => ({
        filter: `at gte '2024-03-01T12:00:00.00${v}Z'`,
        sort: '-at',
        fields: 'id,title',
        offset: `${v + 1}`,
      }),
    ];
    for (const shape of shapes) {
      const texts = new Set<string>();
      for (let v = 0; v < 4; v++) {
        const query = shape(v);
        const got = await captureDriver(() => hot.from(base(em.fork())).list(query));
        const want = await cold.from(base(em.fork())).list(query);
        assert.equal(got.result, want, JSON.stringify(query));
        for (const call of dataCalls(got.calls)) texts.add(call.sql);
      }
      assert.is(texts.size, 1, `one statement text for the shape: ${[...texts].join('\n')}`);
    }
    assert.ok(compiledPages(entryPolicy.bind(em)) >= shapes.length);
  });

  test('exact counts compile too: one count text per shape, the counts of a fresh plan', async ({ em }) => {
    const { hot, cold } = engines(em);
    const texts = new Set<string>();
    for (const v of [0, 1, 2, 3, 1]) {
      const query = { filter: `score gt ${v} or tags/any(t: t/name eq 'red')`, count: 'true', limit: '2' };
      const got = await captureDriver(() => hot.from(base(em.fork())).list(query));
      assert.equal(got.result, await cold.from(base(em.fork())).list(query), JSON.stringify(query));
      const counts = got.calls.filter((c) => /count\(/i.test(c.sql));
      assert.is(counts.length, 1);
      texts.add(counts[0]!.sql);
      assert.ok(counts[0]!.values.includes('red'));
    }
    assert.is(texts.size, 1);
  });

  test("a known shape's page and count go to the connection without the builder's execute()", async ({ em }) => {
    const { hot, cold } = engines(em);
    const query = { filter: 'score gt 1', sort: '-score', limit: '2', count: 'true' };
    await hot.from(base(em.fork())).list(query);
    const executed = countCalls(QueryBuilder.prototype, 'execute');
    try {
      const got = await captureDriver(() => hot.from(base(em.fork())).list(query));
      assert.is(executed.count(), 0, 'no QueryBuilder execute() for a compiled page and count');
      assert.is(dataCalls(got.calls).length, 1);
      assert.is(got.calls.filter((c) => /count\(/i.test(c.sql)).length, 1);
      executed.reset();
      assert.equal(got.result, await cold.from(base(em.fork())).list(query));
      assert.ok(executed.count() > 0, 'a fresh plan runs its builders');
    } finally {
      executed.restore();
    }
  });

  test('every client value is a bound parameter of the compiled statement', async ({ em }) => {
    const { hot } = engines(em);
    const query = { filter: "title eq 'c_' or title contains 'a%' or score eq 987654", sort: '-score' };
    await hot.from(base(em.fork())).list(query);
    const { calls } = await captureDriver(() => hot.from(base(em.fork())).list(query));
    const data = dataCalls(calls);
    assert.is(data.length, 1);
    for (const text of ['c_', 'a%', '987654']) assert.not.ok(data[0]!.sql.includes(text), data[0]!.sql);
    assert.ok(data[0]!.values.includes('c_'));
    assert.ok(data[0]!.values.some((v) => v === 987654 || v === '987654'));
  });

  test('cursor walks both ways over nullable keys equal a fresh plan', async ({ em }) => {
    const { hot, cold } = engines(em);
    for (const sort of ['-score', 'score', 'amount,-ratio', '-flag,day', 'group/name,-id', '-group/name']) {
      const query = { sort, limit: '2' };
      const got = await walk((q) => hot.from(base(em.fork())).list(q), query);
      const want = await walk((q) => cold.from(base(em.fork())).list(q), query);
      assert.equal(got, want, sort);
      assert.equal(got.backward, got.forward, sort);
    }
  });

  test("MikroORM filter parameters are part of a statement's shape: tenants never share rows", async ({ em }) => {
    const { hot, cold } = engines(em);
    const query = { filter: 'score gte 0 or score is null', sort: 'id' };
    for (const tenant of [1, 2, 1, 2]) {
      const run = (engine: typeof hot) => {
        const fork = em.fork();
        fork.setFilterParams('tenant', { id: tenant });
        return engine.from(base(fork), { filters: { tenant: true } }).list(query);
      };
      const got = await run(hot);
      assert.equal(got, await run(cold), `tenant ${tenant}`);
      assert.ok(got.items.length > 0);
    }
  });

  test("the base scope's values are part of a statement's shape", async ({ em }) => {
    const { hot, cold } = engines(em);
    const query = { filter: 'id gt 0', sort: '-id', limit: '3' };
    const answers = [];
    for (const tenant of [1, 2, 1]) {
      const scoped = (engine: typeof hot) => engine.from(base(em.fork()).where({ tenant })).list(query);
      const got = await scoped(hot);
      assert.equal(got, await scoped(cold), `tenant ${tenant}`);
      answers.push(got.items.map((i: any) => i.id));
    }
    assert.equal(answers[0], answers[2]);
    assert.not.equal(answers[0], answers[1]);
  });

  test('relations in the filter and sort, fields and counts equal a fresh plan', async ({ em }) => {
    const { hot, cold } = engines(em);
    const queries: Query[] = [
      { filter: "group/name eq 'red'", sort: 'group/name', count: 'true' },
      { filter: "group/name eq 'blue' or tags/any(t: t/name eq 'red')", sort: '-title,id' },
      { filter: "tags/any(t: t/name in ('red', 'green'))", fields: 'id,title,group', count: 'true' },
      { filter: "not (tags/any(t: t/name eq 'blue'))", sort: 'title', limit: '4', offset: '1' },
    ];
    for (const query of queries)
      for (let i = 0; i < 2; i++)
        assert.equal(await hot.from(base(em.fork())).list(query), await cold.from(base(em.fork())).list(query));
  });

  test('a base scope that cannot be compiled (a join) is planned afresh, and answers alike', async ({ em }) => {
    const { hot, cold } = engines(em);
    const query = { filter: 'score gte 1', sort: '-score' };
    const joined = (fork: EntityManager) =>
      base(fork)
        .leftJoin('e.team', 't')
        .where({ 't.id': { $ne: null } });
    const before = compiledPages(entryPolicy.bind(em));
    for (let i = 0; i < 2; i++)
      assert.equal(await hot.from(joined(em.fork())).list(query), await cold.from(joined(em.fork())).list(query));
    assert.is(compiledPages(entryPolicy.bind(em)), before);
  });

  test('inside a transaction the compiled statement runs in it and sees its writes', async ({ em }) => {
    const { hot } = engines(em);
    const query = { filter: 'id gte 900', sort: 'id' };
    await hot.from(base(em.fork())).list(query);
    await em
      .fork()
      .transactional(async (tx) => {
        tx.create(Entry, { id: 901, label: 'tx', big: 1n, at: new Date('2024-01-01T00:00:00Z'), tenant: 1 } as never);
        await tx.flush();
        const inside = await hot.from(base(tx)).list(query);
        assert.equal(
          inside.items.map((i: any) => i.id),
          [901],
        );
        throw new Error('roll back');
      })
      .catch((err: Error) => assert.is(err.message, 'roll back'));
    assert.equal((await hot.from(base(em.fork())).list(query)).items, []);
  });

  test('past 256 shapes the cache stays bounded and every answer is still right', async ({ em }) => {
    const { hot, cold } = engines(em);
    const bound = entryPolicy.bind(em);
    for (let n = 1; n <= 300; n++) {
      const ids = Array.from({ length: 1 + (n % 15) }, (_, i) => i + 1).join(', ');
      const query = { filter: `id in (${ids})`, limit: String(1 + (Math.floor(n / 15) % 20)) };
      const got = await hot.from(base(em.fork())).list(query);
      if (n % 37 === 0 || n > 295) assert.equal(got, await cold.from(base(em.fork())).list(query), `${n} ids`);
      assert.ok(compiledPages(bound) <= 256, `${compiledPages(bound)} statements`);
    }
    assert.is(compiledPages(bound), 256);
  });
});
