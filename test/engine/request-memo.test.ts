/**
 * The request memo (a request whose parameters the engine has seen skips its checks, its shape and its filter's
 * compilation): whatever the memo may not assume changes between two sendings of the very same parameters here, on
 * one scope and across scopes, and every answer is compared with the same request planned afresh
 * (`compileStatements: false`), and the statements' values with what the change implies.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type EngineConfig } from '../../src/engine/index.ts';
import { Entry, entryPolicy, seedWalk, Tag, walkEntities } from '../fixtures/walk.ts';
import { captureDriver, type DriverCall } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

function base(em: EntityManager) {
  return (em as any).createQueryBuilder(Entry, 'e');
}

function engines(em: EntityManager, config: Partial<EngineConfig> = {}) {
  const settings = { policy: entryPolicy, maxLimit: 20, allowCount: true, ...config } as EngineConfig;
  return {
    hot: createEngine(em, { ...settings, compileStatements: true }),
    cold: createEngine(em, { ...settings, compileStatements: false }),
  };
}

function dataCalls(calls: readonly DriverCall[]): DriverCall[] {
  return calls.filter((c) => /walk_entry/.test(c.sql) && !/count\(/i.test(c.sql));
}

const ids = (page: { items: readonly unknown[] }) => page.items.map((item) => (item as { id: number }).id);

eachDialect('request memo', { entities: walkEntities, seed: seedWalk }, (test) => {
  test('the same parameters again: the same statement and answer as a fresh plan, values bound', async ({ em }) => {
    const { hot, cold } = engines(em);
    const query = { filter: "score gt 0 and title ne 'zz'", sort: '-score', limit: '3', count: 'true' };
    const scoped = hot.from(base(em.fork()));
    const want = await cold.from(base(em.fork())).list(query);
    const texts = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const got = await captureDriver(() => scoped.list({ ...query }));
      assert.equal(got.result, want);
      const [data] = dataCalls(got.calls);
      assert.ok(data, 'a data statement');
      texts.add(data!.sql);
      assert.ok(data!.values.includes('zz'), 'the literal is a bound parameter');
      assert.not.ok(data!.sql.includes('zz'));
    }
    assert.is(texts.size, 1);
  });

  test("one scope, the EntityManager's filter parameters changed between two sendings", async ({ em }) => {
    const { hot, cold } = engines(em);
    const query = { filter: 'id gt 0', sort: 'id', limit: '20' };
    const fork = em.fork();
    const scoped = hot.from(base(fork), { filters: { tenant: true } });
    const answers: number[][] = [];
    // Each tenant sent twice in a row and back: the memo (made at a text's second sending) is used, then refused.
    for (const tenant of [1, 1, 1, 2, 2, 1]) {
      fork.setFilterParams('tenant', { id: tenant });
      const got = await captureDriver(() => scoped.list(query));
      const other = em.fork();
      other.setFilterParams('tenant', { id: tenant });
      assert.equal(got.result, await cold.from(base(other), { filters: { tenant: true } }).list(query));
      assert.ok(
        dataCalls(got.calls)[0]?.values.some((v) => Number(v) === tenant),
        `tenant ${tenant} is bound`,
      );
      answers.push(ids(got.result));
    }
    assert.equal(answers[0], answers[5]);
    assert.not.equal(answers[2], answers[3]);
  });

  test('one scope, a filter on a related entity added between two sendings', async ({ em }) => {
    const { hot, cold } = engines(em);
    const query = { filter: "tags/any(t: t/name eq 'red')", sort: 'id' };
    const fork = em.fork();
    const scoped = hot.from(base(fork));
    for (let i = 0; i < 2; i++) await scoped.list(query);
    const before = await scoped.list(query);
    assert.equal(before, await cold.from(base(em.fork())).list(query));
    // Only the tags of entry 1 pass the new filter: entries 2, 4 and 13 lose their red tags.
    fork.addFilter({ name: 'onlyFirst', cond: { entry: 1 }, entity: Tag, default: true });
    const other = em.fork();
    other.addFilter({ name: 'onlyFirst', cond: { entry: 1 }, entity: Tag, default: true });
    const after = await scoped.list(query);
    assert.equal(after, await cold.from(base(other)).list(query));
    assert.equal(ids(after), [1]);
    assert.ok(ids(before).length > 1);
  });

  test('the same parameters under other base scopes and filter options', async ({ em }) => {
    const { hot, cold } = engines(em);
    const query = { filter: 'id gte 0', sort: '-id', limit: '20' };
    const scopes = [
      (e: ReturnType<typeof engines>['hot']) => e.from(base(em.fork()).where({ tenant: 1 })),
      (e: ReturnType<typeof engines>['hot']) => e.from(base(em.fork()).where({ tenant: 2 })),
      (e: ReturnType<typeof engines>['hot']) => e.from(base(em.fork()), { filters: { softDelete: false } }),
      (e: ReturnType<typeof engines>['hot']) => e.from(base(em.fork())),
    ];
    const answers = new Set<string>();
    for (const scope of [...scopes, ...scopes, ...scopes]) {
      const got = await scope(hot).list(query);
      assert.equal(got, await scope(cold).list(query));
      answers.add(JSON.stringify(ids(got)));
    }
    assert.is(answers.size, 4, 'each scope its own answer');
  });

  test('ctx.cursorScope is attached to each sending, not remembered', async ({ em }) => {
    const { hot } = engines(em, { cursorSecret: 'a secret of thirty-two bytes or more!!' });
    const scoped = hot.from(base(em.fork()));
    const query = { sort: 'score', limit: '3' };
    for (let i = 0; i < 2; i++) await scoped.list(query, { cursorScope: 'tenant-1' });
    const one = (await scoped.list(query, { cursorScope: 'tenant-1' })).page.nextCursor!;
    const two = (await scoped.list(query, { cursorScope: 'tenant-2' })).page.nextCursor!;
    assert.ok((await scoped.list({ ...query, cursor: two }, { cursorScope: 'tenant-2' })).items.length > 0);
    for (const [cursor, scope] of [
      [one, 'tenant-2'],
      [two, 'tenant-1'],
    ] as const) {
      try {
        await scoped.list({ ...query, cursor }, { cursorScope: scope });
        assert.unreachable('a cursor of another scope is refused');
      } catch (err) {
        assert.is((err as { code?: string }).code, 'invalid_cursor');
      }
    }
  });

  test('a refused request is refused again, the same way', async ({ em }) => {
    const { hot } = engines(em);
    const scoped = hot.from(base(em.fork()));
    for (const query of [{ filter: 'nope eq 1' }, { filter: 'score gt 1', bogus: 'x' } as never, { sort: 'secret' }]) {
      const refusals: unknown[] = [];
      for (let i = 0; i < 2; i++)
        refusals.push(
          await scoped.list(query).then(
            () => undefined,
            (e: { code?: string; message?: string }) => [e.code, e.message],
          ),
        );
      assert.ok(refusals[0], `refused: ${JSON.stringify(query)}`);
      assert.equal(refusals[1], refusals[0]);
    }
  });
});
