/**
 * The engine's fast paths keep their promises: items are written without hydrating when the entity allows it (and
 * hydrated when it does not), a walk is checked, scoped and planned once (the search callback runs once, each page
 * is one query), memoized cursor plans are shared safely by concurrent requests and survive eviction, and the
 * caller's base scope is never changed.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type SearchCallback } from '../../src/engine/index.ts';
import { escapeLike } from '../../src/plan/like.ts';
import { ENTRIES, Entry, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

const LIVE = ENTRIES.filter((e) => !e.deleted);

function base(em: EntityManager) {
  return (em as any).createQueryBuilder(Entry, 'e');
}

/** Count em.fork() calls on one EntityManager instance (the serialization fallback forks once per page). */
function countForks(em: EntityManager): { readonly count: () => number } {
  let forks = 0;
  const fork = em.fork.bind(em);
  Object.defineProperty(em, 'fork', {
    value: (...args: Parameters<EntityManager['fork']>) => {
      forks++;
      return fork(...args);
    },
    configurable: true,
  });
  return { count: () => forks };
}

/** Sorts over two distinct sortable fields, both directions: more than the engine's plan memo holds (256). */
function manySorts(): string[] {
  const fields = ['id', 'score', 'title', 'big', 'amount', 'ratio', 'flag', 'day', 'at', 'group/name'];
  const out: string[] = [];
  for (const a of fields)
    for (const b of fields)
      if (a !== b)
        for (const [da, db] of ['++', '+-', '-+', '--'])
          out.push(`${da === '-' ? '-' : ''}${a},${db === '-' ? '-' : ''}${b}`);
  return out;
}

eachDialect('engine fast paths', { entities: walkEntities, seed: seedWalk }, (test, dialect) => {
  test('list() writes items straight from rows: no fork, no hydration (after one checked page)', async ({ em }) => {
    const forks = countForks(em);
    const engine = createEngine(em, { policy: entryPolicy, maxLimit: 10 }).from(base(em));
    // The first page is also serialized by MikroORM once, to prove the item writer agrees with it (writer-check.ts).
    assert.is((await engine.list({ limit: '10' })).items.length, 10);
    assert.is(forks.count(), 1);
    for (const sort of ['id', '-score', 'title'])
      assert.is((await engine.list({ limit: '10', sort })).items.length, 10);
    assert.is(forks.count(), 1);
  });

  test('a walk runs the search callback once and one query per page', async ({ em }) => {
    let searches = 0;
    const search: SearchCallback = (_ctx, qb, term) => {
      searches++;
      // MariaDB's LIKE follows the column's (case-insensitive) collation: compare the bytes there.
      const column = dialect === 'mariadb' ? `binary ${qb.alias}.label_text` : `${qb.alias}.label_text`;
      return qb.andWhere(`${column} like ? escape '!'`, [`%${escapeLike(term, '!')}%`]);
    };
    const engine = createEngine(em, { policy: entryPolicy, maxLimit: 10, search });
    const { result, calls } = await captureDriver(async () => {
      const ids: unknown[] = [];
      for await (const item of engine.from(base(em)).items({ search: 'a', sort: '-score' }, {}, { pageSize: 2 }))
        ids.push(item.id);
      return ids;
    });
    const expected = LIVE.filter((e) => e.label.includes('a'));
    assert.is(result.length, expected.length);
    assert.equal(new Set(result), new Set(expected.map((e) => e.id)));
    assert.is(searches, 1);
    assert.is(calls.length, Math.ceil(expected.length / 2));
    for (const call of calls) assert.not.ok(call.sql.includes("'%a%'"), 'the search term stays a bound value');
  });

  test('concurrent requests with different sorts get what sequential requests get', async ({ em }) => {
    const engine = createEngine(em, { policy: entryPolicy, maxLimit: 10 });
    const sorts = manySorts().slice(0, 40);
    const sequential: unknown[] = [];
    for (const sort of sorts) sequential.push(await engine.from(base(em)).list({ sort, limit: '5' }));
    const concurrent = await Promise.all(sorts.map((sort) => engine.from(base(em)).list({ sort, limit: '5' })));
    assert.equal(concurrent, sequential);
  });

  test('a cursor stays valid after its sort plan left the memo', async ({ em }) => {
    const engine = createEngine(em, { policy: entryPolicy, maxLimit: 10 });
    const first = await engine.from(base(em)).list({ sort: '-score', limit: '4' });
    const sorts = manySorts();
    assert.ok(sorts.length > 256, 'enough sorts to evict the memo');
    for (const sort of sorts) await engine.from(base(em)).list({ sort, limit: '1' });
    const next = await engine.from(base(em)).list({ sort: '-score', limit: '4', cursor: first.page.nextCursor! });
    const whole = await engine.from(base(em)).list({ sort: '-score', limit: '8' });
    assert.equal([...first.items, ...next.items], whole.items);
  });

  test("the caller's base scope is left as it was", async ({ em }) => {
    const qb = base(em).where({ score: { $gte: 1 } });
    const before = qb.getFormattedQuery();
    const scoped = createEngine(em, { policy: entryPolicy, maxLimit: 10, allowCount: true }).from(qb);
    await scoped.list({ filter: 'score lt 3', sort: '-at', count: 'true' });
    for await (const _ of scoped.items({ sort: 'group/name' }, {}, { pageSize: 3 })) {
      // walk to the end
    }
    assert.is(qb.getFormattedQuery(), before);
  });
});
