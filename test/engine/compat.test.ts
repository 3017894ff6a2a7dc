/**
 * The fences around the MikroORM internals listql mirrors (docs/compatibility.md). On the installed MikroORM every
 * check passes and the engine runs. Each mismatch a later 7.x could bring is simulated on one builder or one entity
 * manager fork (never on MikroORM's shared classes): createEngine refuses with `invalid_schema` naming it, a builder
 * that runs its SQL another way is refused with `execution_failed` before any statement, and an item writer that
 * disagrees with serialize() is set aside after one page, whose items come from serialize() itself.
 */
import type { EntityManager } from '@mikro-orm/core';
import type { QueryBuilder } from '@mikro-orm/sql';
import * as assert from 'uvu/assert';
import { execute, executeCountOwned, executeOwned } from '../../src/engine/execute.ts';
import { createEngine } from '../../src/engine/index.ts';
import { serializeRows } from '../../src/engine/serialize.ts';
import { isListError } from '../../src/errors.ts';
import { boundExecutionProblem } from '../../src/orm/compat.ts';
import { compileItemWriter, type Row } from '../../src/orm/item-writer.ts';
import { checkedItemWriter, entityRows } from '../../src/orm/writer-check.ts';
import { Cell, Entry, entryPolicy, seedWalk, Tag, Team, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

type AnyQb = QueryBuilder<any>;

/** A fork whose query builders are altered by `alter`, as a MikroORM release might have built them. */
function forkWith(em: EntityManager, alter: (qb: AnyQb) => void): EntityManager {
  const fork = em.fork();
  const create = (fork as any).createQueryBuilder.bind(fork);
  Object.defineProperty(fork, 'createQueryBuilder', {
    value: (...args: unknown[]) => {
      const qb = create(...args) as AnyQb;
      alter(qb);
      return qb;
    },
  });
  return fork;
}

function shadow(qb: AnyQb, name: string, value: unknown): void {
  Object.defineProperty(qb, name, { value, configurable: true });
}

/** Each row: a simulated MikroORM change, and words the refusal must contain. */
const MISMATCHES: readonly { name: string; alter: (qb: AnyQb) => void; says: string }[] = [
  {
    name: 'QueryBuilder.getConnection() renamed',
    alter: (qb) => shadow(qb, 'getConnection', undefined),
    says: 'getConnection',
  },
  { name: 'QueryBuilder.toQuery() removed', alter: (qb) => shadow(qb, 'toQuery', undefined), says: 'toQuery' },
  {
    name: 'a connection method listql calls removed',
    alter: (qb) => {
      const connection = (qb as any).getConnection();
      shadow(qb, 'getConnection', () => Object.create(connection, { executeQuery: { value: undefined } }));
    },
    says: 'executeQuery',
  },
  { name: 'QueryBuilder state moved', alter: (qb) => shadow(qb, 'state', undefined), says: 'state' },
  {
    name: 'values inlined at compile time',
    alter: (qb) => {
      const toQuery = (qb as any).toQuery.bind(qb);
      const platform = (qb as any).platform;
      shadow(qb, 'toQuery', () => {
        const q = toQuery();
        return { sql: platform.formatQuery(q.sql, q.params), params: [] };
      });
    },
    says: 'values',
  },
  {
    name: 'numbered placeholders instead of ?',
    alter: (qb) => {
      const toQuery = (qb as any).toQuery.bind(qb);
      shadow(qb, 'toQuery', () => {
        const q = toQuery();
        let n = 0;
        return { sql: q.sql.replace(/\?\?|\?/g, (m: string) => (m === '??' ? m : `:${++n}`)), params: q.params };
      });
    },
    says: 'placeholder',
  },
];

/** A builder whose execute() goes around getConnection() and sends MikroORM's inlined SQL itself. */
function bypassing(qb: AnyQb): AnyQb {
  const proto = Object.create(Object.getPrototypeOf(qb), {
    execute: {
      value(this: any) {
        const q = this.toQuery();
        return this.driver.getConnection('read').execute(this.platform.formatQuery(q.sql, q.params), []);
      },
    },
  });
  return Object.setPrototypeOf(qb, proto);
}

eachDialect('MikroORM compatibility fences', { entities: walkEntities, seed: seedWalk }, (test, dialect) => {
  test('every check passes on the installed MikroORM, for every fixture entity', ({ em }) => {
    for (const entity of [Entry, Team, Tag, Cell] as (new () => object)[])
      assert.is(boundExecutionProblem(em, em.getMetadata().get(entity)), undefined, entity.name);
    assert.type(
      createEngine(em, { policy: entryPolicy }).from((em as any).createQueryBuilder(Entry, 'e')).list,
      'function',
    );
  });

  for (const row of MISMATCHES)
    test(`createEngine refuses when ${row.name}, running nothing`, async ({ em }) => {
      const fork = forkWith(em, row.alter);
      const { result, calls } = await captureDriver(async () => {
        try {
          createEngine(fork, { policy: entryPolicy });
          return undefined;
        } catch (err) {
          return err;
        }
      });
      assert.ok(isListError(result), `${dialect}: expected a ListError, got ${String(result)}`);
      assert.is(result.code, 'invalid_schema');
      assert.match(result.message, 'refuses to run rather than inline values');
      assert.match(result.message, row.says);
      assert.is(calls.length, 0);
    });

  test('a builder that runs its SQL around the bound path is refused before any statement', async ({ em }) => {
    for (const run of [executeOwned, executeCountOwned] as const) {
      const qb = bypassing((em as any).createQueryBuilder(Entry, 'e').where({ label: "x' or 1=1 --" }));
      const { result, calls } = await captureDriver(() => (run as (q: AnyQb) => Promise<unknown>)(qb).catch((e) => e));
      assert.ok(isListError(result), `${run.name}: expected a ListError`);
      assert.is(result.code, 'execution_failed');
      assert.match(String((result.cause as Error).message), 'did not run its SQL through connection.execute()');
      // At most the probe's own statement, which holds no client value, reaches the database.
      const sent = calls.filter((c) => c.sql.includes('walk_entry'));
      assert.ok(sent.length <= 1 && sent.every((c) => c.sql.includes('1 = 0')), `${run.name}: ${JSON.stringify(sent)}`);
      assert.not.ok(JSON.stringify(calls).includes('1=1'), `${run.name}: the client value reached the database`);
    }
  });

  test('execute() without an engine makes the same checks as createEngine, once per builder class', async ({ em }) => {
    for (const row of MISMATCHES) {
      const fork = forkWith(em, row.alter);
      const qb = (fork as any).createQueryBuilder(Entry, 'e').where({ label: "x' or 1=1 --" }) as AnyQb;
      // A class of its own, as another MikroORM copy would be: the checks run for it.
      Object.setPrototypeOf(qb, Object.create(Object.getPrototypeOf(qb)));
      const { result, calls } = await captureDriver(() => executeOwned(qb).catch((e) => e));
      assert.ok(isListError(result), `${row.name}: expected a ListError`);
      assert.is(result.code, 'execution_failed', row.name);
      assert.match(String((result.cause as Error).message), row.says);
      assert.is(calls.length, 0, `${row.name}: statements sent`);
    }
  });

  test('a builder that calls an unrouted connection method is refused before any statement', async ({ em }) => {
    const qb = (em as any).createQueryBuilder(Entry, 'e') as AnyQb;
    const proto = Object.create(Object.getPrototypeOf(qb), {
      execute: {
        value(this: any) {
          const q = this.toQuery();
          return this.getConnection().executeRaw(q.sql, q.params);
        },
      },
    });
    Object.setPrototypeOf(qb, proto);
    const { result, calls } = await captureDriver(() => executeOwned(qb).catch((e) => e));
    assert.ok(isListError(result));
    assert.is(result.code, 'execution_failed');
    assert.match(String((result.cause as Error).message), 'connection.executeRaw');
    assert.is(calls.filter((c) => c.sql.includes('walk_entry')).length, 0);
  });

  test('the item writer is trusted after agreeing with serialize() on its first page', async ({ em }) => {
    const meta = em.getMetadata().get(Entry);
    const compiled = compileItemWriter(em, meta);
    assert.ok(compiled, 'the fixture entity has a fast path');
    const rows = await execute<Row>((em as any).createQueryBuilder(Entry, 'e').orderBy({ id: 'asc' }));
    const reference = (r: readonly Row[]) => serializeRows(em, Entry, entityRows(r, meta));
    const writer = checkedItemWriter(compiled, reference);
    assert.is(writer.state, 'unchecked');
    assert.equal(writer([]), []);
    assert.is(writer.state, 'unchecked', 'an empty page proves nothing');
    assert.equal(writer(rows), reference(rows));
    assert.is(writer.state, 'trusted');
  });

  const DRIFTS: readonly { name: string; drift: (item: Row) => Row }[] = [
    { name: 'a value', drift: (item) => ({ ...item, title: `${String(item.title)}!` }) },
    { name: 'the key order', drift: (item) => Object.fromEntries(Object.entries(item).reverse()) },
    { name: 'an extra key', drift: (item) => ({ ...item, tenant: 1 }) },
  ];
  for (const { name, drift } of DRIFTS)
    test(`an item writer that differs from serialize() in ${name} is set aside`, async ({ em }) => {
      const meta = em.getMetadata().get(Entry);
      const compiled = compileItemWriter(em, meta)!;
      const wrong = (r: readonly Row[]) => compiled(r)?.map(drift);
      const rows = await execute<Row>((em as any).createQueryBuilder(Entry, 'e').orderBy({ id: 'asc' }));
      const reference = (r: readonly Row[]) => serializeRows(em, Entry, entityRows(r, meta));
      const writer = checkedItemWriter(wrong, reference);
      assert.equal(writer(rows), reference(rows), 'the first page comes from serialize()');
      assert.is(writer.state, 'declined');
      assert.is(writer(rows), undefined, 'later pages go to hydration');
    });
});
