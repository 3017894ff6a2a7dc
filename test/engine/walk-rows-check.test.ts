/**
 * The engine's use of the row writer: a walk writes every page's items from the driver's rows (one check against
 * serialize() for the whole walk, no hydration after it) and they equal the mapped path's; a row writer that
 * disagrees with MikroORM's own mapping and serialize() is set aside for that layout and every later page takes the
 * mapped path (forced here by a result mapper that answers differently); rows whose columns the mapper would treat
 * otherwise are left to the mapped path. On every dialect.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { executeOwned } from '../../src/engine/execute.ts';
import { createEngine } from '../../src/engine/index.ts';
import { type Item, serializeRows } from '../../src/engine/serialize.ts';
import { compileRowWriter, mapDriverRows } from '../../src/orm/row-writer.ts';
import { checkedRowWriter, entityRows } from '../../src/orm/writer-check.ts';
import { schema, sortable } from '../../src/policy/index.ts';
import { Device, rowEntities, seedRows } from '../fixtures/rows.ts';
import { ENTRIES, Entry, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { countCalls } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

const devicePolicy = schema(Device).expose('id', sortable()).expose('name');

/** Count em.fork() calls (hydration and the writers' checks fork once per page they serialize). */
function countForks(em: EntityManager): () => number {
  let forks = 0;
  const fork = em.fork.bind(em);
  Object.defineProperty(em, 'fork', {
    value: (...args: Parameters<EntityManager['fork']>) => {
      forks++;
      return fork(...args);
    },
    configurable: true,
  });
  return () => forks;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of iterable) out.push(x);
  return out;
}

/** Count the rows MikroORM's result mapper maps (the mapped path maps every row it reads). */
function countMapped(em: EntityManager): { count: () => number; restore: () => void } {
  return countCalls(em.getDriver(), 'mapResult');
}

/** What the mapped path gives for every row of an entity, in primary-key order, filters applied. */
async function mappedItems(em: EntityManager, entity: typeof Device | typeof Entry, pk: string): Promise<Item[]> {
  const qb = (em as any).createQueryBuilder(entity, 'x');
  await qb.applyFilters({});
  return serializeRows(em, entity, await executeOwned<Item>(qb.orderBy({ [pk]: 'asc' })));
}

eachDialect('walk rows: engine', { entities: [...rowEntities, ...walkEntities], seed: seedBoth }, (test) => {
  test('items() writes every page from driver rows after one check, equal to the mapped path', async ({ em }) => {
    for (const [entity, policy, pk] of [
      [Device, devicePolicy, 'id'],
      [Entry, entryPolicy, 'id'],
    ] as const) {
      const forks = countForks(em);
      const mapper = countMapped(em);
      const engine = createEngine(em, { policy: policy as never, maxLimit: 10 });
      const scoped = engine.from((em as any).createQueryBuilder(entity, 'x'));
      const items = await collect(scoped.items({}, {}, { pageSize: 2 })).finally(mapper.restore);
      assert.ok(items.length >= 4, 'several pages');
      assert.is(forks(), 1, `${entity.name}: only the first page is serialized by MikroORM too`);
      assert.is(mapper.count(), 2, `${entity.name}: MikroORM maps only the first page's two rows (the check)`);
      const expected = await mappedItems(em, entity, pk);
      assert.equal(items, expected, entity.name);
      for (const [i, item] of items.entries()) assert.equal(Object.keys(item), Object.keys(expected[i]!));
    }
    assert.is((await mappedItems(em, Entry, 'id')).length, ENTRIES.filter((e) => !e.deleted).length);
  });

  test('a row writer that disagrees with MikroORM is set aside: every page takes the mapped path', async ({ em }) => {
    const driver = em.getDriver() as unknown as { mapResult: (row: unknown, meta: unknown) => Item | null };
    const own = Object.getOwnPropertyDescriptor(driver, 'mapResult');
    const original = driver.mapResult;
    // A MikroORM whose mapping differs from what the row writer folds in: names get a mark.
    driver.mapResult = function (this: unknown, row, meta) {
      const mapped = original.call(this, row, meta);
      if (mapped && typeof mapped.name === 'string') mapped.name = `${mapped.name}*`;
      return mapped;
    };
    try {
      const engine = createEngine(em, { policy: devicePolicy, maxLimit: 10 });
      const items = await collect(
        engine.from((em as any).createQueryBuilder(Device, 'x')).items({}, {}, { pageSize: 2 }),
      );
      assert.is(items.length, 4);
      // The first page answered by MikroORM's mapping and serialize(), the later ones by the mapped path.
      assert.equal(
        items.map((i) => i.name),
        ['<d1*>', '<d2*>', '<d3*>', '<d4*>'],
      );
    } finally {
      if (own) Object.defineProperty(driver, 'mapResult', own);
      else delete (driver as { mapResult?: unknown }).mapResult;
    }
    const engine = createEngine(em, { policy: devicePolicy, maxLimit: 10 });
    const names = (await engine.from((em as any).createQueryBuilder(Device, 'x')).list({})).items.map((i) => i.name);
    assert.equal(names, ['<d1>', '<d2>', '<d3>', '<d4>'], 'a new engine checks again and trusts the writer');
  });

  test('the check sets a disagreeing layout aside for good, and checks each layout on its own', async ({ em }) => {
    const meta = em.getMetadata().get(Device);
    const rows = compileRowWriter(em, meta)!;
    const reference = (raw: readonly Item[]) =>
      serializeRows(em, Device, entityRows(mapDriverRows(em, meta, raw), meta));
    const drifting = {
      layout: (row: Item) => {
        const layout = rows.layout(row);
        if (!layout) return undefined;
        const write = (page: readonly Item[]) => layout.write(page)?.map((item) => ({ ...item, extra: 1 }));
        return { key: layout.key, write };
      },
    };
    const all = await executeOwned<Item>(
      (em as any).createQueryBuilder(Device, 'x').orderBy({ id: 'asc' }),
      undefined,
      false,
    );
    const some = await executeOwned<Item>(
      (em as any).createQueryBuilder(Device, 'x').select(['id', 'on']).orderBy({ id: 'asc' }),
      undefined,
      false,
    );
    const wrong = checkedRowWriter(drifting, reference);
    assert.equal(wrong(all), reference(all), 'the first page comes from MikroORM');
    assert.is(wrong(all), undefined, 'later pages of the layout take the mapped path');
    assert.equal([...wrong.states.values()], ['declined']);
    const right = checkedRowWriter(rows, reference);
    assert.equal(right(all), reference(all));
    assert.equal(right(some), reference(some));
    assert.equal([...right.states.values()], ['trusted', 'trusted'], 'two layouts, each checked');
    assert.equal(right([]), []);
  });

  test('rows with a column the result mapper would pass through or put in a collection are left to it', async ({
    em,
  }) => {
    const meta = em.getMetadata().get(Entry);
    const writer = compileRowWriter(em, meta)!;
    const [row] = await executeOwned<Item>(
      (em as any).createQueryBuilder(Entry, 'e').orderBy({ id: 'asc' }),
      undefined,
      false,
    );
    assert.ok(writer.layout(row!), 'plain rows have a layout');
    // `label` is a property whose column is label_text: the mapper would pass this column through under that name.
    assert.is(writer.layout({ ...row, label: 'x' }), undefined);
    assert.is(writer.layout({ ...row, tags: [] }), undefined, 'a collection');
    assert.ok(writer.layout({ ...row, lq_k0: 1 }), "listql's own key columns are ignored");
    const partial = { ...row };
    delete partial.tenant_key;
    assert.ok(writer.layout(partial), 'a missing column is left out of the item, as em.map() leaves it');
  });
});

async function seedBoth(em: EntityManager): Promise<void> {
  await seedRows(em);
  await seedWalk(em);
}
