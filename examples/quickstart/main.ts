/**
 * listql quickstart: a small product catalog in an in-memory SQLite database, and a few list requests run
 * through the lower-level path (parseHTTP → bind → apply → execute). Each request prints the SQL that reaches
 * the database (values stay `?` placeholders and travel as bound parameters) and the rows it returns.
 *
 *   npm run quickstart
 */
import { EntitySchema } from '@mikro-orm/core';
import { MikroORM } from '@mikro-orm/sqlite';
import {
  apply,
  execute,
  filterable,
  fromQueryString,
  isListError,
  parseHTTP,
  schema,
  sortable,
} from '../../src/index.ts';

class Product {
  id!: number;
  name!: string;
  category!: string;
  price?: string | null;
  stock?: number | null;
  secret?: string | null;
}

const ProductSchema = new EntitySchema<Product>({
  class: Product,
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    name: { type: 'string' },
    category: { type: 'string' },
    price: { type: 'decimal', precision: 10, scale: 2, nullable: true },
    stock: { type: 'integer', nullable: true },
    secret: { type: 'string', nullable: true, hidden: true },
  },
});

// The whitelist: clients reach these fields with these operators, and nothing else.
const products = schema(Product)
  .expose('id', sortable())
  .expose('name', filterable('eq', 'contains', 'startswith'), sortable())
  .expose('category', filterable('eq', 'in'))
  .expose('price', filterable('gt', 'gte', 'lt', 'lte', 'null'), sortable())
  .expose('stock', filterable(), sortable());

const REQUESTS = [
  "filter=category eq 'books' and price lt 20&sort=-price",
  "filter=name contains 'Pro' or stock is null&sort=name&limit=3",
  "filter=category in ('games', 'music') and not (stock gt 5)&sort=-stock",
  "filter=name eq 'x'' OR 1=1 --'", // an injection attempt: just a string that matches nothing
  'filter=price gt(10)', // whitespace is required around operators: invalid_syntax at offset 8
  "filter=secret eq 's'", // hidden fields do not exist for clients: unknown_field
];

const orm = await MikroORM.init({ entities: [ProductSchema], dbName: ':memory:' });
await orm.schema.create();
await seed();
const bound = products.bind(orm); // once, at start-up

for (const request of REQUESTS) {
  console.log(`\nGET /products?${request}`);
  try {
    const parsed = parseHTTP(fromQueryString(request));
    const base = orm.em.fork().createQueryBuilder(Product, 'p'); // your base scope: tenant, authorization…
    const qb = apply(base, bound, parsed);
    console.log(`  SQL    ${qb.clone().getQuery()}`);
    console.log(`  params ${JSON.stringify(qb.clone().getParams())}`);
    for (const row of await execute<Product>(qb)) {
      console.log(
        `  → #${row.id} ${row.name} (${row.category}) price=${row.price ?? 'NULL'} stock=${row.stock ?? 'NULL'}`,
      );
    }
  } catch (err) {
    if (!isListError(err)) throw err;
    console.log(`  400 ${JSON.stringify(err)}`);
  }
}
await orm.close();

async function seed(): Promise<void> {
  const em = orm.em.fork();
  const rows: [number, string, string, string | null, number | null][] = [
    [1, 'Pro Cooking', 'books', '18.50', 4],
    [2, 'Pocket Atlas', 'books', '12.00', null],
    [3, 'Space Raiders', 'games', '49.99', 2],
    [4, 'Pro Guitar Pack', 'music', null, 9],
    [5, 'Quiet Songs', 'music', '9.99', 0],
    [6, 'The Long Read', 'books', '24.00', 12],
  ];
  for (const [id, name, category, price, stock] of rows)
    em.create(Product, { id, name, category, price, stock, secret: `internal-${id}` });
  await em.flush();
}
