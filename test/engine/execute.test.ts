/**
 * execute()/executeCount() send values as real bound parameters. Proof is taken at the drivers themselves
 * (pg Client#query, better-sqlite3 Statement#all/get/run/iterate, mysql2 Connection#execute/query): injection
 * payloads never reach the SQL text, they arrive among the bound values, and the rows are right. On MariaDB the
 * server's own general log shows it too: the statement is prepared with `?` and no value is in any query text.
 * Also: flattening of MikroORM's nested raw fragments, row mapping identical to qb.execute('all'), counting each
 * root row once, transactions, failures.
 */
import { randomBytes } from 'node:crypto';
import { type Collection, type EntityManager, EntitySchema } from '@mikro-orm/core';
import { type QueryBuilder, raw } from '@mikro-orm/sql';
import { CompiledQuery } from 'kysely';
import mysql from 'mysql2/promise';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execute, executeCount } from '../../src/engine/execute.ts';
import { isListError } from '../../src/errors.ts';
import { bindStatement } from '../../src/orm/bound-sql.ts';
import { applyResolved } from '../../src/plan/index.ts';
import { catalogEntities, Product, Stock, seedCatalog } from '../fixtures/catalog.ts';
import { captureDriver, type DriverCall } from '../helpers/capture.ts';
import { DIALECTS, type Dialect, eachDialect, mysqlAdminUrl, openDatabase, type TestDatabase } from '../helpers/db.ts';
import { boundFor, query, resolver } from '../helpers/resolved.ts';
import { expectSql, id, param, type Sql, sql } from '../helpers/sql.ts';

type R = ReturnType<typeof resolver>;

function products(em: EntityManager): QueryBuilder<Product> {
  return (em as any).createQueryBuilder(Product, 'p');
}

/** The statements that touched the product table (drivers may also see pragmas or `select 1`). */
function productCalls(calls: readonly DriverCall[]): DriverCall[] {
  return calls.filter((c) => c.sql.includes('product'));
}

interface InjectionRow {
  readonly name: string;
  readonly payload: string;
  readonly filter: (r: R, payload: string) => ReturnType<R['eq']>;
  readonly ids: readonly number[];
  /** Where MariaDB differs: `eq` and `in` follow the column's collation, which ignores case ('alpha' = 'Alpha'). */
  readonly mariadb?: readonly number[];
}

const INJECTIONS: readonly InjectionRow[] = [
  { name: 'quote, OR and comment', payload: "x' OR 1=1 --", filter: (r, p) => r.eq('name', p), ids: [] },
  {
    name: 'a statement after a quote',
    payload: "'; drop table product; --",
    filter: (r, p) => r.eq('name', p),
    ids: [],
  },
  { name: 'a lone percent sign', payload: '%', filter: (r, p) => r.eq('name', p), ids: [] },
  { name: 'a percent sign in contains', payload: '%', filter: (r, p) => r.contains('name', p), ids: [5] },
  { name: 'placeholders inside the value', payload: 'a?b $1 ?? $2', filter: (r, p) => r.eq('name', p), ids: [] },
  { name: 'the exact row with a quote and %', payload: "O'Brien 100%", filter: (r, p) => r.eq('name', p), ids: [5] },
  {
    name: 'a payload inside an in-list',
    payload: "x') or ('1'='1",
    filter: (r, p) => r.in('name', ['Alpha', p]),
    ids: [1],
    mariadb: [1, 2],
  },
  {
    name: 'a payload under not',
    payload: "' or ''='",
    filter: (r, p) => r.not(r.ne('name', p)),
    ids: [],
  },
];

eachDialect(
  'execute: values reach the server as bound parameters',
  { entities: catalogEntities, seed: seedCatalog },
  (test, dialect) => {
    for (const row of INJECTIONS) {
      test(row.name, async ({ db, em }) => {
        const bound = boundFor(db.orm, Product);
        const qb = applyResolved(products(em), bound, query({ filter: row.filter(resolver(bound), row.payload) }));
        const { result, calls } = await captureDriver(() => execute<Product>(qb));
        const sent = productCalls(calls);
        assert.is(sent.length, 1);
        const call = sent[0]!;
        assert.not.ok(call.sql.includes(row.payload), `payload in SQL: ${call.sql}`);
        assert.ok(
          call.values.some((v) => typeof v === 'string' && v.includes(row.payload)),
          `payload not among values: ${JSON.stringify(call.values)}`,
        );
        assert.equal(
          result.map((p) => p.id),
          dialect === 'mariadb' ? (row.mariadb ?? row.ids) : row.ids,
        );
      });
    }
    test('the table survives the payloads', async ({ em }) => {
      assert.is(await executeCount(products(em)), 6);
    });
    test('executeCount binds too', async ({ db, em }) => {
      const bound = boundFor(db.orm, Product);
      const r = resolver(bound);
      const payload = "x' or 'a'='a";
      const qb = applyResolved(products(em), bound, query({ filter: r.or(r.eq('name', payload), r.eq('id', 2)) }));
      const { result, calls } = await captureDriver(() => executeCount(qb));
      const call = productCalls(calls)[0]!;
      assert.not.ok(call.sql.includes(payload));
      assert.ok(call.values.includes(payload));
      assert.is(result, 1);
    });
    test("MikroORM's own qb.execute() would inline the same value (why execute() exists)", async ({ db, em }) => {
      const bound = boundFor(db.orm, Product);
      const payload = "x' OR 1=1 --";
      const qb = applyResolved(products(em), bound, query({ filter: resolver(bound).eq('name', payload) }));
      const { calls } = await captureDriver(() => qb.clone().execute('all'));
      const call = productCalls(calls)[0]!;
      // MySQL and MariaDB escape the quote with a backslash, the others by doubling it.
      assert.ok(call.sql.includes(dialect === 'mariadb' ? "'x\\' OR 1=1 --'" : "'x'' OR 1=1 --'"), call.sql);
      assert.equal(call.values, []);
    });
    if (dialect === 'mariadb')
      test("the server's general log: prepared with ?, the value in no query text", async ({ db, em }) => {
        const token = `lq-wire-${randomBytes(6).toString('hex')}`;
        const bound = boundFor(db.orm, Product);
        const r = resolver(bound);
        const qb = applyResolved(products(em), bound, query({ filter: r.or(r.eq('name', token), r.eq('id', 2)) }));
        const entries = await generalLog(db.orm, async () => {
          assert.equal(
            (await execute<Product>(qb)).map((p) => p.id),
            [2],
          );
          assert.is(await executeCount(qb), 1);
        });
        // Both statements went to the server as prepared statements (COM_STMT_PREPARE, COM_STMT_EXECUTE): the data
        // query was prepared here with `?` (the count statement may already be prepared on this connection).
        assert.ok(
          entries.some((e) => e.command === 'Prepare' && /`name` = \? or `p`\.`id` = \?/.test(e.argument)),
          JSON.stringify(entries),
        );
        assert.ok(entries.some((e) => e.command === 'Execute' && e.argument.startsWith('select `p`.*')));
        assert.ok(entries.some((e) => e.command === 'Execute' && e.argument.startsWith('select count(')));
        // The log writes an execution with its values filled in; no statement text the server received holds it.
        const mine = entries.filter((e) => e.argument.includes(token));
        assert.ok(mine.length > 0, 'the value never reached the server');
        for (const e of mine) assert.is(e.command, 'Execute', `${e.command}: ${e.argument}`);
      });
  },
);

interface LogEntry {
  readonly thread: number;
  readonly command: string;
  readonly argument: string;
}

/**
 * Run `fn` with MariaDB's general log written to its table, and return what the server logged for this ORM's
 * connections meanwhile. The server's log settings are put back after, and the rows this run added are removed
 * when the log was off before (then nothing else relied on the table).
 */
async function generalLog(orm: { em: EntityManager }, fn: () => Promise<void>): Promise<LogEntry[]> {
  const admin = await mysql.createConnection({ uri: await mysqlAdminUrl(), dateStrings: true });
  try {
    const [[before]] = (await admin.query('select @@global.general_log as log, @@global.log_output as output')) as any;
    const [[{ started }]] = (await admin.query('select now(6) as started')) as any;
    await admin.query("set global log_output = 'TABLE', general_log = 1");
    try {
      await fn();
    } finally {
      await admin.query('set global general_log = ?, log_output = ?', [before.log, before.output]);
    }
    const pool = (await (orm.em.getConnection() as any).getNativeClient()) as {
      _allConnections: { toArray(): { threadId: number }[] };
    };
    const threads = pool._allConnections.toArray().map((c) => c.threadId);
    const [rows] = (await admin.query(
      'select thread_id as thread, command_type as command, convert(argument using utf8mb4) as argument ' +
        'from mysql.general_log where event_time >= ? and thread_id in (?) order by event_time',
      [started, threads],
    )) as any;
    if (Number(before.log) === 0) await admin.query('truncate table mysql.general_log');
    return (rows as LogEntry[]).map((e) => ({ ...e, thread: Number(e.thread) }));
  } finally {
    await admin.end();
  }
}

interface BindRow {
  readonly name: string;
  readonly sql: string;
  readonly params: readonly unknown[];
  /** The statement the driver receives (`param`: `$n` on PostgreSQL, `?` on SQLite and MariaDB). */
  readonly out: Sql;
  readonly values: readonly unknown[];
  /** Only on these dialects (string syntax differs: MySQL strings escape with a backslash). */
  readonly only?: readonly Dialect[];
}

const BINDS: readonly BindRow[] = [
  {
    name: 'values',
    sql: 'a = ? and b = ?',
    params: [1, 'x'],
    out: sql`a = ${param} and b = ${param}`,
    values: [1, 'x'],
  },
  {
    name: 'an identifier',
    sql: '?? = ?',
    params: ['p.name', 'x'],
    out: sql`${id('p.name')} = ${param}`,
    values: ['x'],
  },
  {
    name: 'a raw fragment as a value',
    sql: 'a = ? and c = ?',
    params: [raw('lower(?)', ['X']), 2],
    out: sql`a = lower(${param}) and c = ${param}`,
    values: ['X', 2],
  },
  {
    name: 'a raw fragment as an identifier',
    sql: '?? = 1',
    params: [raw('??', ['q.id'])],
    out: sql`${id('q.id')} = 1`,
    values: [],
  },
  {
    name: 'fragments nested twice, in order',
    sql: 'x = ? and exists (?) and z = ?',
    params: [0, raw('select 1 where x = ? and y = (?)', [1, raw('select ?', ['z'])]), 3],
    out: sql`x = ${param} and exists (select 1 where x = ${param} and y = (select ${param})) and z = ${param}`,
    values: [0, 1, 'z', 3],
  },
  {
    name: 'an array expands to a list',
    sql: 'id in (?)',
    params: [[1, 2, 3]],
    out: sql`id in (${param}, ${param}, ${param})`,
    values: [1, 2, 3],
  },
  {
    name: 'question marks in quotes are not placeholders',
    sql: `a = '?' and "b?" = ? and \`c?\` = ?`,
    params: [1, 2],
    out: sql`a = '?' and "b?" = ${param} and \`c?\` = ${param}`,
    values: [1, 2],
  },
  {
    name: 'doubled quotes stay inside the string',
    sql: "a = 'it''s ?' and b = ?",
    params: [1],
    out: sql`a = 'it''s ?' and b = ${param}`,
    values: [1],
  },
  {
    name: 'a backslash ends nothing in a standard string',
    sql: "a like ? escape '\\' and b = ?",
    params: ['%x%', 1],
    out: sql`a like ${param} escape '\\' and b = ${param}`,
    values: ['%x%', 1],
    only: ['sqlite', 'postgresql'],
  },
  {
    name: 'a backslash escapes the quote in a MySQL string',
    sql: 'a = \'x\\\' ?\' and b = ? and c = "y\\" ?"',
    params: [1],
    out: sql`a = 'x\\' ?' and b = ${param} and c = "y\\" ?"`,
    values: [1],
    only: ['mariadb'],
  },
  {
    name: 'a MySQL # comment is skipped',
    sql: 'select ? # ?\n, ?',
    params: [1, 2],
    out: sql`select ${param} # ?\n, ${param}`,
    values: [1, 2],
    only: ['mariadb'],
  },
  {
    name: 'an escaped quote in an E string',
    sql: "a = E'x\\' ?' and b = ?",
    params: [1],
    out: sql`a = E'x\\' ?' and b = ${param}`,
    values: [1],
  },
  {
    name: 'comments are skipped',
    sql: '/* ? */ select ? -- ?\n, ?',
    params: [1, 2],
    out: sql`/* ? */ select ${param} -- ?\n, ${param}`,
    values: [1, 2],
  },
  {
    name: 'an escaped question mark is literal',
    sql: 'a \\? b and c = ?',
    params: [1],
    out: sql`a ? b and c = ${param}`,
    values: [1],
  },
  {
    name: 'a plain object is sent as JSON',
    sql: 'j = ?',
    params: [{ a: [1] }],
    out: sql`j = ${param}`,
    values: ['{"a":[1]}'],
  },
  { name: 'undefined is NULL', sql: 'a = ?', params: [undefined], out: sql`a = ${param}`, values: [null] },
];

eachDialect('execute: flattening compiled SQL', { entities: catalogEntities }, (test, dialect) => {
  for (const row of BINDS) {
    if (row.only && !row.only.includes(dialect)) continue;
    test(row.name, ({ db }) => {
      const out = bindStatement(db.orm.em.getPlatform(), row.sql, row.params);
      expectSql(out.sql, row.out, dialect);
      assert.equal(out.parameters, row.values);
    });
  }
  test('dates, booleans and bigints are sent as the dialect stores them', ({ db }) => {
    const out = bindStatement(db.orm.em.getPlatform(), 'a = ? and b = ? and c = ?', [new Date(0), true, 5n]);
    if (dialect === 'sqlite') assert.equal(out.parameters, [0, 1, 5n]);
    else {
      // The text MikroORM would inline: its time zone (UTC here), milliseconds.
      assert.is(out.parameters[0], dialect === 'mariadb' ? '1970-01-01 00:00:00.000' : '1970-01-01T00:00:00.000Z');
      // MySQL and MariaDB have no boolean type: TINYINT(1) holds 1 and 0.
      assert.equal(out.parameters.slice(1), [dialect === 'mariadb' ? 1 : true, '5']);
    }
  });
  for (const [name, sql, params] of [
    ['more placeholders than values', 'a = ? and b = ?', [1]],
    ['more values than placeholders', 'a = ?', [1, 2]],
  ] as const) {
    test(`refuses ${name}`, ({ db }) => {
      assert.throws(() => bindStatement(db.orm.em.getPlatform(), sql, params), /placeholders/);
    });
  }
});

eachDialect('execute: rows, counts and failures', { entities: catalogEntities, seed: seedCatalog }, (test, dialect) => {
  test("rows are mapped exactly as qb.execute('all') maps them", async ({ db, em }) => {
    const bound = boundFor(db.orm, Product);
    const r = resolver(bound);
    const qb = applyResolved(products(em), bound, query({ filter: r.in('id', [1, 4, 6]), sort: [r.desc('id')] }));
    const rows = await execute(qb);
    assert.equal(rows, await qb.clone().execute('all'));
    assert.equal(
      rows.map((p) => p.id),
      [6, 4, 1],
    );
  });
  test('selected aliases map like qb.execute() too', async ({ db, em }) => {
    const bound = boundFor(db.orm, Product);
    const base = products(em).select(['id', 'sku as code'] as never);
    const qb = applyResolved(base, bound, query({ filter: resolver(bound).lte('id', 2) }));
    assert.equal(await execute(qb), [
      { id: 1, code: 'A-1' },
      { id: 2, code: 'A-2' },
    ]);
  });
  interface CountRow {
    readonly name: string;
    readonly qb: (em: EntityManager, db: Parameters<Parameters<typeof test>[1]>[0]['db']) => QueryBuilder<any>;
    readonly count: number;
  }
  const COUNTS: readonly CountRow[] = [
    { name: 'all products', qb: (em) => products(em), count: 6 },
    {
      name: 'a filtered count',
      qb: (em, d) => {
        const b = boundFor(d.orm, Product);
        const r = resolver(b);
        return applyResolved(products(em), b, query({ filter: r.not(r.gt('stock', 0)) }));
      },
      count: 2,
    },
    {
      name: 'limit, offset and sort are ignored',
      qb: (em, d) => {
        const b = boundFor(d.orm, Product);
        const r = resolver(b);
        return applyResolved(
          products(em),
          b,
          query({ filter: r.notNull('stock'), sort: [r.desc('name')], limit: 1, offset: 2 }),
        );
      },
      count: 4,
    },
    { name: 'a distinct base scope', qb: (em) => products(em).select(['status'], true), count: 6 },
    { name: 'composite keys', qb: (em) => (em as any).createQueryBuilder(Stock, 's'), count: 5 },
    {
      name: 'composite keys, filtered',
      qb: (em, d) => {
        const b = boundFor(d.orm, Stock);
        return applyResolved(
          (em as any).createQueryBuilder(Stock, 's'),
          b,
          query({ filter: resolver(b).eq('qty', 5) }),
        );
      },
      count: 2,
    },
  ];
  for (const row of COUNTS) {
    test(`count: ${row.name}`, async ({ db, em }) => {
      const n = await executeCount(row.qb(em, db));
      assert.is(typeof n, 'number');
      assert.is(n, row.count);
    });
  }
  test('the caller’s query builder can still be used after execute and count', async ({ em }) => {
    const qb = products(em).where({ status: 'draft' });
    await execute(qb);
    await executeCount(qb);
    qb.andWhere({ id: 2 }); // throws if execute or count finalized it
    assert.is(await executeCount(qb), 1);
  });
  test('a running transaction is used', async ({ db }) => {
    const rollback = new Error('rollback');
    await db.orm.em
      .fork()
      .transactional(async (tem) => {
        tem.create(Stock, { warehouse: 'west', bin: 9, qty: 1 });
        await tem.flush();
        const qb = (tem as any).createQueryBuilder(Stock, 's').where({ warehouse: 'west' });
        assert.is((await execute<Stock>(qb)).length, 1);
        assert.is(await executeCount(qb), 1);
        throw rollback;
      })
      .catch((err) => {
        if (err !== rollback) throw err;
      });
    assert.is(await executeCount((db.orm.em.fork() as any).createQueryBuilder(Stock, 's')), 5);
  });
  for (const [name, run] of [
    ['execute', execute],
    ['executeCount', executeCount],
  ] as const) {
    test(`${name}: a database failure is execution_failed, without SQL in the message`, async ({ em }) => {
      const qb = products(em).andWhere('no_such_column = ?', ['secret-value']);
      try {
        await run(qb);
        assert.unreachable('no error');
      } catch (err) {
        if (!isListError(err)) throw err;
        assert.is(err.code, 'execution_failed');
        assert.is(err.message, 'the query failed');
        assert.ok(err.cause, 'cause kept for logs');
        assert.equal(Object.keys(err.toJSON()).sort(), ['code', 'message']);
      }
    });
  }
  test(`dialect under test is ${dialect}`, ({ db }) => {
    assert.is(db.dialect, dialect);
  });
});

// A one-to-many pair to show that a joining base scope does not inflate the count.
class Shelf {
  id!: number;
  items?: Collection<Item>;
}
class Item {
  id!: number;
  shelf!: Shelf;
}
const ShelfSchema = new EntitySchema<Shelf>({
  class: Shelf,
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    items: { kind: '1:m', entity: () => Item, mappedBy: 'shelf' } as never,
  },
});
const ItemSchema = new EntitySchema<Item>({
  class: Item,
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    shelf: { kind: 'm:1', entity: () => Shelf },
  },
});

async function seedShelves(em: EntityManager): Promise<void> {
  const shelves = [1, 2, 3].map((id) => em.create(Shelf, { id }));
  for (const [id, shelf] of [
    [1, 0],
    [2, 0],
    [3, 1],
  ] as const)
    em.create(Item, { id, shelf: shelves[shelf]! });
  await em.flush();
}

eachDialect(
  'execute: counting through a to-many join',
  { entities: [ShelfSchema, ItemSchema], seed: seedShelves },
  (test) => {
    test('each root row is counted once', async ({ em }) => {
      const qb = (em as any).createQueryBuilder(Shelf, 's').leftJoin('s.items', 'i');
      assert.is((await execute(qb)).length, 4); // 2 + 1 + 1 (the empty shelf once, NULL item)
      assert.is(await executeCount(qb), 3);
    });
    test('a filter on the join still counts shelves', async ({ em }) => {
      const qb = (em as any)
        .createQueryBuilder(Shelf, 's')
        .innerJoin('s.items', 'i')
        .where({ 'i.id': { $lte: 2 } });
      assert.is(await executeCount(qb), 1);
    });
  },
);

// Column types whose values the binary (prepared) protocol of MySQL and MariaDB returns differently from the text
// protocol MikroORM's own execute() uses: single-precision floats, fractional seconds that end in zeros.
class Reading {
  id!: number;
  level!: number;
  clock!: string;
  at!: Date;
  big!: string;
  amount!: string;
  data!: unknown;
}
const ReadingSchema = new EntitySchema<Reading>({
  class: Reading,
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    level: { type: 'float' },
    clock: { type: 'time', length: 3 },
    at: { type: 'datetime', length: 3 },
    big: { type: 'bigint' },
    amount: { type: 'decimal', precision: 20, scale: 6 },
    data: { type: 'json', nullable: true },
  },
});
const READINGS = [
  [1, 0.1, '12:34:56.500', '2024-01-15T10:00:00.000Z', '9007199254740993', '1234567.123456', { a: [1, 'x'] }],
  [2, 16777217, '00:00:00.000', '2024-01-15T10:00:00.120Z', '-5', '-0.000001', null],
  [3, 1.23456789, '23:59:59.999', '1999-12-31T23:59:59.999Z', '0', '0.000000', [1, 2]],
  [4, 1.5e-40, '08:00:00.010', '2024-06-01T00:00:00.000Z', '42', '99999999999999.999999', 'text'],
  [5, 0.3333333333, '10:00:00.000', '2024-06-01T00:00:00.001Z', '-9223372036854775808', '1.000000', {}],
] as const;

eachDialect(
  'execute: rows of every column type map as qb.execute() maps them',
  {
    entities: [ReadingSchema],
    seed: async (em) => {
      for (const [id, level, clock, at, big, amount, data] of READINGS)
        em.create(Reading, { id, level, clock, at: new Date(at), big, amount, data });
      await em.flush();
    },
  },
  (test, dialect) => {
    test('floats, times, fractional seconds, bigints, decimals, JSON', async ({ em }) => {
      const qb = (em as any).createQueryBuilder(Reading, 'r').orderBy({ id: 'asc' }) as QueryBuilder<Reading>;
      const rows = await execute<Reading>(qb);
      assert.equal(rows, await qb.clone().execute('all'));
      assert.is(rows.length, READINGS.length);
      // Raw rows, before any entity mapping: MariaDB's and PostgreSQL's drivers give BIGINTs exactly (numbers when
      // safe, else strings); better-sqlite3 reads every integer as a JavaScript number, so SQLite rounds large ones.
      if (dialect !== 'sqlite')
        assert.equal(
          rows.map((r) => String(r.big)),
          READINGS.map((r) => r[4]),
        );
    });
  },
);

// MikroORM's onReserveConnection hook (session settings such as row-level security variables) runs for listql's
// statements too: on MySQL and MariaDB they run on a connection acquired the way MikroORM acquires its own.
for (const dialect of DIALECTS.filter((d) => d !== 'sqlite')) {
  const s = suite<{ db: TestDatabase }>(`execute: onReserveConnection holds [${dialect}]`, {} as { db: TestDatabase });
  const setting =
    dialect === 'postgresql'
      ? { set: "set listql.shelf = '2'", read: "cast(current_setting('listql.shelf') as integer)" }
      : { set: 'set @listql_shelf = 2', read: '@listql_shelf' };
  s.before(async (ctx) => {
    ctx.db = await openDatabase(dialect, [ShelfSchema, ItemSchema], {
      onReserveConnection: async (connection: { executeQuery(q: unknown): Promise<unknown> }) => {
        await connection.executeQuery(CompiledQuery.raw(setting.set));
      },
    });
    await seedShelves(ctx.db.orm.em.fork());
  });
  s.after(async (ctx) => {
    await ctx.db?.dispose();
  });
  s('the session setting the hook made filters the rows, with and without a statement guard', async ({ db }) => {
    for (let i = 0; i < 3; i++) {
      const qb = (db.orm.em.fork() as any).createQueryBuilder(Shelf, 's').where(raw(`s.id = ${setting.read}`));
      assert.equal(
        (await execute<Shelf>(qb)).map((x) => x.id),
        [2],
      );
      assert.is(await executeCount(qb, { statementTimeout: 5000 }), 1);
    }
  });
  s.run();
}
