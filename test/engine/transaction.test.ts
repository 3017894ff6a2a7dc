/**
 * A base scope created inside the application's transaction (`em.transactional`, `em.begin()`) runs every listql
 * statement on that transaction's connection, on every dialect: list(), count=true and a cursor walk see the rows
 * the transaction wrote and has not committed, with and without a statement guard (timeout, abort signal). And
 * `ctx.pgSettings`, being PostgreSQL's, is refused elsewhere before any query.
 */
import { type EntityManager, EntitySchema } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, isListError } from '../../src/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

class Task {
  id!: number;
  title!: string;
}
const TaskSchema = new EntitySchema<Task>({
  class: Task,
  tableName: 'trx_task',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    title: { type: 'string' },
  },
});
const policy = schema(Task).expose('id', filterable(), sortable()).expose('title', filterable(), sortable());

async function seed(em: EntityManager): Promise<void> {
  for (const id of [1, 2, 3]) em.create(Task, { id, title: `task ${id}` });
  await em.flush();
}

const scope = (em: EntityManager) => (em as any).createQueryBuilder(Task, 't');
const ids = (items: readonly { id?: unknown }[]) => items.map((i) => Number(i.id));
const ROLLBACK = new Error('rollback');

/** Run `fn` in a transaction of a fresh fork and roll it back. */
async function rolledBack(em: EntityManager, fn: (tem: EntityManager) => Promise<void>): Promise<void> {
  await em
    .fork()
    .transactional(async (tem) => {
      await fn(tem);
      throw ROLLBACK;
    })
    .catch((err) => {
      if (err !== ROLLBACK) throw err;
    });
}

const GUARDS = [
  ['no statement guard', { statementTimeout: false }, () => ({})],
  ['a statement timeout', { statementTimeout: 5000 }, () => ({})],
  ['a timeout and an abort signal', { statementTimeout: 5000 }, () => ({ signal: new AbortController().signal })],
] as const;

eachDialect('engine: the application’s transaction', { entities: [TaskSchema], seed }, (test, dialect) => {
  for (const [name, config, ctxOf] of GUARDS) {
    test(`em.transactional: list, count and a walk see its uncommitted rows (${name})`, async ({ em }) => {
      const engine = createEngine(em, { policy, allowCount: true, maxLimit: 2, ...config });
      await rolledBack(em, async (tem) => {
        tem.create(Task, { id: 4, title: 'uncommitted' });
        await tem.flush();
        const page = await engine.from(scope(tem)).list({ count: 'true', sort: '-id' }, ctxOf());
        assert.equal(ids(page.items), [4, 3]);
        assert.is(page.page.count, 4);
        const walked: number[] = [];
        for await (const item of engine.from(scope(tem)).items({}, ctxOf(), { pageSize: 1 }))
          walked.push(Number(item.id));
        assert.equal(walked, [1, 2, 3, 4]);
        const filtered = await engine.from(scope(tem)).list({ filter: "title eq 'uncommitted'" }, ctxOf());
        assert.equal(ids(filtered.items), [4]);
      });
      const after = await engine.from(scope(em.fork())).list({ count: 'true' }, ctxOf());
      assert.is(after.page.count, 3);
    });
  }

  test('em.begin() … rollback(): the same, and another request outside it does not see the rows', async ({ em }) => {
    const engine = createEngine(em, { policy, allowCount: true });
    const tem = em.fork();
    await tem.begin();
    try {
      tem.create(Task, { id: 5, title: 'begun' });
      await tem.flush();
      assert.is((await engine.from(scope(tem)).list({ count: 'true' })).page.count, 4);
      // SQLite has one connection, shared by the transaction: only the server databases isolate here.
      if (dialect !== 'sqlite') assert.is((await engine.from(scope(em.fork())).list({ count: 'true' })).page.count, 3);
    } finally {
      await tem.rollback();
    }
    assert.is((await engine.from(scope(em.fork())).list({ count: 'true' })).page.count, 3);
  });

  if (dialect !== 'postgresql')
    test('ctx.pgSettings is refused with invalid_schema before any query', async ({ em }) => {
      const engine = createEngine(em, { policy });
      const { result, calls } = await captureDriver(() =>
        engine
          .from(scope(em))
          .list({}, { pgSettings: { 'app.tenant': '1' } })
          .catch((err: unknown) => err),
      );
      assert.ok(isListError(result) && result.code === 'invalid_schema', String(result));
      assert.match(result.message, /PostgreSQL only/);
      assert.equal(calls, []);
    });
});
