/**
 * One regression row per discrepancy the oracle found (docs/testing.md, "Found and fixed"). Rows for bugs still
 * open in a stage this suite does not own are listed in test/oracle/known-bugs.ts: they run where the bug does not
 * bite, are left out (with a note on stdout) where it does, and run everywhere with LISTQL_KNOWN_BUGS=1.
 * Expected ids are written by hand from the catalog fixture (see test/plan/apply.test.ts for its table).
 */
import type { MikroORM } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { execute } from '../../src/engine/execute.ts';
import { createEngine } from '../../src/engine/index.ts';
import { apply } from '../../src/plan/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { catalogEntities, Product, seedCatalog } from '../fixtures/catalog.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';
import { walkPages } from '../oracle/walk.ts';

const policy = schema(Product).expose('id', filterable(), sortable()).expose('price', filterable(), sortable());
const statusPolicy = schema(Product).expose('id', sortable()).expose('status', sortable());

interface Row {
  readonly filter: string;
  readonly ids: readonly number[];
  /** The open bug (known-bugs.ts) that makes this row fail, and where. */
  readonly bug?: { readonly open: boolean; readonly dialects: readonly Dialect[] };
}

// Prices: 1 → 10.50, 2 → 0.10, 3 → NULL, 4 → 99999.99, 5 → 10.5, 6 → NULL (numeric(12,2)).
// Found by the oracle on SQLite (decimals stored as doubles) and on MariaDB (the constants of an IN list of two or
// more are rounded to the column's DECIMAL(12,2)), fixed in src/bind/decimal-scale.ts.
const decimalBug = { open: false, dialects: ['sqlite', 'mariadb'] as const };
const ROWS: readonly Row[] = [
  { filter: 'price eq 10.500000000000000001', ids: [], bug: decimalBug },
  { filter: 'price ne 10.500000000000000001', ids: [1, 2, 4, 5], bug: decimalBug },
  { filter: 'price in (10.500000000000000001, 0.1)', ids: [2], bug: decimalBug },
  { filter: 'price gt 10.499999999999999999', ids: [1, 4, 5], bug: decimalBug },
  { filter: 'price lte 10.499999999999999999', ids: [2], bug: decimalBug },
  { filter: 'price lt 10.500000000000000001', ids: [1, 2, 5], bug: decimalBug },
  { filter: 'price gte 10.500000000000000001', ids: [4], bug: decimalBug },
];

async function ids(orm: MikroORM, filter: string): Promise<number[]> {
  const base = (orm.em.fork() as any).createQueryBuilder(Product, 'p');
  const rows = await execute<Product>(apply(base, policy.bind(orm), parseHTTP({ filter })));
  return rows.map((p) => p.id);
}

eachDialect('regressions found by the oracle', { entities: catalogEntities, seed: seedCatalog }, (test, dialect) => {
  const open = ROWS.filter((row) => row.bug?.open === true && row.bug.dialects.includes(dialect));
  if (open.length)
    process.stdout.write(`\n  [${dialect}] ${open.length} rows of open bugs not run (LISTQL_KNOWN_BUGS=1 runs them)\n`);
  for (const row of ROWS) {
    if (open.includes(row)) continue;
    test(row.filter, async ({ db }) => {
      assert.equal(await ids(db.orm, row.filter), row.ids);
    });
  }

  // Statuses: 1 active, 2 draft, 3 retired, 4 active, 5 active, 6 draft. A native ENUM (MySQL/MariaDB) sorts by its
  // declared items (draft, active, retired); text elsewhere. A cursor walk must follow the same order page by page.
  // (Fixed: the key of a native ENUM is its item's position, which orders and compares alike.)
  test('a cursor walk sorted by an enum, one row per page', async ({ db }) => {
    const engine = createEngine(db.orm, { policy: statusPolicy });
    const scoped = () => engine.from((db.orm.em.fork() as any).createQueryBuilder(Product, 'p'));
    const walked = await walkPages(scoped, { sort: 'status' }, [1]);
    assert.equal(walked.ids, dialect === 'mariadb' ? [2, 6, 1, 4, 5, 3] : [1, 4, 5, 2, 6, 3]);
  });
});
