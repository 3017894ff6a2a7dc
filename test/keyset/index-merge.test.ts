/**
 * MariaDB plans a page after a cursor without index merge when every `or` of its statement is the keyset
 * predicate's (dialect/mysql/statement-text.ts): its optimizer otherwise weighs merging the indexes of each `or` branch,
 * most of a deep page's cost. A client's own `or` keeps index merge on. On every dialect the pages stay those of the
 * database's own ORDER BY … LIMIT/OFFSET.
 */
import { type EntityManager, EntitySchema } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { dialectFor } from '../../src/dialect/index.ts';
import { keysetHint, onlyKeysetOr, orOperators } from '../../src/dialect/mysql/statement-text.ts';
import { createEngine, type ScopedEngine } from '../../src/engine/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { captureDriver, withoutTimeLimit } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { walk } from '../helpers/walk.ts';

class Lot {
  id!: number;
  price!: number;
  created!: number;
  score?: number | null;
  label!: string;
}

const LotSchema = new EntitySchema<Lot>({
  class: Lot,
  tableName: 'merge_lot',
  indexes: [{ properties: ['price', 'created'] }, { properties: ['created'] }, { properties: ['score'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    price: { type: 'integer' },
    created: { type: 'integer' },
    score: { type: 'integer', nullable: true },
    label: { type: 'string' },
  },
});

/** 90 rows: 6 prices, creation values repeating within a price, every fifth score NULL, labels with `or` in them. */
const ROWS = Array.from({ length: 90 }, (_, i) => ({
  id: i + 1,
  price: (i * 7) % 6,
  created: (i * 5) % 11,
  score: i % 5 === 0 ? null : (i * 3) % 13,
  label: ["or 'x'", 'a || b', 'xor', 'order'][i % 4]!,
}));

async function seed(em: EntityManager): Promise<void> {
  for (const row of ROWS) em.create(Lot, row);
  await em.flush();
}

const policy = schema(Lot)
  .expose('id', sortable())
  .expose('price', filterable(), sortable())
  .expose('created', filterable(), sortable())
  .expose('score', filterable(), sortable())
  .expose('label', filterable());

const NO_MERGE = "optimizer_switch = 'index_merge=off'";

eachDialect('keyset: a page after a cursor and index merge', { entities: [LotSchema], seed }, (test) => {
  const scopedOf = (em: EntityManager): ScopedEngine =>
    createEngine(em, { policy, maxLimit: 50 }).from((em as any).createQueryBuilder(Lot, 'l'));

  test('`or` operators are counted outside identifiers and strings; `||` and `xor` count', () => {
    assert.is(orOperators('select `a or b` from t where x = 1'), 0);
    assert.is(orOperators("select * from t where label = 'x or y' and y = 2 order by z for update"), 0);
    assert.is(orOperators('select * from t where (a > ? or a is null) OR (b = ? xor c = ?) or d || e'), 5);
    assert.is(orOperators('select "a or b" from t'), 0);
    assert.is(keysetHint('(`l`.`id` > ?)'), undefined);
    assert.is(keysetHint('(`l`.`p` > ? or (`l`.`p` = ? and `l`.`id` > ?))'), 'listql keyset-or:1');
    // The comment must lead the statement and its count must equal the statement's.
    assert.ok(onlyKeysetOr('/* listql keyset-or:1 */ select * from t where (a > ? or (a = ? and b > ?))'));
    assert.not.ok(onlyKeysetOr('/* listql keyset-or:1 */ select * from t where c = ? or (a > ? or b > ?)'));
    assert.not.ok(onlyKeysetOr('select * from t where (a > ? or b > ?) /* listql keyset-or:1 */'));
    assert.not.ok(onlyKeysetOr('/* listql keyset-or:1 */ select * from t where (a > ? || b > ?) or c'));
  });

  const cases = [
    { sort: 'price,-created', filter: undefined, alone: true },
    { sort: '-created', filter: 'price gte 1', alone: true },
    { sort: '-score', filter: undefined, alone: true },
    { sort: 'price,-created', filter: 'price eq 1 or created lt 4', alone: false },
    { sort: '-created', filter: "label eq 'or' or price eq 2", alone: false },
  ];
  for (const { sort, filter, alone } of cases) {
    const query = filter === undefined ? { sort } : { sort, filter };
    test(`sort=${sort}${filter ? `, filter=${filter}` : ''}: index merge ${alone ? 'off on MariaDB' : 'left on'}, pages exact`, async ({
      db,
      em,
    }) => {
      const dialect = dialectFor(db.orm.em.getPlatform());
      const scoped = scopedOf(em);
      const first = await scoped.list({ ...query, limit: '7' });
      assert.ok(first.page.nextCursor, 'a second page');
      const { result, calls } = await captureDriver(
        () => scoped.list({ ...query, limit: '7', cursor: first.page.nextCursor! }),
        { guards: true },
      );
      const data = calls.filter((c) => c.sql.includes('merge_lot'));
      assert.is(data.length, 1);
      const sent = data[0]!.sql;
      const mariaDb = dialect.keysetHint !== undefined;
      const hinted = sent.startsWith('SET STATEMENT') && sent.slice(0, sent.indexOf(' FOR ')).includes(NO_MERGE);
      assert.is(hinted, mariaDb && alone, sent);
      if (!mariaDb) assert.not.match(sent, /listql keyset-or/);
      // Values stay bound: the cursor's last id is a parameter, never in the text.
      const last = first.items.at(-1)!;
      assert.ok(data[0]!.values.includes(last.id as never), JSON.stringify(data[0]!.values));
      assert.not.match(withoutTimeLimit(sent), new RegExp(`= ${String(last.id)}\\b`));
      // The page is the one the whole walk gives at that position.
      const whole = await walk(scoped, query, [7]);
      assert.equal(
        result.items.map((i) => i.id),
        whole.items.slice(7, 14).map((i) => i.id),
      );
    });
  }

  test('with a statement timeout, both settings ride on one SET STATEMENT (MariaDB)', async ({ db, em }) => {
    const dialect = dialectFor(db.orm.em.getPlatform());
    const scoped = scopedOf(em);
    const first = await scoped.list({ sort: 'price,-created', limit: '5' });
    const { calls } = await captureDriver(
      () =>
        scoped.list({ sort: 'price,-created', limit: '5', cursor: first.page.nextCursor! }, { statementTimeout: 5000 }),
      { guards: true },
    );
    const sent = calls.filter((c) => c.sql.includes('merge_lot'))[0]!.sql;
    if (dialect.keysetHint)
      assert.match(sent, /^SET STATEMENT max_statement_time = [\d.]+, optimizer_switch = 'index_merge=off' FOR \/\* /);
    else assert.not.match(sent, /index_merge|keyset-or/);
  });
});
