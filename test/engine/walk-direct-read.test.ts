/**
 * A walk's pages and what list() gives for the same rows, on every dialect, over a table with a column of every type
 * the test models use (integers of each width, text, bigints, decimals, floats, booleans, dates, times, date-times
 * with microseconds, JSON, UUIDs, blobs; NULLs in each): items() and pages() give, value for value, type for type and
 * key for key, what list() gives following its cursors. On PostgreSQL a walk's pages are read past pg's Query
 * (dialect/postgresql/walk-read.ts) while list() reads through it: the test checks that each side took its path, and
 * that the rows of the direct read equal pg's own, for every type PostgreSQL's type parsers know (arrays, intervals,
 * bytea, zoned timestamps, money…), duplicate column names and errors included.
 */
import { isDeepStrictEqual } from 'node:util';
import { type EntityManager, EntitySchema } from '@mikro-orm/core';
import { CompiledQuery, type Kysely } from 'kysely';
import * as assert from 'uvu/assert';
import { Book, ENTITIES } from '../../examples/bookstore/entities.ts';
import { bookPolicy } from '../../examples/bookstore/policies.ts';
import { seed as seedBookstore } from '../../examples/bookstore/seed.ts';
import { executePostgres } from '../../src/dialect/postgresql/execute.ts';
import type { StatementGuard } from '../../src/dialect/statement.ts';
import { createEngine } from '../../src/engine/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { eachDialect } from '../helpers/db.ts';

class Every {
  id!: number;
  small?: number | null;
  name?: string | null;
  body?: string | null;
  big?: bigint | null;
  amount?: string | null;
  ratio?: number | null;
  wide?: number | null;
  flag?: boolean | null;
  day?: string | null;
  clock?: string | null;
  at?: Date | null;
  stamp?: Date | null;
  data?: unknown;
  token?: string | null;
  bytes?: Buffer | null;
}

const EverySchema = new EntitySchema<Every>({
  class: Every,
  tableName: 'every_type',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    small: { type: 'smallint', nullable: true },
    name: { type: 'string', nullable: true },
    body: { type: 'text', nullable: true },
    big: { type: 'bigint', nullable: true },
    amount: { type: 'decimal', precision: 20, scale: 6, nullable: true },
    ratio: { type: 'float', nullable: true },
    wide: { type: 'double', nullable: true },
    flag: { type: 'boolean', nullable: true },
    day: { type: 'date', nullable: true },
    clock: { type: 'time', nullable: true },
    at: { type: 'datetime', length: 6, nullable: true },
    stamp: { type: 'datetime', columnType: 'timestamp(6)', nullable: true },
    data: { type: 'json', nullable: true },
    token: { type: 'uuid', nullable: true },
    bytes: { type: 'blob', nullable: true },
  },
});

const ROWS = 31;

async function seed(em: EntityManager): Promise<void> {
  const base = Date.UTC(2024, 0, 15, 10, 0, 0);
  for (let i = 1; i <= ROWS; i++) {
    const none = i % 11 === 0;
    em.create(Every, {
      id: i,
      small: none ? null : i % 2 ? -i * 1000 : i,
      name: none ? null : `name ${i} "quoted" \\ é ${'x'.repeat(i)}`,
      body: none ? null : `line one\nline two ${i}\ttab`,
      big: none ? null : (i % 2 ? -1n : 1n) * (9_007_199_254_740_993n + BigInt(i)),
      amount: none ? null : `${i % 2 ? '-' : ''}${i}.${String(i * 1234).padStart(6, '0')}`,
      ratio: none ? null : i / 8,
      wide: none ? null : i / 3,
      flag: none ? null : i % 3 === 0,
      day: none ? null : `2024-0${(i % 9) + 1}-${String((i % 28) + 1).padStart(2, '0')}`,
      clock: none ? null : `${String(i % 24).padStart(2, '0')}:0${i % 10}:30`,
      at: none ? null : new Date(base + i * 86_400_123),
      stamp: none ? null : new Date(base - i * 3_600_000 + i),
      data: none ? null : i % 4 === 0 ? [i, 'x', null, { deep: true }] : { i, text: `v${i}`, nothing: null },
      token: none ? null : `0000000${i % 10}-0000-4000-8000-${String(i).padStart(12, '0')}`,
      bytes: none ? null : Buffer.from([i, 0, 255, i * 3]),
    });
  }
  await em.flush();
  em.clear();
}

const policy = schema(Every)
  .expose('id', sortable())
  .expose('amount', sortable(), filterable())
  .expose('at', sortable())
  .expose('flag', filterable())
  .expose('big');

/** Equal value for value and type for type, with the same keys in the same order. */
function assertSameItems(actual: readonly Record<string, unknown>[], expected: readonly object[], what: string): void {
  assert.is(actual.length, expected.length, `${what}: how many`);
  actual.forEach((item, i) => {
    assert.equal(Object.keys(item), Object.keys(expected[i]!), `${what}: keys of item ${i}`);
    assert.ok(isDeepStrictEqual(item, expected[i]), `${what}: item ${i} ${JSON.stringify(item)}`);
  });
}

/** Every item of list() following its cursors, `limit` at a time (pg's Query on PostgreSQL). */
async function listed(em: EntityManager, query: Record<string, string>, limit: number) {
  const engine = createEngine(em, { policy, maxLimit: 100 }).from((em.fork() as any).createQueryBuilder(Every, 'e'));
  const items: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const page = await engine.list({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
    items.push(...page.items);
    cursor = page.page.nextCursor;
  } while (cursor);
  return items;
}

interface PgClientClass {
  prototype: { query(this: unknown, config: unknown, ...rest: unknown[]): unknown };
}

/**
 * Run `run` and say what each statement was handed to pg's clients as: `String` for pg's Query (Kysely passes the
 * text), `WalkRead` for a walk's direct read. Empty on the other dialects.
 */
async function submitted(em: EntityManager, dialect: string, run: () => Promise<void>): Promise<string[]> {
  if (dialect !== 'postgresql') {
    await run();
    return [];
  }
  const pool = (await (em.getConnection() as any).getNativeClient()) as { Client: PgClientClass };
  const proto = pool.Client.prototype;
  const original = proto.query;
  const kinds: string[] = [];
  proto.query = function (config, ...rest) {
    kinds.push((config as object | null)?.constructor?.name ?? String(config));
    return original.call(this, config, ...rest);
  };
  try {
    await run();
  } finally {
    proto.query = original;
  }
  return kinds;
}

eachDialect('walk pages read past the driver equal list()', { entities: [EverySchema], seed }, (test, dialect) => {
  const pg = dialect === 'postgresql';
  const scoped = (em: EntityManager) =>
    createEngine(em, { policy, maxLimit: 100 }).from((em.fork() as any).createQueryBuilder(Every, 'e'));

  test('items() and pages() give what list() gives, every column type, over several pages', async ({ em }) => {
    for (const sort of ['id', '-amount,id', 'at']) {
      let expected: Record<string, unknown>[] = [];
      const listing = await submitted(em, dialect, async () => {
        expected = await listed(em, { sort }, 4);
      });
      assert.is(expected.length, ROWS);
      assert.ok(expected.some((item) => item.data === null) && expected.some((item) => item.big !== null));
      assert.ok(!listing.includes('WalkRead'), `list() read past pg's Query: ${listing}`);
      for (const pageSize of [4, 7, 5000]) {
        const walked: Record<string, unknown>[] = [];
        const kinds = await submitted(em, dialect, async () => {
          for await (const item of scoped(em).items({ sort }, {}, { pageSize })) walked.push(item);
        });
        assertSameItems(walked, expected, `items(), ${sort}, pages of ${pageSize}`);
        const paged: Record<string, unknown>[] = [];
        for await (const page of scoped(em).pages({ sort }, {}, { pageSize })) paged.push(...page.items);
        assertSameItems(paged, expected, `pages(), ${sort}, pages of ${pageSize}`);
        // Every page of the walk went past pg's Query (the pages' count, plus the one that finds the end).
        if (pg) assert.is(kinds.filter((kind) => kind === 'WalkRead').length, Math.floor(ROWS / pageSize) + 1);
      }
    }
  });

  test('a walk with a filter and fields: the same items as list()', async ({ em }) => {
    const query = { filter: 'amount gt 0 and flag eq false', fields: 'id,big,at,flag,amount' };
    const expected = await listed(em, query, 3);
    assert.ok(expected.length > 3);
    const walked: Record<string, unknown>[] = [];
    for await (const item of scoped(em).items(query, {}, { pageSize: 3 })) walked.push(item);
    assertSameItems(walked, expected, 'items() with filter and fields');
  });

  if (pg) {
    interface Connection {
      getClient(): Kysely<any>;
      getNativeClient(): Promise<unknown>;
    }
    const run = (em: EntityManager, sql: string, parameters: readonly unknown[], guard: StatementGuard | undefined) => {
      const connection = em.getConnection() as unknown as Connection;
      const pool = connection.getClient();
      return executePostgres({
        root: pool,
        client: pool,
        nativeClient: () => connection.getNativeClient(),
        compiled: CompiledQuery.raw(sql, [...parameters]),
        guard,
        abort: undefined,
      });
    };
    const outcome = (pending: Promise<{ rows: unknown[] }>) =>
      pending.then(
        ({ rows }) => ({ rows, keys: rows.map((row) => Object.keys(row as object)) }),
        (err: { code?: unknown; message?: unknown }) => ({ code: err.code, message: err.message }),
      );

    const TYPED = `select n, n::int8 * 3000000007 as big, (n / 3.0)::numeric(20, 6) as num, n::float4 / 3 as f4,
        n::float8 / 7 as f8, n % 2 = 0 as flag, 'x"' || n as txt, date '2024-01-01' + n as day,
        timestamp '2024-01-15 10:00:00.123456' + n * interval '1 hour' as ts,
        timestamptz '2024-01-15 10:00:00.654321+02' + n * interval '1 minute' as tstz, time '10:11:12.5' as t,
        timetz '10:11:12+03' as ttz, interval '1 day 2 hours 3.5 seconds' * n as iv,
        json_build_object('n', n, 'a', json_build_array(n, 'x', null)) as js, jsonb_build_object('n', n) as jb,
        'null'::json as json_null, array[n, n + 1] as ints, array['a', null, 'b "q"', ''] as texts,
        array[[1, 2], [3, 4]] as matrix, array[timestamp '2024-01-01 00:00:00.5'] as stamps,
        array[1.5, null]::numeric[] as nums, array[true, false] as bools, array[n::int8 * 9007199254740993] as bigs,
        array['{"a":1}'::json] as jsons, md5(n::text)::uuid as id, decode('00ff' || lpad(to_hex(n), 2, '0'), 'hex') as bytes,
        '127.0.0.1'::inet as addr, point(n, 2) as pt, circle(point(1, 2), 3) as circ, 12.5::money as cash,
        int4range(n, n + 5) as rng, 'a:1 b:2'::tsvector as vec, B'101'::bit(3) as bits, 'ab'::char(4) as padded,
        case when n % 3 = 0 then null else n end as maybe, null::text as nothing, n * 10 as n, $2::text as p2,
        $3::bool as p3, $4::int8 as p4, $5::text as p5
      from generate_series(1, $1::int) n order by 1`;
    const VALUES = [40, 'text "param" é', true, 9_007_199_254_740_993n, null];

    test('PostgreSQL: the direct read gives pg\u2019s rows for every type its parsers know, and its errors', async ({
      em,
    }) => {
      // A fresh guard per statement: only the first statement under a page's guard is the page (execute.ts).
      const walk = (): StatementGuard => ({ walk: true, timeout: 5000 });
      const statements: [string, readonly unknown[]][] = [
        [TYPED, VALUES],
        ['select n as "Mixed Case", n as "__proto__", $1::text as "with space" from generate_series(1, 3) n', ['v']],
        ['select n from generate_series(1, $1::int) n where false', [5]],
        ['select 1 / $1::int as broken', [0]],
        ['select * from no_such_table where id = $1', [1]],
        ['select $1::int as wrong', ['not a number']],
      ];
      for (const [sql, values] of statements) {
        const expected = await outcome(run(em, sql, values, undefined));
        for (const guard of [walk(), { walk: true }, { walk: true, signal: new AbortController().signal }]) {
          let actual: unknown;
          const kinds = await submitted(em, dialect, async () => {
            actual = await outcome(run(em, sql, values, guard));
          });
          assert.equal(actual, expected, sql);
          assert.ok(kinds.includes('WalkRead'), `not read directly: ${kinds}`);
        }
      }
      const typed = (await outcome(run(em, TYPED, VALUES, walk()))) as { rows: Record<string, unknown>[] };
      assert.ok(typed.rows, JSON.stringify(typed));
      const first = typed.rows[0]!;
      assert.ok(
        typeof first.big === 'string' && Array.isArray(first.ints) && Buffer.isBuffer(first.bytes),
        `types: ${Object.entries(first).map(([k, v]) => `${k}: ${v?.constructor?.name}`)}`,
      );
      assert.is(first.n, 10, 'a repeated column name keeps its last value');
    });

    test('PostgreSQL: only the first statement under a page\u2019s guard reads past pg\u2019s Query', async ({
      em,
    }) => {
      const guard: StatementGuard = { walk: true, timeout: 5000 };
      const sql = 'select n from generate_series(1, $1::int) n';
      const kinds = await submitted(em, dialect, async () => {
        for (let i = 0; i < 3; i++) assert.is((await run(em, sql, [3], guard)).rows.length, 3);
      });
      assert.equal(
        kinds.filter((kind) => kind !== 'String'),
        ['WalkRead'],
      );
    });

    test('PostgreSQL: values pg maps another way, and none, go through pg\u2019s Query', async ({ em }) => {
      for (const [sql, values] of [
        ['select $1::timestamptz as at', [new Date(Date.UTC(2024, 0, 1))]],
        ['select $1::int[] as list', [[1, 2]]],
        ['select 1 as one', []],
      ] as const) {
        const expected = await outcome(run(em, sql, values, undefined));
        let actual: unknown;
        const kinds = await submitted(em, dialect, async () => {
          actual = await outcome(run(em, sql, values, { walk: true, timeout: 5000 }));
        });
        assert.equal(actual, expected, sql);
        assert.ok(!kinds.includes('WalkRead'), `${sql}: read directly`);
      }
    });
  }
});

const nestedPolicy = bookPolicy;

eachDialect('a walk with nested selections', { entities: ENTITIES, seed: seedBookstore }, (test, dialect) => {
  test('items() with nested fields equals list(); on PostgreSQL only the pages read past pg\u2019s Query', async ({
    em,
  }) => {
    const query = { fields: 'id,title,reviews(reviewer,stars),author(name),tags(name)', sort: '-year' };
    const engine = () =>
      createEngine(em, { policy: nestedPolicy, maxLimit: 100 }).from(
        (em.fork() as any).createQueryBuilder(Book, 'b').where({ tenant: 1 }),
      );
    const expected = (await engine().list({ ...query, limit: '100' })).items;
    assert.ok(
      expected.length > 3 &&
        expected.some((item) => (item as unknown as { reviews: { items: unknown[] } }).reviews.items.length > 0),
    );
    const walked: Record<string, unknown>[] = [];
    const kinds = await submitted(em, dialect, async () => {
      for await (const item of engine().items(query, {}, { pageSize: 3 })) walked.push(item);
    });
    assertSameItems(walked, expected, 'items() with nested selections');
    if (dialect === 'postgresql') {
      assert.is(kinds.filter((kind) => kind === 'WalkRead').length, Math.ceil(expected.length / 3));
      assert.ok(kinds.filter((kind) => kind === 'String').length >= Math.ceil(expected.length / 3), 'levels');
    }
  });
});
