/**
 * items() as a stream: exactly the rows of the plain ordered result (the oracle's), for random filters and sorts
 * over nullable keys and random page sizes; rows inserted and deleted while the consumer drains a page (which, on
 * PostgreSQL and MariaDB, is when items() reads the next page ahead) never disturb the rows present for the whole
 * walk; and the walk behaves as an async generator does (queued calls, early exit, one rejection then done).
 */
import type { EntityManager } from '@mikro-orm/core';
import fc from 'fast-check';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { catalogEntities, Product } from '../fixtures/catalog.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { shapeFor } from '../oracle/arbitraries.ts';
import { budget, check, SEED } from '../oracle/budget.ts';
import { generateProducts, loadProducts, productPolicy, productSpec } from '../oracle/catalog.ts';
import type { Row } from '../oracle/model.ts';
import { expectedRows, requestArb, requestValues, toQueryString } from '../oracle/request.ts';
import { dbModelFor } from '../oracle/values.ts';

const ROWS = generateProducts(SEED, 80);
const WALKS = budget(60);
const TEMP_BASE = 1_000_000;
const TEMP_LIMIT = 2_000_000_000;

async function ids(items: AsyncIterable<Record<string, unknown>>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of items) out.push(item['id']);
  return out;
}

eachDialect(
  'items() as a stream',
  { entities: catalogEntities, seed: (em) => loadProducts(em, ROWS) },
  (test, dialect) => {
    const model = { softDelete: false, db: dbModelFor(dialect) };
    const engineOf = (em: EntityManager) => createEngine(em, { policy: productPolicy, maxLimit: 100 });
    const scoped = (em: EntityManager) => engineOf(em).from((em.fork() as any).createQueryBuilder(Product, 'p'));
    const readsAhead = dialect !== 'sqlite';

    test(`${WALKS} random walks give exactly the ordered result, whatever the page size`, async ({ em }) => {
      const arb = fc.tuple(
        requestArb(productSpec, { depth: 2, hops: 0, quantifiers: 0, ...shapeFor(model.db) }, 0),
        fc.integer({ min: 1, max: 12 }),
      );
      await check(arb, WALKS, async ([r, pageSize]) => {
        const { limit: _limit, ...query } = requestValues(r, { offset: false });
        const got = await ids(scoped(em).items(query, {}, { pageSize }));
        const want = expectedRows(productSpec, ROWS, r, model).map((row) => row['id']);
        assert.equal(got, want, `${toQueryString(query)} pageSize ${pageSize}`);
      });
    });

    test(`${WALKS} walks with rows inserted and deleted as items arrive skip no stable row and repeat none`, async ({
      db,
    }) => {
      let nextId = TEMP_BASE;
      const arb = fc.tuple(
        requestArb(productSpec, { depth: 2, hops: 0, quantifiers: 0, ...shapeFor(model.db) }, 0),
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.record({ at: fc.nat({ max: 60 }), insert: fc.nat({ max: 5 }), remove: fc.nat({ max: 3 }) }), {
          maxLength: 6,
        }),
        fc.integer(),
      );
      await check(arb, WALKS, async ([r, pageSize, steps, seed]) => {
        const fresh = (n: number, salt: number): Row[] =>
          generateProducts(seed ^ salt, n).map((row) => ({ ...row, id: nextId++ }));
        const live: Row[] = [];
        const everExisted = new Set<unknown>(ROWS.map((row) => row['id']));
        const { limit: _limit, ...query } = requestValues(r, { offset: false });
        const got: unknown[] = [];
        try {
          for await (const item of scoped(db.orm.em.fork()).items(query, {}, { pageSize })) {
            got.push(item['id']);
            // Change the data at chosen items, in the middle of a page as much as at its end.
            for (const [i, step] of steps.entries()) {
              if (step.at !== got.length) continue;
              const added = fresh(step.insert, i + 1);
              for (const row of added) everExisted.add(row['id']);
              await loadProducts(db.orm.em.fork(), added);
              live.push(...added);
              const gone = live.splice(0, step.remove);
              if (gone.length)
                await db.orm.em.fork().nativeDelete(Product, { id: { $in: gone.map((row) => row['id'] as number) } });
            }
          }
          const tag = `${toQueryString(query)} pageSize ${pageSize}`;
          assert.is(new Set(got).size, got.length, `${tag}: an item appeared twice`);
          for (const id of got) assert.ok(everExisted.has(id), `${tag}: unknown item ${String(id)}`);
          const want = expectedRows(productSpec, ROWS, r, model).map((row) => row['id']);
          const wanted = new Set<unknown>(want);
          assert.equal(
            got.filter((id) => wanted.has(id)),
            want,
            `${tag}: stable rows skipped or out of order`,
          );
        } finally {
          await db.orm.em.fork().nativeDelete(Product, { id: { $gte: TEMP_BASE, $lt: TEMP_LIMIT } });
        }
      });
    });

    test('a page is read ahead only where the database is across a network, and only one', async ({ em }) => {
      const { result, calls } = await captureDriver(async () => {
        const seen: unknown[] = [];
        for await (const item of scoped(em).items({ sort: 'id' }, {}, { pageSize: 10 })) {
          seen.push(item['id']);
          if (seen.length === 15) break;
        }
        return seen;
      });
      const want = [...ROWS].sort((a, b) => (a['id'] as number) - (b['id'] as number)).map((row) => row['id']);
      assert.equal(result, want.slice(0, 15));
      // Two pages were asked for; the third is read ahead on PostgreSQL and MariaDB, never a fourth.
      assert.is(calls.length, readsAhead ? 3 : 2);
      // pages() never reads ahead: its consumer asks for every page.
      const paged = await captureDriver(async () => {
        for await (const page of scoped(em).pages({ sort: 'id' }, {}, { pageSize: 10 })) if (page.items.length) break;
      });
      assert.is(paged.calls.length, 1);
    });

    test('queued next() calls are answered in order, and return() ends the walk', async ({ em }) => {
      const walk = scoped(em).items({ sort: 'id' }, {}, { pageSize: 3 });
      const first = await Promise.all(Array.from({ length: 8 }, () => walk.next()));
      const want = [...ROWS].sort((a, b) => (a['id'] as number) - (b['id'] as number)).map((row) => row['id']);
      assert.equal(
        first.map((step) => (step.done ? 'done' : step.value['id'])),
        want.slice(0, 8),
      );
      assert.equal(await walk.return(undefined), { done: true, value: undefined });
      assert.equal(await walk.next(), { done: true, value: undefined });
      // throw() closes the walk and rejects with what it was given, as a generator does.
      const other = scoped(em).items({ sort: 'id' }, {}, { pageSize: 3 });
      await other.next();
      const err = new Error('stop');
      try {
        await other.throw(err);
        assert.unreachable('throw() resolved');
      } catch (caught) {
        assert.is(caught, err);
      }
      assert.equal(await other.next(), { done: true, value: undefined });
    });

    test('a failing page rejects once, then the walk is done', async ({ db }) => {
      const em = db.orm.em.fork();
      const table = em.getMetadata().get(Product).tableName;
      const conn = em.getConnection();
      const rename = (from: string, to: string) =>
        conn.execute(dialect === 'mariadb' ? `rename table ${from} to ${to}` : `alter table ${from} rename to ${to}`);
      const walk = scoped(em).items({ sort: 'id' }, {}, { pageSize: 5 });
      const got: unknown[] = [];
      let failure: unknown;
      try {
        for (;;) {
          const step = await walk.next();
          if (step.done) break;
          got.push(step.value['id']);
          if (got.length === 1) await rename(table, `${table}_away`);
        }
      } catch (err) {
        failure = err;
      } finally {
        await rename(`${table}_away`, table);
      }
      assert.ok(isListError(failure), String(failure));
      // The first page; on PostgreSQL and MariaDB also the page read ahead if its query ran before the rename.
      const want = [...ROWS].sort((a, b) => (a['id'] as number) - (b['id'] as number)).map((row) => row['id']);
      assert.equal(got, want.slice(0, got.length));
      assert.ok(readsAhead ? got.length === 5 || got.length === 10 : got.length === 5, `${got.length} items`);
      assert.equal(await walk.next(), { done: true, value: undefined });
    });
  },
);
