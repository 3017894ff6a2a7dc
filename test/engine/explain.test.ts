/**
 * explain(): the data and count statements list() would send, after the same checks, with nothing run. Run by
 * hand through the driver, the explained statements give exactly list()'s rows and count.
 */
import type { EntityManager } from '@mikro-orm/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { Entry, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { type DialectContext, eachDialect } from '../helpers/db.ts';
import { explainPlan } from '../helpers/explain.ts';

function scoped(em: EntityManager) {
  return createEngine(em, { policy: entryPolicy, allowCount: true, maxLimit: 50 }).from(
    (em as any).createQueryBuilder(Entry, 'e'),
  );
}

/**
 * Run an explained statement straight through the driver, as the database would receive it: its text and its
 * values as bound parameters (on MariaDB, a server-side prepared statement, as the engine sends it).
 */
async function run(ctx: DialectContext, sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]> {
  if (ctx.db.dialect === 'mariadb') {
    const connection = await mysql.createConnection({ uri: ctx.db.url!, supportBigNumbers: true, dateStrings: true });
    try {
      const [rows] = await connection.execute(sql, [...params] as never);
      return rows as Record<string, unknown>[];
    } finally {
      await connection.end();
    }
  }
  if (ctx.db.dialect === 'postgresql') {
    const client = new pg.Client({ connectionString: ctx.db.url });
    await client.connect();
    try {
      return (await client.query(sql, [...params])).rows;
    } finally {
      await client.end();
    }
  }
  return (await ctx.em.getConnection().execute(sql, [...params])) as Record<string, unknown>[];
}

const QUERIES: readonly Record<string, string>[] = [
  { filter: "title eq 'b' or score gt 1", sort: '-score', limit: '4', count: 'true' },
  { filter: "tags/any(t: t/name eq 'red')", sort: 'title,-id', limit: '3' },
  { filter: "group/name ne 'Alpha'", sort: 'group/name,-amount', limit: '5', count: 'true' },
];

eachDialect('engine explain()', { entities: walkEntities, seed: seedWalk }, (test, dialect) => {
  for (const query of QUERIES) {
    test(`explain(${JSON.stringify(query)}) runs nothing and gives list()'s rows and count`, async (ctx) => {
      const { result: explained, calls } = await captureDriver(() => scoped(ctx.em).explain(query));
      assert.is(calls.length, 0);
      const page = await scoped(ctx.em).list(query);
      const data = explained.data!;
      assert.match(data.sql, dialect === 'postgresql' ? /\$1\b/ : /\?/);
      const rows = await run(ctx, data.sql, data.params);
      // limit + 1 rows: the page and the one that tells hasMore.
      assert.is(rows.length, page.items.length + (page.page.hasMore ? 1 : 0));
      const idColumn = 'entry_id';
      assert.equal(
        rows.slice(0, page.items.length).map((r) => Number(r[idColumn])),
        page.items.map((i) => i.id),
      );
      if (query.count === 'true') {
        const [counted] = await run(ctx, explained.count!.sql, explained.count!.params);
        assert.is(Number(Object.values(counted!)[0]), page.page.count);
      } else assert.is(explained.count, undefined);
    });
  }

  test('a cursor continues in the explained SQL, with its values bound', async (ctx) => {
    const first = await scoped(ctx.em).list({ sort: '-score', limit: '4' });
    const query = { sort: '-score', limit: '4', cursor: first.page.nextCursor! };
    const explained = await scoped(ctx.em).explain(query);
    const second = await scoped(ctx.em).list(query);
    const rows = await run(ctx, explained.data!.sql, explained.data!.params);
    assert.equal(
      rows.slice(0, 4).map((r) => Number(r.entry_id)),
      second.items.map((i) => i.id),
    );
  });

  test('the database plans the explained statements as they are: its own EXPLAIN runs on them', async (ctx) => {
    for (const query of QUERIES) {
      const explained = await scoped(ctx.em).explain(query);
      for (const statement of [explained.data!, explained.count].filter((s) => s !== undefined)) {
        const plan = await explainPlan(ctx.db, statement.sql, statement.params);
        // A plan names the table it reads: walk_entry, or its alias `e` (MariaDB names the alias).
        assert.match(
          plan,
          dialect === 'mariadb' ? /(^|\s)e (ALL|range|ref|eq_ref|index|const) /m : /walk_entry|\be\b/,
          `${statement.sql}: ${plan}`,
        );
      }
    }
  });

  test('count=estimated: the EXPLAIN that estimates on PostgreSQL; a ListError elsewhere, before any query', async (ctx) => {
    const engine = createEngine(ctx.em, { policy: entryPolicy, allowEstimatedCount: true }).from(
      (ctx.em as any).createQueryBuilder(Entry, 'e'),
    );
    const { result, calls } = await captureDriver(async () => {
      try {
        return await engine.explain({ count: 'estimated', limit: '2' });
      } catch (err) {
        return err;
      }
    });
    assert.is(calls.length, 0);
    if (dialect === 'postgresql') {
      assert.not.ok(isListError(result));
      assert.match((result as { count: { sql: string } }).count.sql, /^explain \(format json\) select/);
      return;
    }
    assert.ok(isListError(result), String(result));
    assert.is(result.code, 'invalid_parameter');
    assert.is(result.parameter, 'count');
  });

  test('limit=0 explains only the count; bad input is the same ListError as list(), and runs nothing', async (ctx) => {
    const explained = await scoped(ctx.em).explain({ limit: '0', count: 'true' });
    assert.is(explained.data, undefined);
    assert.ok(explained.count);
    const { result, calls } = await captureDriver(async () => {
      try {
        await scoped(ctx.em).explain({ filter: 'nope eq 1' });
      } catch (err) {
        return err;
      }
      return undefined;
    });
    assert.ok(isListError(result));
    assert.is(result.code, 'unknown_field');
    assert.is(calls.length, 0);
  });
});
