/**
 * Literal ranges (docs/policy.md, Literal ranges per dialect): a literal is compared exactly, or refused with a
 * positioned `invalid_literal`, with the same outcome on every dialect.
 *
 * Decimals: a literal beyond every value a `decimal(p, s)` column holds (|L| ≥ 10^(p−s)) compares as exactly that,
 * however many digits it has (MariaDB turned a string of 82 or more digits into some other number: `price lt -1e81`
 * matched every row). Dates and date-times: years 0001–9999 on every dialect (MariaDB stores and compares years
 * before 1000 in DATE and DATETIME columns as it does later ones), in filters, items, sorts and cursors alike. (The
 * seeded date-times start at year 100: MikroORM reads a MySQL / MariaDB DATETIME before year 100 wrongly, see
 * docs/policy.md.)
 */
import { type EntityManager, EntitySchema } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type ScopedEngine } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { walk, walkBack } from '../helpers/walk.ts';

class Old {
  id!: number;
  price?: string | null;
  wide?: string | null;
  day!: string;
  at!: Date;
}

const OldSchema = new EntitySchema<Old>({
  class: Old,
  tableName: 'literal_ranges',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    price: { type: 'decimal', precision: 8, scale: 2, nullable: true },
    // Precision and scale read from the column type (MikroORM leaves them undefined in the metadata here).
    wide: { type: 'decimal', columnType: 'decimal(65,30)', nullable: true },
    day: { type: 'date' },
    at: { type: 'datetime', length: 6 },
  },
});

/** [id, price, wide, day, at]: dates before and after year 1000, prices at both ends of decimal(8,2). */
const SEED: readonly (readonly [number, string | null, string | null, string, string])[] = [
  [1, '1.50', '1.5', '0001-01-01', '0100-01-01T00:00:00.000Z'],
  [2, '-3.25', '-3.25', '0050-03-01', '0500-03-01T12:00:00.000Z'],
  [3, null, null, '0999-12-31', '0999-12-31T23:59:59.999Z'],
  [4, '999999.99', '12345678901234567890.5', '1000-01-01', '1000-01-01T00:00:00.000Z'],
  [5, '-999999.99', '-12345678901234567890.5', '2024-02-29', '2024-02-29T08:30:00.000Z'],
];

async function seed(em: EntityManager): Promise<void> {
  for (const [id, price, wide, day, at] of SEED) em.create(Old, { id, price, wide, day, at: new Date(at) });
  await em.flush();
  em.clear();
}

const policy = schema(Old)
  .expose('id', sortable())
  .expose('price', filterable(), sortable())
  .expose('wide', filterable(), sortable())
  .expose('day', filterable(), sortable())
  .expose('at', filterable(), sortable());

const MANY = `-${'1234567890'.repeat(9)}.5`;

/** [filter, ids matched (sorted by id)]. */
const MATCHES: readonly (readonly [string, readonly number[]])[] = [
  ['price lt -1e81', []],
  ['price lte -1e81', []],
  ['price gt -1e81', [1, 2, 4, 5]],
  ['price gte -1e81', [1, 2, 4, 5]],
  ['price lt 1e81', [1, 2, 4, 5]],
  ['price gt 1e81', []],
  ['price eq -1e81', []],
  ['price ne -1e81', [1, 2, 4, 5]],
  ['price in (1.5, -1e81, 1e90)', [1]],
  ['price not in (1.5, -1e81)', [2, 4, 5]],
  [`price gt ${MANY}`, [1, 2, 4, 5]],
  [`price lt ${MANY}`, []],
  ['price lt -1000000', []],
  ['price gt -1000000', [1, 2, 4, 5]],
  ['price gte -999999.99', [1, 2, 4, 5]],
  ['price gt -999999.99', [1, 2, 4]],
  ['price gt -999999.991', [1, 2, 4, 5]],
  ['price gt 1e-90', [1, 4]],
  ['price gt -1e-90', [1, 4]],
  ['wide lt -1e81', []],
  ['wide gt -1e81', [1, 2, 4, 5]],
  ['wide ne 1e65', [1, 2, 4, 5]],
  [`wide gt ${MANY}`, [1, 2, 4, 5]],
  ["day lt '1000-01-01'", [1, 2, 3]],
  ["day eq '0050-03-01'", [2]],
  ["day in ('0001-01-01', '0999-12-31')", [1, 3]],
  ["day gte '0999-12-31'", [3, 4, 5]],
  ["at lt '1000-01-01T00:00:00Z'", [1, 2, 3]],
  ["at eq '0500-03-01T12:00:00Z'", [2]],
  ["at gt '0100-01-01T00:00:00Z'", [2, 3, 4, 5]],
  ["at eq '0100-01-01T01:00:00+01:00'", [1]],
  ["at lt '0050-01-01T00:00:00Z'", []],
  ["at gte '0001-01-01T00:00:00Z'", [1, 2, 3, 4, 5]],
];

/** [filter, byte offset of the refused literal]: the same refusal on every dialect. */
const REFUSED: readonly (readonly [string, number])[] = [
  ["day eq '0000-12-31'", 7],
  ["at lt '0001-01-01T00:00:00+00:01'", 6],
  ["at gt '9999-12-31T23:59:59-00:01'", 6],
  ['price eq 1e1001', 9],
];

function engineOn(em: EntityManager): ScopedEngine {
  return createEngine(em, { policy, maxLimit: 50 }).from((em as any).createQueryBuilder(Old, 'o'));
}

eachDialect('literal ranges', { entities: [OldSchema], seed }, (test) => {
  for (const [filter, ids] of MATCHES) {
    test(`${filter}: matches ${JSON.stringify(ids)}`, async ({ em }) => {
      const page = await engineOn(em).list({ filter, sort: 'id', limit: '50' });
      assert.equal(
        page.items.map((item) => item.id),
        [...ids],
      );
    });
  }

  for (const [filter, offset] of REFUSED) {
    test(`${filter}: invalid_literal before any query`, async ({ em }) => {
      const { result, calls } = await captureDriver(() =>
        engineOn(em)
          .list({ filter })
          .catch((e: unknown) => e),
      );
      if (!isListError(result)) throw new Error(`expected a ListError, got ${JSON.stringify(result)}`);
      assert.equal([result.code, result.parameter, result.position?.offset], ['invalid_literal', 'filter', offset]);
      assert.is(calls.length, 0);
    });
  }

  test('items carry dates before year 1000 as written', async ({ em }) => {
    const page = await engineOn(em).list({ sort: 'id', limit: '50' });
    assert.equal(
      page.items.map((item) => [item.day, new Date(item.at as string).toISOString()]),
      SEED.map(([, , , day, at]) => [day, at]),
    );
  });

  for (const sort of ['day', '-day', 'at', '-at']) {
    test(`sort=${sort}: one row per page across year 1000, forward and back`, async ({ em }) => {
      const forward = sort.startsWith('-') ? [5, 4, 3, 2, 1] : [1, 2, 3, 4, 5];
      const run = await walk(engineOn(em), { sort }, [1]);
      assert.equal(
        run.items.map((item) => item.id),
        forward,
      );
      const back = await walkBack(engineOn(em), { sort }, run.pages.at(-1)!.page.prevCursor!, [2]);
      assert.equal(
        back.items.map((item) => item.id),
        forward.slice(0, -1),
      );
    });
  }
});
