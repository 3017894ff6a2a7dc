/**
 * Sorts of NOT NULL keys in mixed directions (`price,-createdAt`, then the primary key). On PostgreSQL and SQLite a
 * page after a cursor is the UNION ALL of the cursor's leading group and the rows after it; on MariaDB it stays one
 * predicate. Walked forward and backward at several page sizes over many duplicates, against the database's own
 * ORDER BY … LIMIT/OFFSET of the same order. test/keyset/keyset.test.ts checks the two branches against the plain
 * predicate, row for row, from every position.
 */
import { type EntityManager, EntitySchema } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { dialectFor } from '../../src/dialect/index.ts';
import { createEngine, type ScopedEngine } from '../../src/engine/index.ts';
import { leadingGroupBranches } from '../../src/keyset/seek-predicate.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { walk, walkBack } from '../helpers/walk.ts';

class Item {
  id!: number;
  price!: number;
  created!: number;
  label!: string;
}

const ItemSchema = new EntitySchema<Item>({
  class: Item,
  tableName: 'mixed_item',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    price: { type: 'integer', fieldName: 'price_value' },
    created: { type: 'integer', fieldName: 'created_value' },
    label: { type: 'string' },
  },
});

/** 120 rows: 5 prices (24 rows each), 8 creation values within a price (3 rows each), labels repeating. */
const ROWS = Array.from({ length: 120 }, (_, i) => ({
  id: ((i * 37) % 120) + 1,
  price: (i * 7) % 5,
  created: (i * 11) % 8,
  label: ['b', 'a', 'c'][i % 3]!,
}));

async function seed(em: EntityManager): Promise<void> {
  for (const row of ROWS) em.create(Item, row);
  await em.flush();
}

const policy = schema(Item)
  .expose('id', sortable())
  .expose('price', filterable(), sortable())
  .expose('created', sortable())
  .expose('label', sortable());

/**
 * Sorts of mixed directions (three keyset units or more), and three that are not: `-price,created` is two units
 * (`price < ?`, then the row value `(created, id) > (?, ?)`), `price,created` one, `-price` two.
 */
const SORTS = [
  'price,-created',
  '-price,created',
  'price,-created,label',
  '-label,price,-id',
  'price,created',
  '-price',
];
const SPLIT = new Set(['price,-created', 'price,-created,label', '-label,price,-id']);

const COLUMNS: Record<string, string> = { id: 'id', price: 'price_value', created: 'created_value', label: 'label' };

/** The oracle: the database's ORDER BY of the same effective order (primary key last, ascending unless named). */
function orderSql(sort: string): string {
  const terms = sort.split(',').map((t) => (t.startsWith('-') ? `${COLUMNS[t.slice(1)]} desc` : `${COLUMNS[t]} asc`));
  if (!sort.split(',').some((t) => t.replace('-', '') === 'id')) terms.push('id asc');
  return terms.join(', ');
}

eachDialect('keyset: mixed-direction sorts seek by their leading group', { entities: [ItemSchema], seed }, (test) => {
  const scopedOf = (em: EntityManager): ScopedEngine =>
    createEngine(em, { policy, maxLimit: 50 }).from((em as any).createQueryBuilder(Item, 'i'));

  for (const sort of SORTS) {
    test(`sort=${sort}: forward and backward walks equal ORDER BY … LIMIT/OFFSET`, async ({ db, em }) => {
      // Labels hold ASCII letters only: every database orders them alike.
      const oracle = (await db.orm.em
        .getConnection()
        .execute(`select id from mixed_item order by ${orderSql(sort)}`)) as { id: number }[];
      const expected = oracle.map((r) => Number(r.id));
      assert.is(expected.length, ROWS.length);
      const scoped = scopedOf(em);
      for (const size of [1, 4, 7, 23]) {
        const forward = await walk(scoped, { sort }, [size]);
        assert.equal(
          forward.items.map((i) => i.id),
          expected,
          `forward at page size ${size}`,
        );
        const last = forward.pages.at(-1)!;
        if (forward.pages.length < 2) continue;
        const back = await walkBack(scoped, { sort }, last.page.prevCursor!, [size]);
        assert.equal(
          back.items.map((i) => i.id),
          expected.slice(0, expected.indexOf(last.items[0]!.id as number)),
          `backward at page size ${size}`,
        );
      }
    });
  }

  test('every page of a walk equals ORDER BY … LIMIT ? OFFSET ? of its position', async ({ db, em }) => {
    const scoped = scopedOf(em);
    const connection = db.orm.em.getConnection();
    for (const sort of SORTS) {
      const forward = await walk(scoped, { sort }, [7]);
      for (const [j, page] of forward.pages.entries()) {
        const rows = (await connection.execute(
          `select id from mixed_item order by ${orderSql(sort)} limit ? offset ?`,
          [7, 7 * j],
        )) as { id: number }[];
        assert.equal(
          page.items.map((i) => i.id),
          rows.map((r) => Number(r.id)),
          `sort=${sort}, page ${j}`,
        );
      }
    }
  });

  for (const sort of SORTS) {
    test(`sort=${sort}: the statement after a cursor ${SPLIT.has(sort) ? 'is a UNION ALL on PostgreSQL and SQLite' : 'is one predicate'}, values bound`, async ({
      db,
      em,
    }) => {
      const dialect = dialectFor(db.orm.em.getPlatform());
      const scoped = scopedOf(em);
      const first = await scoped.list({ sort, limit: '10' });
      const { calls } = await captureDriver(() => scoped.list({ sort, limit: '10', cursor: first.page.nextCursor! }));
      const data = calls.filter((c) => c.sql.includes('mixed_item'));
      assert.is(data.length, 1);
      const unions = (data[0]!.sql.match(/union all/gi) ?? []).length;
      assert.is(unions, SPLIT.has(sort) && dialect.seeksMixedByUnion ? 1 : 0, data[0]!.sql);
      assert.is(dialect.seeksMixedByUnion, dialect.name !== 'mysql');
      const last = first.items.at(-1)!;
      assert.not.match(data[0]!.sql, new RegExp(`\\b${String(last.created)}\\b.*\\b${String(last.id)}\\b`));
      assert.ok(data[0]!.values.includes(last.id as never), JSON.stringify(data[0]!.values));
    });
  }
});

eachDialect('keyset: leading group branches', { entities: [ItemSchema] }, (test) => {
  test('two branches, the group first, or none when fewer than three units or a nullable lead', () => {
    const col = (sql: string, direction: 'asc' | 'desc', nullable = false) => ({ sql, direction, nullable });
    const branches = leadingGroupBranches([col('p', 'asc'), col('c', 'desc'), col('i', 'asc')], [5, 7, 9]);
    assert.equal(
      branches?.map((b) => [b.sql, b.params]),
      [
        ['(p = ? and (c <= ? and ((c < ?) or (c = ? and i > ?))))', [5, 7, 7, 7, 9]],
        ['(p > ?)', [5]],
      ],
    );
    assert.is(leadingGroupBranches([col('c', 'desc'), col('i', 'asc')], [7, 9]), undefined);
    assert.is(leadingGroupBranches([col('p', 'asc', true), col('c', 'desc'), col('i', 'asc')], [5, 7, 9]), undefined);
  });
});
