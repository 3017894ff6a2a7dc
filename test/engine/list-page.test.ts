/**
 * A page and its exact count: on PostgreSQL and MariaDB the count of a cheap request runs beside the page (two
 * statements at once, so the request takes about the longer one), and the answer is the one the page-then-count
 * order gives (inside a transaction, and on SQLite, the count still follows the page). A request whose filter
 * reaches a relation keeps the page-then-count order everywhere.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { type EdgesPage, LIST_EDGES } from '../../src/engine/page/edges.ts';
import { ENTRIES, Entry, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';

const plain = (em: EntityManager) => (em as any).createQueryBuilder(Entry, 'e');

/** The base scope, each of whose statements sleeps about `seconds` on the server (PostgreSQL, MariaDB); plain on SQLite. */
function sleeping(em: EntityManager, dialect: Dialect, seconds: number) {
  if (dialect === 'postgresql') return plain(em).andWhere('(select true from pg_sleep(?))', [seconds]);
  // MariaDB sleeps once per row it tests: spread the time over the table's rows.
  if (dialect === 'mariadb') return plain(em).andWhere('sleep(?) = 0', [seconds / ENTRIES.length]);
  return plain(em);
}

const REQUESTS: readonly Record<string, string>[] = [
  { count: 'true' },
  { count: 'true', filter: 'score gt 1', sort: '-score', limit: '3' },
  { count: 'true', sort: 'at', limit: '2', offset: '3' },
  { count: 'true', filter: "tags/any(t: t/name eq 'red')", limit: '2' },
  { count: 'true', limit: '0' },
];

const SLEEP = 0.4;

eachDialect('list page and count', { entities: walkEntities, seed: seedWalk }, (test, dialect) => {
  const engine = (em: EntityManager) => createEngine(em, { policy: entryPolicy, allowCount: true, maxLimit: 50 });

  for (const query of REQUESTS) {
    test(`the same page and count beside each other as one after the other: ${JSON.stringify(query)}`, async ({
      em,
    }) => {
      const beside = await engine(em).from(plain(em)).list(query);
      // In a transaction the count follows the page on one connection: the order before the count ran beside it.
      const after = await em.transactional((tx) => engine(tx).from(plain(tx)).list(query));
      assert.equal(beside, after);
      const cursor = beside.page.nextCursor;
      if (cursor === undefined) return;
      const next = { ...query, cursor };
      delete (next as { offset?: string }).offset;
      const nextBeside = await engine(em).from(plain(em)).list(next);
      const nextAfter = await em.transactional((tx) => engine(tx).from(plain(tx)).list(next));
      assert.equal(nextBeside, nextAfter);
      assert.is(nextBeside.page.count, beside.page.count);
    });
  }

  // GraphQL's root fields pass a direction: a request without nested lists is then remembered as REST's is (the
  // same text again skips its checks); the answer is the one of a request passed no direction, every time.
  test('edges pages with and without a direction agree, the first time and again', async ({ em }) => {
    const edges = (options: object) =>
      (
        engine(em).from(plain(em)) as unknown as {
          [LIST_EDGES](q: object, ctx?: object, o?: object): Promise<EdgesPage>;
        }
      )[LIST_EDGES]({ count: 'true', filter: 'score gt 0', sort: '-score', limit: '3' }, {}, options);
    const plainPage = await edges({});
    for (let run = 0; run < 3; run++) {
      assert.equal(await edges({ backward: false }), plainPage);
      assert.equal(await edges({ backward: false, backwardLists: [] }), plainPage);
    }
  });

  test('one data statement and one count statement either way', async ({ em }) => {
    const { result, calls } = await captureDriver(() => engine(em).from(plain(em)).list({ count: 'true', limit: '2' }));
    const counts = calls.filter((c) => /select count\(/i.test(c.sql));
    const data = calls.filter((c) => /from [`"]walk_entry[`"]/i.test(c.sql) && !/select count\(/i.test(c.sql));
    assert.is(counts.length, 1);
    assert.is(data.length, 1);
    assert.is(result.items.length, 2);
    assert.ok((result.page.count ?? 0) > 2);
  });

  test('the request takes about the longer statement beside, the sum in a transaction', async ({ em }) => {
    if (dialect === 'sqlite') {
      // One connection: nothing runs beside; the answer is the same as in a transaction.
      const query = { count: 'true', limit: '2' };
      assert.equal(
        await engine(em).from(plain(em)).list(query),
        await em.transactional((tx) => engine(tx).from(plain(tx)).list(query)),
      );
      return;
    }
    // Sorted by a column no index orders: the page tests every row, as the count does.
    const query = { count: 'true', limit: '2', sort: 'title' };
    const t0 = performance.now();
    const beside = await engine(em)
      .from(sleeping(em, dialect, SLEEP))
      .list(query);
    const besideMs = performance.now() - t0;
    const t1 = performance.now();
    const after = await em.transactional((tx) =>
      engine(tx)
        .from(sleeping(tx, dialect, SLEEP))
        .list(query),
    );
    const afterMs = performance.now() - t1;
    assert.equal(beside, after);
    if (dialect === 'postgresql') assert.ok(afterMs >= 2 * SLEEP * 1000 - 20, `in a transaction: ${afterMs} ms`);
    assert.ok(besideMs < 0.8 * afterMs, `beside: ${besideMs} ms, in a transaction: ${afterMs} ms`);
    // A filter through a relation keeps the count after the page (its weight may make it an expensive request).
    const t2 = performance.now();
    await engine(em)
      .from(sleeping(em, dialect, SLEEP))
      .list({ ...query, filter: "tags/any(t: t/name eq 'red')" });
    const relationMs = performance.now() - t2;
    assert.ok(relationMs > 0.8 * afterMs, `through a relation: ${relationMs} ms, in a transaction: ${afterMs} ms`);
  });
});
