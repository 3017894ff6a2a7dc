/**
 * bindStatement reads a text's placeholders once and reuses that reading (its per-text template): a statement bound
 * from the remembered reading must be exactly what a fresh reading gives (bindStatementCold), text, values and
 * errors alike, whatever values come with the same text later (fragments, lists, symbols, too few or too many).
 */
import { raw } from '@mikro-orm/sql';
import * as assert from 'uvu/assert';
import { bindStatement, bindStatementCold } from '../../src/orm/bound-sql.ts';
import { deferSql } from '../../src/orm/deferred-sql.ts';
import { catalogEntities } from '../fixtures/catalog.ts';
import { eachDialect } from '../helpers/db.ts';

/** Texts, each sent with several value lists in turn (the first one leaves the text's reading behind). */
const TEXTS: readonly { readonly sql: string; readonly values: readonly (readonly unknown[])[] }[] = [
  {
    sql: 'a = ? and b = ?',
    values: [
      [1, 'x'],
      [2, null],
      [undefined, 5n],
      [true, new Date(0)],
      [[1, 2], 3],
    ],
  },
  { sql: "s = '?' and t = ? -- ?\n and u = ?", values: [[1, 2], ['a', 'b'], [1]] },
  { sql: 'x = "?" and y = `?` and z = ? /* ? */', values: [[1], [raw('lower(?)', ['X'])], [1, 2]] },
  { sql: "e = E'\\\\?' and f = ?", values: [[1], [{ a: 1 }]] },
  {
    sql: '?? = ?',
    values: [
      ['p.name', 'x'],
      ['q.id', 1],
    ],
  },
  { sql: 'a \\? b = ?', values: [[1], [2]] },
  { sql: 'id in (?)', values: [[[1, 2, 3]], [7], [Symbol('no fragment')]] },
  { sql: 'no placeholders', values: [[], [1]] },
  { sql: `a = ? and ${deferSql({ sql: 'b = ?', params: [2] })}`, values: [[1], [3]] },
];

type Bound = { sql: string; parameters: readonly unknown[] } | { error: string };

function attempt(bind: () => { sql: string; parameters: readonly unknown[] }): Bound {
  try {
    const { sql, parameters } = bind();
    return { sql, parameters };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

eachDialect('bindStatement: a remembered reading binds as a fresh one', { entities: catalogEntities }, (test) => {
  test('every text with every value list, twice, as bindStatementCold binds it', ({ db }) => {
    const platform = db.orm.em.getPlatform();
    for (const { sql, values } of TEXTS)
      for (let round = 0; round < 2; round++)
        for (const params of values) {
          const cold = attempt(() => bindStatementCold(platform, sql, params));
          const memo = attempt(() => bindStatement(platform, sql, params));
          assert.equal(memo, cold, `${sql} with ${params.map((p) => typeof p).join(', ')}`);
        }
  });

  test('texts read once stay bounded and keep their readings apart per dialect', ({ db }) => {
    const platform = db.orm.em.getPlatform();
    for (let i = 0; i < 3000; i++) bindStatement(platform, `a = ? and n = ${i}`, [i]);
    const out = bindStatement(platform, 'a = ? and n = 0', ['x']);
    assert.equal(out, bindStatementCold(platform, 'a = ? and n = 0', ['x']));
  });
});
