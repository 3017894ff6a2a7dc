/**
 * count=estimated never reports fewer rows than the page it comes with proves: offset + items, one more with
 * hasMore. On PostgreSQL statistics taken before the rows changed make the planner estimate 1 row for a filter
 * that matches 500; SQLite and MariaDB keep refusing count=estimated before any query.
 */
import { type EntityManager, EntitySchema } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import * as assert from 'uvu/assert';
import { createEngine, isListError } from '../../src/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';
import { integerSeries } from '../helpers/series.ts';

class Sample {
  id!: number;
  kind!: number;
}

const SampleSchema = new EntitySchema<Sample>({
  class: Sample,
  tableName: 'floor_sample',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    kind: { type: 'integer' },
  },
});

const ROWS = 2000;
const STALE = 500;

/** Analyze while every kind is distinct, then make 500 rows kind 7 with autovacuum off: the statistics go stale. */
async function seed(em: EntityManager, dialect: Dialect): Promise<void> {
  const conn = em.getConnection();
  const series = integerSeries(dialect, ROWS);
  await conn.execute(`insert into floor_sample (id, kind) select i, i + 1000 from (${series}) as s`);
  if (dialect !== 'postgresql') return;
  await conn.execute('alter table floor_sample set (autovacuum_enabled = false)');
  await conn.execute('analyze floor_sample');
  await conn.execute(`update floor_sample set kind = 7 where id <= ${STALE}`);
}

const policy = schema(Sample).expose('id', sortable()).expose('kind', filterable('eq'));

/** The tests' EntityManager is a SQL one: its QueryBuilder is the engine's base scope. */
const sql = (em: EntityManager) => em as SqlEntityManager;

eachDialect('estimated count floor', { entities: [SampleSchema], seed }, (test, dialect) => {
  const scoped = (em: EntityManager) =>
    createEngine(em, { policy, allowEstimatedCount: true, maxOffset: 1000 }).from(
      sql(em).createQueryBuilder(Sample, 's'),
    );

  if (dialect !== 'postgresql') {
    test('count=estimated is still refused before any query', async ({ em }) => {
      const { result, calls } = await captureDriver(() =>
        scoped(em)
          .list({ count: 'estimated', filter: 'kind eq 7' })
          .catch((e: unknown) => e),
      );
      assert.ok(isListError(result));
      assert.is(result.code, 'invalid_parameter');
      assert.is(calls.length, 0);
    });
    return;
  }

  test('the planner underestimates here: the raw estimate is far below the rows', async ({ em }) => {
    const plan = await em
      .getConnection()
      .execute<{ 'QUERY PLAN': unknown }[]>('explain (format json) select id from floor_sample where kind = 7');
    const rows = (plan[0]!['QUERY PLAN'] as [{ Plan: { 'Plan Rows': number } }])[0].Plan['Plan Rows'];
    assert.ok(rows < 10, `the fixture needs a stale estimate, got ${rows}`);
  });

  test('an offset page: estimatedCount is at least offset + items, + 1 with hasMore', async ({ em }) => {
    const page = await scoped(em).list({
      count: 'estimated',
      filter: 'kind eq 7',
      sort: 'id',
      offset: '100',
      limit: '10',
    });
    assert.is(page.items.length, 10);
    assert.ok(page.page.hasMore);
    assert.is(page.page.estimatedCount, 111);
    const last = await scoped(em).list({ count: 'estimated', filter: 'kind eq 7', offset: '495', limit: '10' });
    assert.is(last.items.length, 5);
    assert.not.ok(last.page.hasMore);
    assert.is(last.page.estimatedCount, 500);
  });

  test('a cursor page and the first page of a walk', async ({ em }) => {
    const first = await scoped(em).list({ count: 'estimated', filter: 'kind eq 7', limit: '50' });
    assert.is(first.page.estimatedCount, 51);
    const next = await scoped(em).list({
      count: 'estimated',
      filter: 'kind eq 7',
      limit: '50',
      cursor: first.page.nextCursor!,
    });
    assert.is(next.page.estimatedCount, 51);
    const walk = await scoped(em).pages({ count: 'estimated', filter: 'kind eq 7' }, {}, { pageSize: 20 }).next();
    assert.is(walk.done, false);
    assert.is(walk.value?.page.estimatedCount, 21);
  });

  test('an estimate above what the page proves is left as the planner gave it', async ({ em }) => {
    const page = await scoped(em).list({ count: 'estimated', limit: '1' });
    assert.ok(page.page.estimatedCount! > 1000, String(page.page.estimatedCount));
  });
});
