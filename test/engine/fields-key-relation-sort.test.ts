/**
 * `fields` with a sort through a to-one relation, and `fields` naming a to-one relation's key. An invoice line's
 * composite primary key holds its invoice (an m:1); a sort through `invoice/…` joins that relation, which MikroORM
 * then reads from the join instead of the line's own column: items lost their key and the page failed. The picked
 * items must equal the full items cut to the picked keys on every page, whatever relation the sort goes through.
 * `fields=product` picks an exposed to-one relation's key, under the key items always carry it.
 */
import { type Collection, type EntityManager, EntitySchema } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type ScopedEngine } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

class Invoice {
  id!: number;
  total!: number;
  lines?: Collection<InvoiceLine>;
}
class Product {
  id!: number;
  name!: string;
}
/** Composite key: the invoice (an m:1) and a line number. */
class InvoiceLine {
  invoice!: Invoice;
  line!: number;
  amount!: number;
  product?: Product | null;
}

const InvoiceSchema = new EntitySchema<Invoice>({
  class: Invoice,
  tableName: 'fk_invoice',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    total: { type: 'integer' },
    lines: { kind: '1:m', entity: () => InvoiceLine, mappedBy: 'invoice' },
  },
});
const ProductSchema = new EntitySchema<Product>({
  class: Product,
  tableName: 'fk_product',
  properties: { id: { type: 'integer', primary: true, autoincrement: false }, name: { type: 'string' } },
});
const LineSchema = new EntitySchema<InvoiceLine>({
  class: InvoiceLine,
  tableName: 'fk_invoice_line',
  properties: {
    invoice: { kind: 'm:1', entity: () => Invoice, primary: true },
    line: { type: 'integer', primary: true, autoincrement: false },
    amount: { type: 'integer' },
    product: { kind: 'm:1', entity: () => Product, nullable: true },
  },
});

/** Four invoices whose totals tie in pairs, three lines each; every third line has no product. */
async function seed(em: EntityManager): Promise<void> {
  const products = [1, 2].map((id) => em.create(Product, { id, name: `p${3 - id}` }));
  for (const id of [1, 2, 3, 4]) {
    const invoice = em.create(Invoice, { id, total: 10 * (id % 2) });
    for (const line of [1, 2, 3])
      em.create(InvoiceLine, {
        invoice,
        line,
        amount: id * 100 + line,
        product: line === 3 ? null : products[line - 1]!,
      });
  }
  await em.flush();
  em.clear();
}

const productPolicy = schema(Product).expose('name', filterable(), sortable());
const linePolicy = schema(InvoiceLine)
  .expose('line', sortable())
  .expose('amount', filterable(), sortable())
  .relation('invoice', schema(Invoice).expose('total', filterable(), sortable()))
  .relation('product', productPolicy);
/** The same relation under another public name: items still carry it as `product`. */
const renamedPolicy = schema(InvoiceLine).expose('amount', sortable()).relation('item', productPolicy, {
  property: 'product',
});
const invoicePolicy = schema(Invoice)
  .expose('total', sortable())
  .relation('lines', schema(InvoiceLine).expose('amount', filterable()));

function lines(em: EntityManager, policy = linePolicy): ScopedEngine {
  return createEngine(em, { policy, maxLimit: 50 }).from((em as any).createQueryBuilder(InvoiceLine, 'l'));
}

/** Every item of a cursor walk, page by page. */
async function walk(engine: ScopedEngine, query: Record<string, string>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 20; i++) {
    const page = await engine.list(cursor ? { ...query, cursor } : query);
    items.push(...page.items);
    cursor = page.page.nextCursor;
    if (!cursor) return items;
  }
  throw new Error('the walk did not end');
}

const cut = (items: readonly Record<string, unknown>[], keys: readonly string[]) =>
  items.map((item) => Object.fromEntries(keys.filter((k) => k in item).map((k) => [k, item[k]])));

interface Row {
  readonly sort: string;
  readonly fields: string;
  readonly keys: readonly string[];
  readonly policy?: typeof linePolicy | typeof renamedPolicy;
}

const ROWS: readonly Row[] = [
  { sort: 'invoice/total', fields: 'amount', keys: ['invoice', 'line', 'amount'] },
  { sort: '-invoice/total,-line', fields: 'amount', keys: ['invoice', 'line', 'amount'] },
  { sort: 'invoice/total', fields: 'invoice,line', keys: ['invoice', 'line'] },
  { sort: 'product/name,amount', fields: 'amount', keys: ['invoice', 'line', 'amount'] },
  { sort: '-product/name', fields: 'product', keys: ['invoice', 'line', 'product'] },
  { sort: 'invoice/total,product/name', fields: 'product,amount', keys: ['invoice', 'line', 'amount', 'product'] },
  { sort: 'amount', fields: 'item', keys: ['invoice', 'line', 'product'], policy: renamedPolicy },
];

eachDialect('fields with a relation sort', { entities: [InvoiceSchema, ProductSchema, LineSchema], seed }, (test) => {
  for (const row of ROWS) {
    test(`sort=${row.sort}&fields=${row.fields}: every page equals the full items cut to the keys`, async ({ em }) => {
      const engine = lines(em, row.policy);
      const query = { sort: row.sort, limit: '5' };
      const full = await walk(engine, query);
      const picked = await walk(engine, { ...query, fields: row.fields });
      assert.is(picked.length, 12);
      for (const item of picked) assert.equal(Object.keys(item), [...row.keys]);
      assert.equal(picked, cut(full, row.keys));
      // The key of a line without a product is there, as null (not dropped by the LEFT JOIN).
      if (row.keys.includes('product')) assert.ok(picked.some((item) => item.product === null));
    });
  }

  test('fields names a to-many relation: field_not_selectable, before any query', async ({ em }) => {
    const engine = createEngine(em, { policy: invoicePolicy }).from((em as any).createQueryBuilder(Invoice, 'i'));
    const { result, calls } = await captureDriver(() => engine.list({ fields: 'total, lines' }).catch((e) => e));
    if (!isListError(result)) throw new Error(`expected a ListError, got ${String(result)}`);
    assert.equal([result.code, result.parameter, result.position?.offset], ['field_not_selectable', 'fields', 7]);
    assert.is(calls.length, 0);
  });

  test('a relation the policy does not expose stays unknown', async ({ em }) => {
    const err = await lines(em, renamedPolicy)
      .list({ fields: 'product' })
      .catch((e) => e);
    assert.ok(isListError(err));
    assert.equal([err.code, err.position?.offset], ['unknown_field', 0]);
  });

  test('describe(): to-one relations whose key items carry are selectable', ({ em }) => {
    const d = createEngine(em, { policy: linePolicy }).describe();
    assert.equal(d.selectable, ['invoice', 'line', 'amount', 'product']);
    assert.equal(
      d.relations.map((r) => [r.name, r.itemKey]),
      [
        ['invoice', 'invoice'],
        ['product', 'product'],
      ],
    );
    const renamed = createEngine(em, { policy: renamedPolicy }).describe();
    assert.equal(renamed.selectable, ['invoice', 'line', 'amount', 'item']);
    assert.equal(renamed.relations[0]?.itemKey, 'product');
    const invoices = createEngine(em, { policy: invoicePolicy }).describe();
    assert.is(invoices.relations[0]?.itemKey, undefined);
  });
});
