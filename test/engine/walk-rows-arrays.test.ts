/**
 * Rows read as arrays (dialect/array-rows.ts): the row writer's array layouts give, value for value and key for key,
 * the items its object layouts give for the same rows, whatever the columns' order, with listql's key columns among
 * them and a repeated column name (its last column counts, as in an object row); generated and interpreted. They
 * refuse what object layouts refuse. A statement guard that asks for arrays gets them where the executor reads them
 * so (SQLite) and objects elsewhere, and a shared prepared statement is left reading objects for the next caller. A
 * walk and list() of the same rows give the same items. On every dialect.
 */
import type { EntityManager, EntityMetadata } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { arrayRowColumns, arrayRowsGuard, asksArrayRows, objectRow } from '../../src/dialect/array-rows.ts';
import { statementGuard } from '../../src/dialect/index.ts';
import { executeOwned } from '../../src/engine/execute.ts';
import { createEngine } from '../../src/engine/index.ts';
import type { Item } from '../../src/engine/serialize.ts';
import { compileRowWriter } from '../../src/orm/row-writer.ts';
import { checkedRowWriter } from '../../src/orm/writer-check.ts';
import { catalogEntities, seedCatalog } from '../fixtures/catalog.ts';
import { KeyedSchema, seedKeyed } from '../fixtures/keys.ts';
import { rowEntities, seedRows } from '../fixtures/rows.ts';
import { ENTRIES, Entry, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { eachDialect } from '../helpers/db.ts';

const FIXTURES = [
  { name: 'keys', entities: [KeyedSchema], seed: seedKeyed },
  { name: 'rows', entities: rowEntities, seed: seedRows },
  { name: 'walk', entities: walkEntities, seed: seedWalk },
  { name: 'catalog', entities: catalogEntities, seed: seedCatalog },
] as const;

/** Object rows as arrays of `columns` (a column no row has reads as null); each value is the row's own. */
function asArrays(rows: readonly Item[], columns: readonly string[]): unknown[][] {
  return rows.map((row) => columns.map((c) => (c in row ? row[c] : null)));
}

/** The driver's rows of an entity in primary-key order, as objects (`execute('all', false)`). */
async function driverRows(em: EntityManager, meta: EntityMetadata): Promise<Item[]> {
  const qb = (em as any).createQueryBuilder(meta.class, 'x');
  return executeOwned<Item>(qb.orderBy(meta.primaryKeys.map((pk) => ({ [pk]: 'asc' }))), undefined, false);
}

function assertSameItems(fast: readonly Item[] | undefined, slow: readonly Item[] | undefined, label: string): void {
  assert.ok(fast && slow, `${label}: a writer declined`);
  assert.is(fast.length, slow.length, label);
  fast.forEach((item, i) => {
    assert.equal(Object.keys(item), Object.keys(slow[i]!), `${label}, row ${i}: keys`);
    assert.equal(item, slow[i], `${label}, row ${i}`);
  });
}

for (const fixture of FIXTURES) {
  eachDialect(`walk rows as arrays: ${fixture.name}`, { entities: fixture.entities, seed: fixture.seed }, (test) => {
    test('array layouts give the object layouts’ items, columns in any order, a repeated name read last', async ({
      em,
    }) => {
      let compared = 0;
      for (const entity of fixture.entities) {
        const meta = em.getMetadata().get(entity.meta.class);
        if (meta.embeddable || !compileRowWriter(em, meta)) continue;
        const rows = await driverRows(em, meta);
        if (rows.length === 0) continue;
        const names = Object.keys(rows[0]!);
        const orders = [
          [...names, 'lq_k0'],
          ['lq_k0', ...[...names].reverse()],
          // A repeated name: the earlier column holds junk, the last one the value.
          [names[0]!, ...names.slice(1), 'lq_k0', names[0]!],
        ];
        for (const generate of [true, false]) {
          const writer = compileRowWriter(em, meta, { generate })!;
          const expected = writer.layout(rows[0]!)?.write(rows.map((r) => ({ ...r })));
          for (const columns of orders) {
            const arrays = asArrays(rows, columns);
            if (columns.at(-1) === names[0] && columns[0] === names[0]) for (const row of arrays) row[0] = 'junk';
            const label = `${meta.className} ${generate ? 'generated' : 'interpreted'} [${columns.join(', ')}]`;
            assertSameItems(writer.arrayLayout?.(columns)?.write(arrays as unknown as Item[]), expected, label);
            assert.equal(
              arrays.map((row) => objectRow(row, columns)),
              rows.map((r) => ({ ...r, lq_k0: null })),
              `${label}: objectRow() gives the driver's object back`,
            );
          }
        }
        compared++;
      }
      assert.ok(compared > 0, 'the fixture has rows to compare');
    });
  });
}

eachDialect(
  'walk rows as arrays: refusals, executor, walk',
  { entities: walkEntities, seed: seedWalk },
  (test, dialect) => {
    test('array layouts refuse the columns object layouts refuse', async ({ em }) => {
      const meta = em.getMetadata().get(Entry);
      const writer = compileRowWriter(em, meta)!;
      const [row] = await driverRows(em, meta);
      const names = Object.keys(row!);
      assert.ok(writer.arrayLayout?.(names), 'plain columns have a layout');
      // `label` is a property whose column is label_text: the mapper would pass this column through under that name.
      assert.is(writer.arrayLayout?.([...names, 'label']), undefined);
      assert.is(writer.arrayLayout?.([...names, 'tags']), undefined, 'a collection');
      assert.ok(writer.arrayLayout?.(names.filter((n) => n !== 'tenant_key')), 'a missing column is left out');
    });

    test('the checked writer compares an array layout’s first page with MikroORM’s, then trusts it', async ({ em }) => {
      const meta = em.getMetadata().get(Entry);
      const rows = await driverRows(em, meta);
      const columns = [...Object.keys(rows[0]!)].reverse();
      let references = 0;
      const reference = (objects: readonly Item[]) => {
        references++;
        assert.ok(!Array.isArray(objects[0]), 'the reference reads objects');
        return compileRowWriter(em, meta)!.layout(objects[0]!)!.write(objects)!;
      };
      const checked = checkedRowWriter(compileRowWriter(em, meta)!, reference);
      const expected = reference(rows);
      assertSameItems(checked.arrays(asArrays(rows, columns), columns), expected, 'first page');
      assertSameItems(checked.arrays(asArrays(rows, columns), columns), expected, 'second page');
      assert.is(references, 2, 'one reference for the test, one for the first page');
      assert.equal([...checked.states.values()], ['trusted']);
      assert.equal(checked.arrays([], columns), []);
    });

    test('a guard asking for arrays gets them from SQLite only, and the statement reads objects after', async ({
      em,
    }) => {
      const qb = () => (em as any).createQueryBuilder(Entry, 'e').orderBy({ id: 'asc' });
      const guard = statementGuard({}, {});
      const asked = await executeOwned<Item>(qb(), arrayRowsGuard(guard, false), false);
      const columns = arrayRowColumns(asked);
      const plain = await executeOwned<Item>(qb(), guard, false);
      assert.is(arrayRowColumns(plain), undefined);
      assert.ok(!Array.isArray(plain[0]), 'the same statement gives objects to a guard that does not ask');
      if (dialect === 'sqlite') {
        assert.ok(columns && Array.isArray(asked[0]), 'SQLite reads rows as arrays');
        assert.equal(
          (asked as unknown as unknown[][]).map((row) => objectRow(row, columns)),
          plain,
        );
      } else {
        assert.is(columns, undefined);
        assert.equal(asked, plain, 'other executors give objects');
      }
      assert.ok(!asksArrayRows(guard), 'the request guard itself is not marked');
    });

    test('a walk of pages of two gives what list() gives, page after page', async ({ em }) => {
      const engine = createEngine(em, { policy: entryPolicy, maxLimit: 100 });
      const from = () => (em as any).createQueryBuilder(Entry, 'e');
      const walked: Item[] = [];
      for await (const item of engine.from(from()).items({ sort: 'id' }, {}, { pageSize: 2 })) walked.push(item);
      const listed = (await engine.from(from()).list({ sort: 'id', limit: String(ENTRIES.length) })).items;
      assert.ok(walked.length > 4, 'several pages');
      assertSameItems(walked, listed, 'items() and list()');
      const again: Item[] = [];
      for (let page = await engine.from(from()).list({ sort: 'id', limit: '3' }); ; ) {
        again.push(...page.items);
        if (!page.page.nextCursor) break;
        page = await engine.from(from()).list({ sort: 'id', limit: '3', cursor: page.page.nextCursor });
      }
      assertSameItems(again, listed, 'list() by cursor');
    });
  },
);
