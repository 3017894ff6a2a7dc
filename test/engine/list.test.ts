/**
 * list() beyond cursors: limit and offset bounds, limit=0, the page shape, items serialized as MikroORM serializes
 * the entity (public names, hidden fields and key columns never present, only what the base scope selects), root
 * MikroORM filters, base scopes that join to-many or select distinct, and cancellation through ctx.signal.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type ScopedEngine } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { ENTRIES, Entry, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { walk } from '../helpers/walk.ts';

const LIVE = ENTRIES.filter((e) => !e.deleted);
const ids = (items: readonly Record<string, unknown>[]) => items.map((i) => i.id as number);

function base(em: EntityManager) {
  return (em as any).createQueryBuilder(Entry, 'e');
}

function scoped(em: EntityManager, config: Record<string, unknown> = {}): ScopedEngine {
  return createEngine(em, { policy: entryPolicy, maxLimit: 10, maxOffset: 30, ...config }).from(base(em));
}

async function failure(run: () => Promise<unknown>): Promise<{ code?: string; parameter?: string; queries: number }> {
  const { result, calls } = await captureDriver(() =>
    run().then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  if (!isListError(result)) throw new Error(`expected a ListError, got ${String(result)}`);
  return { code: result.code, ...(result.parameter ? { parameter: result.parameter } : {}), queries: calls.length };
}

interface BoundRow {
  readonly name: string;
  readonly query: Record<string, string>;
  /** Expected ids, or the error code and parameter. */
  readonly ids?: readonly number[];
  readonly error?: readonly [string, string];
}

const BOUNDS: readonly BoundRow[] = [
  { name: 'no limit: defaultLimit (20 → capped to maxLimit 10)', query: {}, ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
  { name: 'limit = maxLimit', query: { limit: '10', offset: '10' }, ids: [12, 13, 14, 15, 17, 18, 19, 20, 21, 22] },
  { name: 'limit over maxLimit', query: { limit: '11' }, error: ['limit_exceeded', 'limit'] },
  { name: 'offset = maxOffset: an empty page', query: { offset: '30' }, ids: [] },
  { name: 'offset over maxOffset', query: { offset: '31' }, error: ['limit_exceeded', 'offset'] },
  { name: 'offset past the end', query: { offset: '25', limit: '3' }, ids: [] },
  { name: 'a negative limit', query: { limit: '-1' }, error: ['invalid_parameter', 'limit'] },
  { name: 'a limit with a leading zero', query: { limit: '05' }, error: ['invalid_parameter', 'limit'] },
  { name: 'count without allowCount', query: { count: 'true' }, error: ['invalid_parameter', 'count'] },
  { name: 'search without a callback', query: { search: 'x' }, error: ['invalid_parameter', 'search'] },
  { name: 'an unknown sort field', query: { sort: 'secret' }, error: ['unknown_field', 'sort'] },
  { name: 'a filter on a hidden field', query: { filter: 'tenant eq 1' }, error: ['unknown_field', 'filter'] },
];

eachDialect('engine list', { entities: walkEntities, seed: seedWalk }, (test, dialect) => {
  for (const row of BOUNDS) {
    test(`bounds: ${row.name}`, async ({ em }) => {
      if (row.error) {
        const err = await failure(() => scoped(em, { defaultLimit: 10 }).list(row.query));
        assert.equal([err.code, err.parameter], [...row.error]);
        assert.is(err.queries, 0);
        return;
      }
      const page = await scoped(em).list(row.query);
      assert.equal(ids(page.items), [...(row.ids ?? [])]);
      assert.is(page.page.offset, Number(row.query.offset ?? 0));
    });
  }

  test('limit=0 runs no data query; with count=true, only the count', async ({ em }) => {
    const engine = scoped(em, { allowCount: true });
    const none = await captureDriver(() => engine.list({ limit: '0' }));
    assert.equal(none.result, { items: [], page: { limit: 0, offset: 0, hasMore: false } });
    assert.is(none.calls.length, 0);
    const counted = await captureDriver(() => engine.list({ limit: '0', count: 'true' }));
    assert.equal(counted.result, { items: [], page: { limit: 0, offset: 0, hasMore: false, count: LIVE.length } });
    assert.is(counted.calls.length, 1);
    assert.match(counted.calls[0]!.sql, /count\(/);
  });

  test('one data query per page, and the page shape', async ({ em }) => {
    const { result, calls } = await captureDriver(() => scoped(em).list({ sort: '-id', limit: '2' }));
    assert.is(calls.length, 1);
    assert.equal(Object.keys(result), ['items', 'page']);
    assert.equal(Object.keys(result.page), ['limit', 'offset', 'hasMore', 'nextCursor']);
    assert.equal(ids(result.items), [22, 21]);
    const last = await scoped(em).list({ sort: 'id', offset: '18', limit: '5' });
    const { prevCursor, ...facts } = last.page;
    assert.equal(facts, { limit: 5, offset: 18, hasMore: false });
    assert.type(prevCursor, 'string', 'a page after an offset pages back from its first item');
  });

  test('items: public names, no hidden fields, no key columns, values as MikroORM serializes them', async ({ em }) => {
    const page = await scoped(em).list({ filter: 'id eq 4', sort: 'at,-big,amount' });
    const item = page.items[0]!;
    assert.equal(item, {
      id: 4,
      score: 3,
      title: 'a',
      big: '5',
      amount: '-3.25',
      ratio: 1e-7,
      flag: true,
      day: '2024-01-02',
      // serialize() keeps Date objects; JSON.stringify writes them as ISO strings.
      at: new Date('2024-03-01T12:00:00.000Z'),
      deletedAt: null,
      team: 3,
    });
    const all = await walk(scoped(em), { sort: 'at,-big,amount' }, [7]);
    for (const i of all.items) {
      const keys = Object.keys(i);
      assert.not.ok(keys.includes('secret') || keys.includes('tenant') || keys.includes('label'), keys.join());
      assert.not.ok(
        keys.some((k) => k.startsWith('lq')),
        keys.join(),
      );
    }
  });

  test("items hold only what the base scope selects, and stay out of the caller's identity map", async ({ em }) => {
    const engine = createEngine(em, { policy: entryPolicy });
    const page = await engine.from(base(em).select(['id', 'label'])).list({ sort: '-at', limit: '3' });
    assert.equal(page.items, [
      { id: 14, title: 'b\\' },
      { id: 21, title: 'a' },
      // .001500 keeps its microseconds on PostgreSQL and MariaDB; SQLite stores .001, level with ids 5, 17 and 18.
      dialect === 'sqlite' ? { id: 5, title: 'b' } : { id: 8, title: 'c_' },
    ]);
    assert.is(em.getUnitOfWork().getIdentityMap().values().length, 0);
  });

  test('root filters: soft-deleted rows stay out unless the scope turns the filter off', async ({ em }) => {
    const engine = createEngine(em, { policy: entryPolicy, allowCount: true });
    const rows: [Record<string, unknown> | undefined, number[]][] = [
      [undefined, LIVE.map((e) => e.id)],
      [{ filters: { softDelete: false } }, ENTRIES.map((e) => e.id)],
      [{ filters: false }, ENTRIES.map((e) => e.id)],
      [{ filters: { tenant: { id: 2 } } }, LIVE.filter((e) => e.tenant === 2).map((e) => e.id)],
    ];
    for (const [options, expected] of rows) {
      const page = await engine.from(base(em), options).list({ limit: '30', count: 'true' });
      assert.equal(ids(page.items), expected, JSON.stringify(options));
      assert.is(page.page.count, expected.length);
    }
  });

  test('a base scope that joins to-many yields each root row once, in order, on every page', async ({ em }) => {
    const engine = createEngine(em, { policy: entryPolicy, allowCount: true });
    const tagged = () =>
      base(em)
        .leftJoin('e.tags', 't')
        .where({ 't.name': { $in: ['red', 'blue'] } });
    const distinct = () =>
      base(em)
        .select(['id', 'label'], true)
        .leftJoin('e.tags', 't')
        .where({ 't.name': { $in: ['red', 'blue'] } });
    for (const [name, make] of [
      ['join', tagged],
      ['join + distinct', distinct],
    ] as const) {
      for (const [sort, expected] of [
        ['-score', [1, 4, 6, 2, 13]],
        ['at', dialect === 'sqlite' ? [6, 1, 2, 4, 13] : [6, 1, 13, 2, 4]],
      ] as const) {
        const result = await walk(engine.from(make()), { sort, count: 'true' }, [2]);
        assert.equal(ids(result.items), [...expected], `${name}, sort ${sort}`);
        assert.equal(
          result.pages.map((p) => p.page.count),
          result.pages.map(() => 5),
        );
      }
    }
  });

  test('from() keeps a private copy: changing the caller’s builder later changes nothing', async ({ em }) => {
    const qb = base(em).where({ tenant: 2 });
    const scope = createEngine(em, { policy: entryPolicy }).from(qb);
    qb.andWhere({ score: 3 });
    const page = await scope.list({ limit: '30' });
    assert.equal(
      ids(page.items),
      LIVE.filter((e) => e.tenant === 2).map((e) => e.id),
    );
  });

  test('a base scope aliased like a generated alias (lq1, lq2) lists, counts and walks as any other', async ({
    em,
  }) => {
    // The budget is not what this test is about: room for a filter, a count and a sort through a relation together.
    const engine = createEngine(em, { policy: entryPolicy, allowCount: true, limits: { maxSubqueries: 16 } });
    // A relation filter and a nullable to-one sort key: sub-query, sort join and (PostgreSQL) UNION ALL pages.
    const query = { filter: "tags/any(t: t/name eq 'red') or group/name ne 'x'", sort: '-group/name,score' };
    const expected = await walk(engine.from(base(em)), { ...query, count: 'true' }, [3]);
    assert.ok(expected.items.length > 3);
    for (const make of [
      () => (em as any).createQueryBuilder(Entry, 'lq1'),
      () => (em as any).createQueryBuilder(Entry, 'lq2').leftJoin('lq2.team', 'lq1'),
    ]) {
      const got = await walk(engine.from(make()), { ...query, count: 'true' }, [3]);
      assert.equal(ids(got.items), ids(expected.items));
      assert.equal(
        got.pages.map((p) => p.page.count),
        expected.pages.map((p) => p.page.count),
      );
    }
  });

  test('a non-finite float key fails clearly instead of yielding a broken cursor', async ({ em }) => {
    // Both sort above every number, so `-ratio` puts id 9 first (SQLite has no NaN: it stores NULL).
    const values = dialect === 'postgresql' ? ["'NaN'::float8", "'Infinity'::float8"] : ['9e999'];
    const connection = em.getConnection();
    if (dialect === 'mariadb') {
      // A DOUBLE column cannot hold a non-finite value there: the server refuses it, so no such key can exist.
      const refused = await connection
        .execute(`update walk_entry set ratio_value = ${values[0]} where entry_id = 9`)
        .then(
          () => undefined,
          (err: Error) => err,
        );
      assert.ok(refused instanceof Error && /9e999/.test(refused.message), String(refused));
      return;
    }
    try {
      for (const value of values) {
        await connection.execute(`update walk_entry set ratio_value = ${value} where entry_id = 9`);
        // Only id 9 on the page, with more after it: its key must go into the cursor.
        const err = await failure(() => scoped(em).list({ sort: '-ratio', filter: 'id eq 9 or id eq 1', limit: '1' }));
        assert.equal([err.code, err.queries], ['execution_failed', 1], value);
        const whole = await scoped(em).list({ sort: '-ratio', filter: 'id eq 9 or id eq 1', limit: '2' });
        assert.is(whole.items.length, 2, 'a page that needs no cursor still works');
      }
    } finally {
      await connection.execute('update walk_entry set ratio_value = 1e-7 where entry_id = 9');
    }
  });

  test('an aborted signal rejects before any query', async ({ em }) => {
    const controller = new AbortController();
    controller.abort(new Error('client went away'));
    const err = await failure(() => scoped(em).list({}, { signal: controller.signal }));
    assert.equal([err.code, err.queries], ['execution_failed', 0]);
  });

  test('aborting while the search runs stops the list before its query', async ({ em }) => {
    const controller = new AbortController();
    const engine = createEngine(em, {
      policy: entryPolicy,
      search: async (_ctx, qb) => {
        controller.abort();
        return qb;
      },
    }).from(base(em));
    const err = await failure(() => engine.list({ search: 'x' }, { signal: controller.signal }));
    assert.equal([err.code, err.queries], ['execution_failed', 0]);
  });

  if (dialect === 'postgresql') {
    // SQLite runs a statement synchronously: a signal can only act between its queries (rows above).
    test('aborting a running query cancels it on the server', async ({ em }) => {
      const controller = new AbortController();
      const engine = createEngine(em, {
        policy: entryPolicy,
        search: (_ctx, qb) => qb.andWhere('(select true from pg_sleep(?))', [5]),
      }).from(base(em));
      const started = Date.now();
      setTimeout(() => controller.abort(), 100);
      const err = await failure(() => engine.list({ search: 'slow' }, { signal: controller.signal }));
      assert.is(err.code, 'execution_failed');
      assert.ok(Date.now() - started < 3000, 'the query ran to its end');
    });
  }
});
