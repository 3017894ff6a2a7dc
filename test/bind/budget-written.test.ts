/**
 * The cost budget counts the request as the client wrote it (docs/security.md), identically on every dialect. On
 * SQLite and MariaDB a decimal literal finer than its column's scale is rewritten against its neighbours at that
 * scale (src/bind/decimal-scale.ts): `eq` splits into two comparisons, and an `in` list loses the values no stored
 * row can equal. Neither may change what the budget charges: a split comparison is one, dropped values count.
 */
import { type EntityManager, EntitySchema } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { apply, createEngine, filterable, isListError, type Limits, parseHTTP, schema } from '../../src/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

class Shop {
  id!: number;
  price!: string;
}
class Order {
  id!: number;
  shop!: Shop;
}

const ShopSchema = new EntitySchema<Shop>({
  class: Shop,
  tableName: 'bw_shop',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    price: { type: 'decimal', precision: 8, scale: 2 },
  },
});
const OrderSchema = new EntitySchema<Order>({
  class: Order,
  tableName: 'bw_order',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    shop: { kind: 'm:1', entity: () => Shop },
  },
});

async function seed(em: EntityManager): Promise<void> {
  const shops = ['10.00', '10.01', '1.50'].map((price, i) => em.create(Shop, { id: i + 1, price }));
  for (const [i, shop] of shops.entries()) em.create(Order, { id: i + 1, shop });
  await em.flush();
  em.clear();
}

const policy = schema(Order)
  .expose('id', filterable())
  .relation('shop', schema(Shop).expose('price', filterable('eq', 'ne', 'gt', 'lt', 'in', 'nin')));

interface Row {
  readonly name: string;
  readonly filter: string;
  readonly limits: Partial<Limits>;
  /** Accepted: the ids it matches. Refused: [byte offset, budget named]. */
  readonly ids?: readonly number[];
  readonly error?: readonly [number, string];
  /** What differs on SQLite, where a to-one hop weighs 1/4 (docs/security.md, Cost budget). */
  readonly sqlite?: Partial<Row>;
}

const ROWS: readonly Row[] = [
  {
    name: 'eq finer than the scale is one sub-query',
    filter: 'shop/price eq 10.001',
    limits: { maxSubqueries: 1 },
    ids: [],
  },
  {
    name: 'ne finer than the scale is one sub-query',
    filter: 'shop/price ne 10.001',
    limits: { maxSubqueries: 1 },
    ids: [1, 2, 3],
  },
  {
    name: 'two split comparisons are two sub-queries: the second crosses 1',
    filter: 'shop/price eq 10.001 or shop/price eq 1.505',
    limits: { maxSubqueries: 1 },
    error: ['shop/price eq 10.001 or '.length, 'maxSubqueries'],
    sqlite: {
      // Four written hops weigh 1 there (eight split ones would weigh 2), the fifth crosses.
      filter: Array.from({ length: 5 }, () => 'shop/price eq 10.001').join(' or '),
      error: [4 * 'shop/price eq 10.001 or '.length, 'maxSubqueries'],
    },
  },
  {
    name: 'an in list whose values no row can equal counts every written value',
    filter: 'shop/price in (10.001, 10.002, 10.003, 10.004)',
    limits: { maxInValuesTotal: 3 },
    error: [0, 'maxInValuesTotal'],
  },
  {
    name: 'a not in list with dropped values counts them too',
    filter: 'id eq 1 or shop/price not in (1.5, 10.001, 10.002, 10.003)',
    limits: { maxInValuesTotal: 3 },
    error: ['id eq 1 or '.length, 'maxInValuesTotal'],
  },
  {
    name: 'the written values at maxInValuesTotal are accepted',
    filter: 'shop/price in (10.01, 10.001, 10.002)',
    limits: { maxInValuesTotal: 3 },
    ids: [2],
  },
];

eachDialect('budget counts the written request', { entities: [ShopSchema, OrderSchema], seed }, (test, dialect) => {
  for (const written of ROWS) {
    test(written.name, async ({ em }) => {
      const row = dialect === 'sqlite' && written.sqlite ? { ...written, ...written.sqlite } : written;
      const engine = createEngine(em, { policy, limits: row.limits }).from((em as any).createQueryBuilder(Order, 'o'));
      const { result, calls } = await captureDriver(() =>
        engine.list({ filter: row.filter, limit: '10' }).catch((e: unknown) => e),
      );
      if (row.error) {
        if (!isListError(result)) throw new Error(`expected a ListError, got ${JSON.stringify(result)}`);
        assert.equal(
          [result.code, result.parameter, result.position?.offset],
          ['limit_exceeded', 'filter', row.error[0]],
        );
        assert.ok(result.message.includes(row.error[1]), result.message);
        assert.is(calls.length, 0);
        // apply() charges the same budget.
        try {
          apply((em as any).createQueryBuilder(Order, 'o'), policy.bind(em), parseHTTP({ filter: row.filter }), {
            limits: row.limits,
          });
          assert.unreachable('apply() accepted it');
        } catch (err) {
          assert.ok(isListError(err) && err.code === 'limit_exceeded', String(err));
        }
        return;
      }
      if (isListError(result) || result instanceof Error) throw result;
      const ids = (result as { items: { id: number }[] }).items.map((item) => item.id);
      assert.equal(ids, [...(row.ids ?? [])]);
    });
  }
});
