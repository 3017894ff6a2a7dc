/**
 * count=estimated: opt-in per endpoint (allowEstimatedCount); on PostgreSQL the planner's row estimate of base scope
 * + root filters + filter, in page.estimatedCount (page.count stays exact-only), from one bound, guarded
 * `explain (format json)` that reads no rows; on SQLite, MySQL and MariaDB a clear invalid_parameter before any query. describe() and
 * toOpenAPI advertise it only where it works.
 */
import { type EntityManager, EntitySchema } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { clientLimitWatchers } from '../../src/dialect/postgresql/execute.ts';
import { createEngine, isListError, toOpenAPI } from '../../src/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';
import { integerSeries } from '../helpers/series.ts';

class Reading {
  id!: number;
  n!: number;
  kind!: string;
  deletedAt?: Date | null;
}

const ReadingSchema = new EntitySchema<Reading>({
  class: Reading,
  tableName: 'est_reading',
  filters: { softDelete: { name: 'softDelete', cond: { deletedAt: null }, default: true } },
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    n: { type: 'integer' },
    kind: { type: 'string' },
    deletedAt: { type: 'datetime', nullable: true },
  },
});

/** 20 000 rows: n runs 0…9 999 twice, a tenth soft-deleted; big enough for the planner's statistics to mean something. */
const ROWS = 20_000;

async function seed(em: EntityManager, dialect: Dialect): Promise<void> {
  const conn = em.getConnection();
  const sqlite = dialect === 'sqlite';
  const mariadb = dialect === 'mariadb';
  const series = integerSeries(dialect, ROWS);
  const deleted = sqlite ? `case when i % 10 = 0 then 1700000000000 end` : `case when i % 10 = 0 then now() end`;
  await conn.execute(
    `insert into est_reading (id, n, kind, deleted_at) select i, i % 10000, case when i % 4 = 0 then 'a' else 'b' end, ${deleted} from (${series}) as s`,
  );
  if (!sqlite) await conn.execute(mariadb ? 'analyze table est_reading' : 'analyze est_reading');
}

const policy = schema(Reading)
  .expose('id', sortable())
  .expose('n', filterable(), sortable())
  .expose('kind', filterable('eq'));

/** Live rows matching a predicate, as an exact count would find them. */
function live(match: (i: number) => boolean): number {
  let count = 0;
  for (let i = 1; i <= ROWS; i++) if (i % 10 !== 0 && match(i)) count++;
  return count;
}

eachDialect('engine estimated count', { entities: [ReadingSchema], seed }, (test, dialect) => {
  const engine = (em: EntityManager, allow = true) =>
    createEngine(em, { policy, allowCount: true, allowEstimatedCount: allow });
  const base = (em: EntityManager) => (em as any).createQueryBuilder(Reading, 'r');

  test('count=estimated without allowEstimatedCount is invalid_parameter, before any query', async ({ em }) => {
    const { result, calls } = await captureDriver(() =>
      engine(em, false)
        .from(base(em))
        .list({ count: 'estimated' })
        .catch((e: unknown) => e),
    );
    assert.ok(isListError(result));
    assert.is(result.code, 'invalid_parameter');
    assert.is(result.parameter, 'count');
    assert.match(result.message, /estimated counts are not enabled/);
    assert.is(calls.length, 0);
  });

  test('count must be true, false or estimated', async ({ em }) => {
    const err = await engine(em)
      .from(base(em))
      .list({ count: 'estim' })
      .catch((e: unknown) => e);
    assert.ok(isListError(err));
    assert.is(err.code, 'invalid_parameter');
    assert.equal(err.position, { offset: 5, line: 1, column: 6 });
  });

  if (dialect !== 'postgresql') {
    test(`${dialect}: a clear invalid_parameter, no query, and describe() says it is unavailable`, async ({ em }) => {
      const e = engine(em);
      const { result, calls } = await captureDriver(() =>
        e
          .from(base(em))
          .list({ count: 'estimated' })
          .catch((x: unknown) => x),
      );
      assert.ok(isListError(result));
      assert.is(result.code, 'invalid_parameter');
      assert.match(
        result.message,
        dialect === 'sqlite' ? /not available on SQLite/ : /not available on MySQL or MariaDB/,
      );
      assert.is(calls.length, 0);
      assert.is(e.describe().capabilities.estimatedCount, false);
      const doc = toOpenAPI(e.describe(), { path: '/r', title: 'R', version: '1' }) as any;
      const count = doc.paths['/r'].get.parameters.find((p: any) => p.name === 'count');
      assert.equal(count.schema, { type: 'boolean' });
    });
    return;
  }

  const cases = [
    { name: 'everything in scope', filter: undefined, exact: live(() => true) },
    { name: 'a range filter', filter: 'n lt 2500', exact: live((i) => i % 10000 < 2500) },
    { name: 'an equality filter', filter: "kind eq 'a'", exact: live((i) => i % 4 === 0) },
  ];
  for (const row of cases) {
    test(`PostgreSQL: the estimate is near the exact count after ANALYZE (${row.name})`, async ({ em }) => {
      const query = row.filter === undefined ? {} : { filter: row.filter };
      const exact = await engine(em)
        .from(base(em))
        .list({ ...query, count: 'true', limit: '0' });
      assert.is(exact.page.count, row.exact);
      const { result, calls } = await captureDriver(() =>
        engine(em)
          .from(base(em))
          .list({ ...query, count: 'estimated', limit: '0' }),
      );
      const estimate = result.page.estimatedCount!;
      assert.ok(Number.isInteger(estimate), String(estimate));
      assert.ok(Math.abs(estimate - row.exact) <= row.exact * 0.15, `estimate ${estimate}, exact ${row.exact}`);
      assert.not.ok('count' in result.page, 'page.count stays exact-only');
      assert.is(calls.length, 1);
      const sql = calls[0]!.sql;
      assert.match(sql, /^explain \(format json\) select "r"\."id" from "est_reading" as "r"/);
      assert.match(sql, /"r"\."deleted_at" is null/);
      assert.not.match(sql, /order by|limit|offset|count\(/i);
      // Literals are bound, not written into the SQL text.
      assert.not.match(sql, /2500|'a'/);
    });
  }

  test('PostgreSQL: the estimate runs under the statement timeout and next to a data page', async ({ em }) => {
    // The client's timer keeps a plain statement's limit (5000 ms by default): it is in no SQL text.
    const limits: [string, number][] = [];
    const watch = (sql: string, milliseconds: number) => limits.push([sql, milliseconds]);
    clientLimitWatchers.add(watch);
    const { result, calls } = await captureDriver(
      () => engine(em).from(base(em)).list({ count: 'estimated', limit: '2', filter: 'n gte 9000' }),
      { guards: true },
    ).finally(() => clientLimitWatchers.delete(watch));
    assert.is(result.items.length, 2);
    assert.ok(result.page.estimatedCount! > 1000);
    const explain = calls.findIndex((c) => c.sql.startsWith('explain (format json)'));
    assert.ok(explain > 0);
    assert.ok(
      limits.some(([sql, ms]) => sql === calls[explain]!.sql && ms === 5000),
      JSON.stringify(limits),
    );
    assert.equal(calls[explain]!.values, [9000]);
  });

  test('PostgreSQL: an aborted request runs no estimate', async ({ em }) => {
    const controller = new AbortController();
    controller.abort();
    const { result, calls } = await captureDriver(() =>
      engine(em)
        .from(base(em))
        .list({ count: 'estimated' }, { signal: controller.signal })
        .catch((e: unknown) => e),
    );
    assert.ok(result instanceof Error);
    assert.is(calls.length, 0);
  });

  test('PostgreSQL: explain() shows the estimate statement; describe() and toOpenAPI advertise it', async ({ em }) => {
    const e = engine(em);
    const explained = await e.from(base(em)).explain({ count: 'estimated', filter: 'n lt 3' });
    assert.match(explained.count!.sql, /^explain \(format json\) select "r"\."id" from/);
    assert.equal(explained.count!.params, [3]);
    assert.is(e.describe().capabilities.estimatedCount, true);
    assert.is(engine(em, false).describe().capabilities.estimatedCount, false);
    const doc = toOpenAPI(e.describe(), { path: '/r', title: 'R', version: '1' }) as any;
    const get = doc.paths['/r'].get;
    const count = get.parameters.find((p: any) => p.name === 'count');
    assert.equal(count.schema, { type: 'string', enum: ['true', 'false', 'estimated'] });
    const page = get.responses['200'].content['application/json'].schema.properties.page;
    assert.is(page.properties.estimatedCount.type, 'integer');
  });
});
