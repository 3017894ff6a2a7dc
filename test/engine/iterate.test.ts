/**
 * pages() and items(): they follow nextCursor to the end with a constant page size (default maxLimit for pages(),
 * 5,000 for items(); a pageSize option is not bounded by maxLimit), never use offset, count once, and run each
 * page's query only when the consumer asks for it (backpressure).
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { schema } from '../../src/policy/index.ts';
import { ENTRIES, Entry, entryPolicy, seedWalk, Team, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { orderBy } from '../helpers/walk.ts';

const LIVE = ENTRIES.filter((e) => !e.deleted);
const BY_SCORE_DESC = orderBy(LIVE, '-score', { score: (e) => e.score, id: (e) => e.id }, ['id']).map((e) => e.id);

function scoped(em: EntityManager, maxLimit = 6) {
  return createEngine(em, { policy: entryPolicy, maxLimit, allowCount: true }).from(
    (em as any).createQueryBuilder(Entry, 'e'),
  );
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of iterable) out.push(x);
  return out;
}

async function rejection(iterable: AsyncIterable<unknown>): Promise<{ code: string; parameter?: string }> {
  try {
    await collect(iterable);
  } catch (err) {
    if (isListError(err)) return { code: err.code, ...(err.parameter ? { parameter: err.parameter } : {}) };
    throw err;
  }
  throw new Error('expected a rejection');
}

eachDialect('engine pages() and items()', { entities: walkEntities, seed: seedWalk }, (test, dialect) => {
  interface SizeRow {
    readonly name: string;
    readonly query: Record<string, string>;
    readonly pageSize?: number;
    readonly size: number;
  }
  const SIZES: readonly SizeRow[] = [
    { name: 'default page size: maxLimit', query: { sort: '-score' }, size: 6 },
    { name: 'pageSize option', query: { sort: '-score' }, pageSize: 4, size: 4 },
    { name: "the request's limit", query: { sort: '-score', limit: '3' }, size: 3 },
    { name: 'pageSize wins over limit', query: { sort: '-score', limit: '3' }, pageSize: 5, size: 5 },
    { name: 'pageSize beyond maxLimit', query: { sort: '-score' }, pageSize: 8, size: 8 },
  ];
  for (const row of SIZES) {
    test(`pages(): ${row.name}, constant, never offset`, async ({ em }) => {
      const options = row.pageSize === undefined ? {} : { pageSize: row.pageSize };
      const { result: pages, calls } = await captureDriver(() => collect(scoped(em).pages(row.query, {}, options)));
      assert.equal(
        pages.flatMap((p) => p.items.map((i) => i.id)),
        BY_SCORE_DESC,
      );
      assert.equal(
        pages.map((p) => p.page.limit),
        pages.map(() => row.size),
      );
      // limit + 1 rows tell a full last page from one with more after it: no empty page at the end.
      assert.is(pages.length, Math.ceil(LIVE.length / row.size));
      for (const call of calls) assert.not.match(call.sql, /\boffset\b/i);
    });
  }

  test('items() yields every item once, in order', async ({ em }) => {
    const items = await collect(scoped(em).items({ sort: '-score' }, undefined, { pageSize: 6 }));
    assert.equal(
      items.map((i) => i.id),
      BY_SCORE_DESC,
    );
  });

  test('items() reads 5,000 rows per query by default, beyond maxLimit', async ({ em }) => {
    const { result, calls } = await captureDriver(() => collect(scoped(em).items({ sort: '-score' })));
    assert.equal(
      result.map((i) => i.id),
      BY_SCORE_DESC,
    );
    assert.is(calls.length, 1);
    assert.ok(calls[0]!.values.includes(5001) || /limit 5001\b/.test(calls[0]!.sql), calls[0]!.sql);
  });

  test('items() reads 1,000 rows per query by default when fields opens a nested selection', async ({ em }) => {
    const policy = entryPolicy.relation('crew', schema(Team).expose('name'), { property: 'team', select: true });
    const engine = createEngine(em, { policy, maxLimit: 6 }).from((em as any).createQueryBuilder(Entry, 'e'));
    const { result, calls } = await captureDriver(() =>
      collect(engine.items({ sort: '-score', fields: 'id,crew(name)' })),
    );
    assert.equal(
      result.map((i) => i.id),
      BY_SCORE_DESC,
    );
    const page = calls.find((c) => c.sql.includes('walk_entry'))!;
    assert.ok(page.values.includes(1001) || /limit 1001\b/.test(page.sql), page.sql);
  });

  test('a walk can resume from a cursor in the query', async ({ em }) => {
    const first = await scoped(em).list({ sort: '-score', limit: '5' });
    const rest = await collect(scoped(em).items({ sort: '-score', cursor: first.page.nextCursor! }));
    assert.equal(
      rest.map((i) => i.id),
      BY_SCORE_DESC.slice(5),
    );
  });

  test('count=true is counted once, on the first page', async ({ em }) => {
    const pages = await collect(scoped(em).pages({ count: 'true' }));
    assert.equal(
      pages.map((p) => p.page.count),
      [LIVE.length, ...pages.slice(1).map(() => undefined)],
    );
  });

  test('backpressure: a page runs its query only when asked for (items(): at most one page ahead)', async ({ em }) => {
    const { result, calls } = await captureDriver(async () => {
      const ids: unknown[] = [];
      for await (const item of scoped(em).items({ sort: '-score' }, {}, { pageSize: 2 })) {
        ids.push(item.id);
        if (ids.length === 3) break;
      }
      return ids;
    });
    assert.equal(result, BY_SCORE_DESC.slice(0, 3));
    // On PostgreSQL and MariaDB items() asks for the next page as soon as a page arrives.
    assert.is(calls.length, dialect === 'sqlite' ? 2 : 3);
    const paged = await captureDriver(async () => {
      let n = 0;
      for await (const _ of scoped(em).pages({ sort: '-score' }, {}, { pageSize: 2 })) if (++n === 2) break;
    });
    assert.is(paged.calls.length, 2);
  });

  test('refusals: an offset, a pageSize over 10,000 or not a whole number, a client limit over maxLimit', async ({
    em,
  }) => {
    assert.equal(await rejection(scoped(em).pages({ offset: '2' })), {
      code: 'invalid_parameter',
      parameter: 'offset',
    });
    assert.equal(await rejection(scoped(em).items({}, {}, { pageSize: 10_001 })), { code: 'invalid_schema' });
    assert.equal(await rejection(scoped(em).items({}, {}, { pageSize: 2.5 })), { code: 'invalid_schema' });
    assert.equal(await rejection(scoped(em).items({}, {}, { pageSize: 0 })), { code: 'invalid_schema' });
    assert.equal(await rejection(scoped(em).pages({ limit: '7' })), { code: 'limit_exceeded', parameter: 'limit' });
    assert.equal(await rejection(scoped(em).items({ limit: '7' }, {}, { pageSize: 50 })), {
      code: 'limit_exceeded',
      parameter: 'limit',
    });
  });
});
