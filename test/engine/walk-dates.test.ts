/**
 * The export's items, dates above all, equal what the cold path gives for the same rows, on every dialect: items()
 * over datetimes with and without fractions (0, 3 and 6 digits, a TIMESTAMP(6)), NULLs, decimals, floats, JSON and
 * bigints gives, value for value, type for type and key for key, what list() gives and what MikroORM's own find() and
 * serialize() give, and a walk sorted by dates follows its cursors to the rows list() orders alike; items are plain
 * objects. On MariaDB the prepared statements read DATETIME and TIMESTAMP values as bytes and write mysql2's text
 * themselves (dialect/mysql/date-bytes.ts), or the Date the row writer reads from it for rows only it reads: their
 * rows, zero dates and zeros in a date included, equal the text protocol's rows (MikroORM's own qb.execute()) where
 * text is asked for. (PostgreSQL's zoned timestamp text: test/dialect/pg-date-text.test.ts.)
 */
import { isDeepStrictEqual } from 'node:util';
import { type EntityManager, EntitySchema, serialize } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { executeOwned } from '../../src/engine/execute.ts';
import { createEngine } from '../../src/engine/index.ts';
import { schema, sortable } from '../../src/policy/index.ts';
import { eachDialect } from '../helpers/db.ts';

class Stamped {
  id!: number;
  at!: Date;
  at3?: Date | null;
  at6?: Date | null;
  stamp?: Date | null;
  amount?: string | null;
  ratio?: number | null;
  big?: bigint | null;
  data?: unknown;
}

const StampedSchema = new EntitySchema<Stamped>({
  class: Stamped,
  tableName: 'stamped',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    at: { type: 'datetime' },
    at3: { type: 'datetime', length: 3, nullable: true },
    at6: { type: 'datetime', length: 6, nullable: true },
    stamp: { type: 'datetime', columnType: 'timestamp(6)', nullable: true },
    amount: { type: 'decimal', precision: 20, scale: 6, nullable: true },
    ratio: { type: 'float', nullable: true },
    big: { type: 'bigint', nullable: true },
    data: { type: 'json', nullable: true },
  },
});

/** Rows the way a server stores them at odd places: zero dates and zeros inside dates (MariaDB without strict modes). */
class Odd {
  id!: number;
  at?: string | null;
  at3?: string | null;
  at6?: string | null;
  stamp?: string | null;
}

const OddSchema = new EntitySchema<Odd>({
  class: Odd,
  tableName: 'odd',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    // Text columns on every database; MariaDB's test makes them DATETIME and TIMESTAMP columns.
    at: { type: 'string', columnType: 'varchar(40)', nullable: true },
    at3: { type: 'string', columnType: 'varchar(40)', nullable: true },
    at6: { type: 'string', columnType: 'varchar(40)', nullable: true },
    stamp: { type: 'string', columnType: 'varchar(40)', nullable: true },
  },
});

const ROWS = 23;

async function seed(em: EntityManager): Promise<void> {
  const base = Date.UTC(2024, 0, 15, 10, 0, 0);
  for (let i = 1; i <= ROWS; i++)
    em.create(Stamped, {
      id: i,
      at: new Date(base + i * 1000),
      // Whole seconds, whole hundredths and every millisecond digit; a NULL every fifth row.
      at3: i % 5 === 0 ? null : new Date(base + i * (i % 2 ? 1000 : 120) + (i % 3 ? 7 : 0)),
      at6: i % 4 === 0 ? null : new Date(base - i * 86_400_000 + (i % 3) * 250),
      stamp: i % 6 === 0 ? null : new Date(base + i * 3_600_000 + i),
      amount: i % 7 === 0 ? null : `${i}.${String(i * 1234).padStart(6, '0')}`,
      ratio: i % 8 === 0 ? null : i / 10,
      big: i % 9 === 0 ? null : BigInt(i) * 1_000_000_007n,
      data: i % 3 === 0 ? null : { i, list: [i, 'x'] },
    });
  await em.flush();
  em.clear();
}

// Items carry every property; the policy only says which ones a client may sort on.
const policy = schema(Stamped).expose('id', sortable());

/** Equal value for value and type for type, with the same keys in the same order, and plain objects. */
function assertSameItems(actual: readonly Record<string, unknown>[], expected: readonly object[], what: string): void {
  assert.is(actual.length, expected.length, `${what}: how many`);
  actual.forEach((item, i) => {
    assert.is(Object.getPrototypeOf(item), Object.prototype, `${what}: item ${i} is a plain object`);
    assert.equal(Object.keys(item), Object.keys(expected[i]!), `${what}: keys of item ${i}`);
    assert.ok(isDeepStrictEqual(item, expected[i]), `${what}: item ${i} ${JSON.stringify(item)}`);
  });
}

async function all(items: AsyncIterable<Record<string, unknown>>): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const item of items) out.push(item);
  return out;
}

eachDialect('export items equal the cold path', { entities: [StampedSchema, OddSchema], seed }, (test, dialect) => {
  const scoped = (em: EntityManager) =>
    createEngine(em, { policy, maxLimit: 100 }).from((em.fork() as any).createQueryBuilder(Stamped, 's'));

  test('items() gives what list() and find() with serialize() give, over several pages', async ({ em }) => {
    const listed = (await scoped(em).list({ sort: 'id', limit: '100' })).items;
    const found = serialize(await em.fork().find(Stamped, {}, { orderBy: { id: 'asc' } }));
    assert.ok(listed.some((i) => i.at3 === null) && listed.some((i) => i.at6 instanceof Date));
    assertSameItems(listed, found, 'list() against find()');
    for (const pageSize of [7, 5000]) {
      const walked = await all(scoped(em).items({ sort: 'id' }, {}, { pageSize }));
      assertSameItems(walked, found, `items(), pages of ${pageSize}`);
    }
  });

  test('a walk sorted by dates follows its cursors to the rows list() orders alike', async ({ em }) => {
    const sorted = schema(Stamped).expose('id', sortable()).expose('at3', sortable()).expose('at6', sortable());
    const engine = createEngine(em, { policy: sorted, maxLimit: 100 }).from(
      (em.fork() as any).createQueryBuilder(Stamped, 's'),
    );
    for (const sort of ['-at6,id', 'at3,-id']) {
      const listed = (await engine.list({ sort, limit: '100' })).items;
      assert.is(listed.length, ROWS);
      for (const pageSize of [3, 5000])
        assertSameItems(await all(engine.items({ sort }, {}, { pageSize })), listed, `items(), ${sort}, ${pageSize}`);
    }
  });

  test('the same items walked twice (a trusted row layout gives what its checked first page gave)', async ({ em }) => {
    const first = await all(scoped(em).items({}, {}, { pageSize: 4 }));
    const second = await all(scoped(em).items({}, {}, { pageSize: 4 }));
    assertSameItems(second, first, 'second walk');
  });

  if (dialect === 'mariadb')
    test('prepared rows of DATETIME and TIMESTAMP columns equal the text protocol, odd values included', async ({
      em,
    }) => {
      const connection = em.getConnection();
      await connection.execute(
        'alter table odd modify at datetime null, modify at3 datetime(3) null, modify at6 datetime(6) null, modify stamp timestamp(6) null default null',
      );
      // Without NO_ZERO_DATE and NO_ZERO_IN_DATE the server keeps zero dates and zeros inside a date.
      const values = [
        "(1, '2024-01-15 10:00:00', '2024-01-15 10:00:00.120', '2024-01-15 10:00:00.000001', '2024-01-15 10:00:00')",
        "(2, '0000-00-00 00:00:00', '0000-00-00 00:00:00.000', '2020-00-10 01:02:03.5', '0000-00-00 00:00:00')",
        "(3, '2020-02-00 00:00:00', '2021-00-00 23:59:59.999', '0999-12-31 23:59:59.999999', null)",
        "(4, null, null, null, '2038-01-19 03:14:07.999999')",
        "(5, '1000-01-01 00:00:00', '9999-12-31 23:59:59.999', '1970-01-01 00:00:00', '1970-01-01 00:00:01')",
      ];
      await connection.execute(`set statement sql_mode = '' for insert into odd values ${values.join(', ')}`);
      const qb = () => (em.fork() as any).createQueryBuilder(Odd, 'o').orderBy({ id: 'asc' });
      for (const mapped of [false, true]) {
        const prepared = await executeOwned(qb(), undefined, mapped);
        assert.is(prepared.length, values.length);
        assert.equal(prepared, await qb().execute('all', mapped), mapped ? 'mapped rows' : 'driver rows');
      }
      const first = (await executeOwned<Odd>(qb(), undefined, true))[0]!;
      assert.equal(
        [first.at, first.at3, first.at6],
        ['2024-01-15 10:00:00', '2024-01-15 10:00:00.120', '2024-01-15 10:00:00.000001'],
      );
      // A string property on a DATETIME column stays text in items too.
      const items = await all(
        createEngine(em, { policy: schema(Odd).expose('id', sortable()), maxLimit: 100 })
          .from((em.fork() as any).createQueryBuilder(Odd, 'o'))
          .items({}, {}, { pageSize: 2 }),
      );
      assert.equal(items, serialize(await em.fork().find(Odd, {}, { orderBy: { id: 'asc' } })));
    });
});
