/**
 * Full-precision cursor keys, on every dialect: walks over columns full of near-equal values never skip or repeat a
 * row, forward one row per page (every boundary falls between two near-equal values) and back by prevCursor. The
 * columns are the ones whose values a JavaScript number or Date cannot hold exactly: timestamps that differ by one
 * microsecond (PostgreSQL and MariaDB keep them; SQLite stores milliseconds), a TIMESTAMP (MariaDB) / timestamp
 * without time zone, signed bigints on both sides of 2^53 and at the ends of the 64-bit range, unsigned bigints
 * (MariaDB: up to 18446744073709551615), decimals that differ in their 20th significant digit, single-precision
 * floats one unit in the last place apart, booleans (MariaDB: TINYINT(1)) and an enum whose items are not in
 * alphabetical order (MariaDB: a native ENUM, which sorts by item position). Filter literals on them are exact too.
 */
import { type EntityManager, EntitySchema } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { dialectFor } from '../../src/dialect/index.ts';
import { createEngine, type ScopedEngine } from '../../src/engine/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';
import { walk, walkBack } from '../helpers/walk.ts';

class Precise {
  id!: number;
  at!: Date;
  stamp?: Date | null;
  big!: bigint;
  ubig!: bigint;
  price!: string;
  ratio?: number | null;
  flag!: boolean;
  level!: string;
}

const PreciseSchema = new EntitySchema<Precise>({
  class: Precise,
  tableName: 'precise',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    // PostgreSQL timestamptz(6), MariaDB DATETIME(6), SQLite epoch milliseconds.
    at: { type: 'datetime', length: 6 },
    // PostgreSQL timestamp(6) without time zone, MariaDB TIMESTAMP(6).
    stamp: { type: 'datetime', columnType: 'timestamp(6)', nullable: true },
    big: { type: 'bigint' },
    ubig: { type: 'bigint', unsigned: true },
    price: { type: 'decimal', precision: 30, scale: 10 },
    // Single precision: PostgreSQL real, MariaDB FLOAT (SQLite stores doubles).
    ratio: { type: 'float', nullable: true },
    flag: { type: 'boolean' },
    level: { enum: true, items: ['zeta', 'alpha', 'mid'], type: 'string' },
  },
});

const FIELDS = ['at', 'stamp', 'big', 'ubig', 'price', 'ratio', 'flag', 'level'] as const;
const policy = FIELDS.reduce((p, f) => p.expose(f, filterable(), sortable()), schema(Precise));

const ROWS = 48;
const TWO_53 = 2n ** 53n;
const INT64_MAX = 2n ** 63n - 1n;
/** The largest unsigned bigint each dialect stores: MariaDB's BIGINT UNSIGNED is real, the others are signed. */
const ubigMax = (dialect: Dialect) => (dialect === 'mariadb' ? 2n ** 64n - 1n : INT64_MAX);
/** One unit in the last place of a single-precision value near 0.1. */
const ULP = 2 ** -27;

/** The seeded values of row i (1-based); `micros` is added to `at` / `stamp` where the database keeps them. */
function row(i: number, dialect: Dialect) {
  const base = Date.UTC(2024, 2, 10, 1, 59, 59, 990);
  const big =
    i % 8 === 0
      ? INT64_MAX - BigInt(i % 3)
      : i % 8 === 1
        ? -INT64_MAX - 1n + BigInt(i % 3)
        : TWO_53 + BigInt(i % 5) - 2n;
  return {
    id: i,
    at: new Date(base + (i % 4)),
    atMicros: (i * 7) % 3,
    stamp: i % 11 === 0 ? null : new Date(base + (i % 3)),
    stampMicros: (i * 5) % 4,
    big,
    ubig: i % 2 === 0 ? ubigMax(dialect) - BigInt(i % 5) : TWO_53 + BigInt(i % 3),
    price: `12345678901234567890.00000000${String(i % 7).padStart(2, '0')}`,
    ratio: i % 13 === 0 ? null : Math.fround(0.1) + (i % 6) * ULP,
    flag: i % 2 === 0,
    level: ['zeta', 'alpha', 'mid'][i % 3]!,
  };
}

async function seed(em: EntityManager): Promise<void> {
  const dialect = testDialect(em);
  const rows = Array.from({ length: ROWS }, (_, k) => row(k + 1, dialect));
  for (const r of rows)
    em.create(Precise, {
      id: r.id,
      at: r.at,
      stamp: r.stamp,
      big: r.big,
      ubig: r.ubig,
      price: r.price,
      ratio: r.ratio,
      flag: r.flag,
      level: r.level,
    });
  await em.flush();
  // Microseconds: a Date has milliseconds only, so add them through SQL where the column keeps them.
  const connection = em.getConnection();
  const add =
    dialect === 'postgresql'
      ? (column: string) => `${column} = ${column} + (? * interval '1 microsecond')`
      : (column: string) => `${column} = ${column} + interval ? microsecond`;
  if (dialect !== 'sqlite')
    for (const r of rows)
      await connection.execute(`update precise set ${add('at')}, ${add('stamp')} where id = ?`, [
        r.atMicros,
        r.stampMicros,
        r.id,
      ]);
  em.clear();
}

function testDialect(em: EntityManager): Dialect {
  const d = dialectFor(em.getPlatform()).name;
  return d === 'mysql' ? 'mariadb' : d;
}

function precise(em: EntityManager): ScopedEngine {
  return createEngine(em, { policy, maxLimit: 100 }).from((em as any).createQueryBuilder(Precise, 'p'));
}

const ids = (items: readonly Record<string, unknown>[]) => items.map((i) => i.id as number);
const decode = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { k: unknown[] };

const SORTS = [...FIELDS.flatMap((f) => [f, `-${f}`]), 'flag,-ratio,at', '-level,price,-stamp', 'ubig,-big'];

eachDialect('full-precision cursor keys', { entities: [PreciseSchema], seed }, (test, dialect) => {
  for (const sort of SORTS)
    test(`sort=${sort}: one row per page, forward and back, never skips or repeats a row`, async ({ em }) => {
      const scoped = precise(em);
      const all = ids((await scoped.list({ sort, limit: '100' })).items);
      assert.is(all.length, ROWS);
      const forward = await walk(scoped, { sort }, [1]);
      assert.equal(ids(forward.items), all, 'the walk differs from the one-page listing');
      // Back from the last page: every row before it, in order.
      const last = forward.pages.at(-1)!;
      const back = await walkBack(scoped, { sort }, last.page.prevCursor!, [1, 2]);
      assert.equal([...ids(back.items), ...ids(last.items)], all, 'the backward walk differs');
    });

  test('keys carry every digit: microseconds, 64-bit integers, decimals, single-precision floats', async ({ em }) => {
    const scoped = precise(em);
    const key = async (sort: string) => decode((await scoped.list({ sort, limit: '1' })).page.nextCursor!).k[0];
    // The smallest `at` is base + 0 ms (+ 0 µs, row 12), the largest base + 3 ms + 2 µs (row 11); the largest
    // `stamp` base + 2 ms + 3 µs (row 23). SQLite keeps epoch milliseconds.
    if (dialect === 'sqlite') assert.is(await key('at'), Date.UTC(2024, 2, 10, 1, 59, 59, 990));
    else {
      assert.is(
        await key('at'),
        dialect === 'postgresql' ? '2024-03-10T01:59:59.990000Z' : '2024-03-10T01:59:59.990000',
      );
      assert.is(
        await key('-at'),
        dialect === 'postgresql' ? '2024-03-10T01:59:59.993002Z' : '2024-03-10T01:59:59.993002',
      );
      assert.is(await key('-stamp'), '2024-03-10T01:59:59.992003');
    }
    assert.is(await key('-big'), String(INT64_MAX));
    assert.is(await key('big'), String(-INT64_MAX - 1n));
    assert.is(await key('-ubig'), String(ubigMax(dialect)));
    assert.is(await key('-price'), dialect === 'sqlite' ? '12345678901234567000' : '12345678901234567890.0000000006');
    assert.is(await key('-ratio'), dialect === 'postgresql' ? 0.10000004 : Math.fround(0.1) + 5 * ULP);
    assert.is(await key('level'), dialect === 'mariadb' ? 1 : 'alpha', 'MariaDB: the ENUM position of zeta');
    assert.is(await key('flag'), false);
  });

  test('an ENUM sorts as the database sorts it: by item position on MariaDB, alphabetically elsewhere', async ({
    em,
  }) => {
    const items = (await precise(em).list({ sort: 'level', limit: '100' })).items;
    const order = [...new Set(items.map((i) => i.level))];
    assert.equal(order, dialect === 'mariadb' ? ['zeta', 'alpha', 'mid'] : ['alpha', 'mid', 'zeta']);
  });

  test('64-bit and decimal filter literals compare exactly, and items carry every digit', async ({ em }) => {
    const scoped = precise(em);
    const rows = Array.from({ length: ROWS }, (_, k) => row(k + 1, dialect));
    const count = async (filter: string) => (await scoped.list({ filter, limit: '100' })).items.length;
    // 2^53 + 1 has no double of its own: a comparison through doubles would match 2^53 and 2^53 + 2 as well.
    assert.is(await count(`big eq ${TWO_53 + 1n}`), rows.filter((r) => r.big === TWO_53 + 1n).length);
    assert.is(await count(`big gt ${TWO_53}`), rows.filter((r) => r.big > TWO_53).length);
    const max = ubigMax(dialect);
    assert.is(await count(`ubig eq ${max}`), rows.filter((r) => r.ubig === max).length);
    assert.is(await count(`ubig gte ${max - 1n}`), rows.filter((r) => r.ubig >= max - 1n).length);
    // Items are MikroORM's own hydration: SQLite's driver reads an INTEGER as a double there (the cursor keys are
    // read as text), so only PostgreSQL and MariaDB items keep 64 bits.
    const top = (await scoped.list({ sort: '-ubig', limit: '1' })).items[0]!;
    if (dialect !== 'sqlite') assert.is(String(top.ubig), String(max));
    if (dialect !== 'sqlite') {
      const price = '12345678901234567890.0000000003';
      assert.is(await count(`price eq ${price}`), rows.filter((r) => r.price === price).length);
      assert.is(await count(`price gt ${price}`), rows.filter((r) => r.price > price).length);
    }
  });

  test('describe() names the 64-bit formats: uint64 where BIGINT UNSIGNED goes past the signed range', async ({
    em,
  }) => {
    const item = createEngine(em, { policy }).describe().item;
    const format = (name: string) => item.properties.find((p) => p.name === name)?.format;
    assert.is(format('big'), 'int64');
    assert.is(format('ubig'), dialect === 'mariadb' ? 'uint64' : 'int64');
  });
});
