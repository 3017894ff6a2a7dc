/**
 * PostgreSQL's executor for a statement alone on a pooled connection (no transaction, no `pgSettings`), the path of
 * almost every request: it gives what the statement gives in a caller's transaction and without a guard (rows,
 * errors), applies the pool's Kysely plugins as Kysely would, and still cancels on time when a plugin renames
 * columns (the backend's pid is read from the driver's connection itself).
 */
import { EntitySchema } from '@mikro-orm/core';
import { CamelCasePlugin, CompiledQuery, type Kysely } from 'kysely';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { executePostgres } from '../../src/dialect/postgresql/execute.ts';
import type { StatementGuard } from '../../src/dialect/statement.ts';
import { isListError } from '../../src/index.ts';
import { openDatabase, type TestDatabase } from '../helpers/db.ts';

class Thing {
  id!: number;
}
const entities = [
  new EntitySchema<Thing>({
    class: Thing,
    tableName: 'alone_thing',
    properties: { id: { type: 'integer', primary: true, autoincrement: false } },
  }),
];

const test = suite<{ db?: TestDatabase }>('postgresql: a statement alone on a pooled connection');

test.before(async (context) => {
  context.db = await openDatabase('postgresql', entities);
});
test.after(async (context) => {
  await context.db?.dispose();
});

interface Connection {
  getClient(): Kysely<any>;
  getNativeClient(): Promise<unknown>;
}

/** Run `sql` through the executor on `root` (or in `client`, a transaction of it), under `guard`. */
function run(
  db: TestDatabase,
  sql: string,
  guard: StatementGuard | undefined,
  root?: Kysely<any>,
  client?: Kysely<any>,
) {
  const connection = db.orm.em.getConnection() as unknown as Connection;
  const pool = root ?? connection.getClient();
  return executePostgres({
    root: pool,
    client: client ?? pool,
    nativeClient: () => connection.getNativeClient(),
    compiled: CompiledQuery.raw(sql, []),
    guard,
    abort: undefined,
  });
}

/** The outcome of `pending` as something assert.equal can compare: rows, or an error's code and message. */
async function outcome(pending: Promise<{ rows: unknown[] }>): Promise<unknown> {
  return pending.then(
    ({ rows }) => ({ rows }),
    (err: { code?: unknown; message?: unknown }) => ({ code: err.code, message: err.message }),
  );
}

const STATEMENTS = [
  'select n as some_number, n * 2 as twice from generate_series(1, 3) n order by n',
  'select 1 / 0 as broken',
  'select * from no_such_table',
];

test('alone, in a caller transaction and unguarded: the same rows and the same errors', async ({ db }) => {
  const guard: StatementGuard = { timeout: 5000, deadline: { at: performance.now() + 10_000, timeout: 10_000 } };
  const root = (db!.orm.em.getConnection() as unknown as Connection).getClient();
  for (const sql of STATEMENTS) {
    const bare = await outcome(run(db!, sql, undefined));
    assert.equal(await outcome(run(db!, sql, guard)), bare, sql);
    assert.equal(await outcome(run(db!, sql, { signal: new AbortController().signal })), bare, sql);
    const inTransaction = await root
      .transaction()
      .execute((trx) => outcome(run(db!, sql, guard, root, trx)))
      .catch((err: unknown) => ({ transactionFailed: String(err) }));
    // A failed statement fails its transaction too; the outcome read inside it is still the statement's.
    assert.equal(inTransaction, bare, sql);
  }
});

test("the pool's Kysely plugins apply to the rows, as Kysely's own execution applies them", async ({ db }) => {
  const root = (db!.orm.em.getConnection() as unknown as Connection).getClient().withPlugin(new CamelCasePlugin());
  const sql = STATEMENTS[0]!;
  const expected = await root.executeQuery(CompiledQuery.raw(sql, []));
  assert.equal(Object.keys(expected.rows[0] as object), ['someNumber', 'twice']);
  const guarded = await run(db!, sql, { timeout: 5000 }, root);
  assert.equal(guarded.rows, expected.rows);
});

test('with a plugin that renames columns, the timer still cancels on the server', async ({ db }) => {
  const root = (db!.orm.em.getConnection() as unknown as Connection).getClient().withPlugin(new CamelCasePlugin());
  const started = performance.now();
  const err = await run(db!, 'select pg_sleep(5) as slow_column', { timeout: 200 }, root).catch((e: unknown) => e);
  const took = performance.now() - started;
  assert.ok(isListError(err) && err.code === 'query_timeout', String(err));
  assert.ok(took < 3000, `answered after ${Math.round(took)} ms`);
  // The cancel reached the backend: the pool's next statement runs at once.
  const next = await run(db!, 'select 1 as one', { timeout: 5000 }, root);
  assert.equal(next.rows, [{ one: 1 }]);
});

test('an abort answers at once and leaves nothing running', async ({ db }) => {
  const controller = new AbortController();
  const pending = run(db!, 'select pg_sleep(5)', { timeout: 60_000, signal: controller.signal });
  setTimeout(() => controller.abort(new Error('gone')), 100);
  const started = performance.now();
  const err = await pending.catch((e: unknown) => e);
  assert.is((err as Error).message, 'gone');
  assert.ok(performance.now() - started < 2000);
  const connection = db!.orm.em.getConnection() as unknown as Connection;
  let sleeping = 1;
  for (let i = 0; i < 100 && sleeping > 0; i++) {
    const { rows } = await connection.getClient().executeQuery<{ n: string }>(
      CompiledQuery.raw(
        `select count(*) as n from pg_stat_activity where datname = current_database() and state = 'active'
             and query like '%pg_sleep(5)%' and pid <> pg_backend_pid()`,
        [],
      ),
    );
    sleeping = Number(rows[0]?.n ?? 0);
    if (sleeping > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.is(sleeping, 0);
});

test.run();
