/**
 * engine.indexes(): the advised DDL per dialect, that it runs, and that with the advised indexes a deep keyset page
 * seeks (an index scan that also gives the order: no sort step) on every dialect.
 */
import { type Collection, EntitySchema } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import * as assert from 'uvu/assert';
import { createEngine } from '../src/engine/index.ts';
import { filterable, schema, sortable } from '../src/policy/index.ts';
import { captureDriver } from './helpers/capture.ts';
import { eachDialect } from './helpers/db.ts';
import { explainPlan } from './helpers/explain.ts';

class Shelf {
  id!: number;
  createdAt!: Date;
  score?: number | null;
  notes?: Collection<Note>;
}
class Note {
  id!: number;
  body!: string;
  shelf!: Shelf;
}

const ShelfSchema = new EntitySchema<Shelf>({
  class: Shelf,
  tableName: 'ix_shelf',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    createdAt: { type: 'datetime', fieldName: 'created_at' },
    score: { type: 'integer', nullable: true },
    notes: { kind: '1:m', entity: () => Note, mappedBy: 'shelf' },
  },
});
const NoteSchema = new EntitySchema<Note>({
  class: Note,
  tableName: 'ix_note',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    body: { type: 'string' },
    shelf: { kind: 'm:1', entity: () => Shelf, fieldName: 'shelf_id' },
  },
});

const policy = schema(ShelfSchema)
  .expose('id', filterable(), sortable())
  .expose('createdAt', filterable(), sortable())
  .expose('score', filterable(), sortable())
  .relation('notes', schema(NoteSchema).expose('body', filterable()));

const ROWS = 20_000;

const EXPECTED = {
  postgresql: [
    'create index if not exists "ix_shelf_created_at_id_idx" on "ix_shelf" ("created_at", "id")',
    'create index if not exists "ix_shelf_created_at_desc_id_idx" on "ix_shelf" ("created_at" desc, "id")',
    'create index if not exists "ix_shelf_score_id_idx" on "ix_shelf" ("score", "id")',
    'create index if not exists "ix_shelf_score_desc_id_idx" on "ix_shelf" ("score" desc nulls last, "id")',
    'create index if not exists "ix_note_shelf_id_idx" on "ix_note" ("shelf_id")',
  ],
  sqlite: [
    'create index if not exists `ix_shelf_created_at_id_idx` on `ix_shelf` (`created_at`, `id`)',
    'create index if not exists `ix_shelf_created_at_desc_id_idx` on `ix_shelf` (`created_at` desc, `id`)',
    'create index if not exists `ix_shelf_score_id_idx` on `ix_shelf` (`score`, `id`)',
    'create index if not exists `ix_shelf_score_desc_id_idx` on `ix_shelf` (`score` desc, `id`)',
    'create index if not exists `ix_note_shelf_id_idx` on `ix_note` (`shelf_id`)',
  ],
} as const;

eachDialect('engine indexes', { entities: [ShelfSchema, NoteSchema] }, (test, dialect) => {
  test('advises one index per sortable non-key field and direction, and the correlated foreign key', ({ db }) => {
    const advice = createEngine(db.orm, { policy }).indexes();
    assert.equal(
      advice.map((a) => a.ddl),
      [...EXPECTED[dialect]],
    );
    assert.equal(
      advice.map((a) => a.serves),
      ['sort=createdAt', 'sort=-createdAt', 'sort=score', 'sort=-score', 'filter=notes/any(…)'],
    );
    assert.equal(advice[4]?.reason, 'correlation');
    assert.equal(advice[3]?.columns, [
      { column: 'score', direction: 'desc', nulls: 'last' },
      { column: 'id', direction: 'asc' },
    ]);
  });

  test('the advised DDL runs, and deep keyset pages on id and -createdAt seek', async ({ db }) => {
    const conn = db.orm.em.getConnection();
    const epoch =
      dialect === 'postgresql' ? "timestamptz '2024-01-01' + n * interval '1 second'" : '1704067200000 + n * 1000';
    const series =
      dialect === 'postgresql'
        ? `select n from generate_series(1, ${ROWS}) as n`
        : `with recursive s(n) as (select 1 union all select n + 1 from s where n < ${ROWS}) select n from s`;
    await conn.execute(
      `insert into ix_shelf (id, created_at, score) select n, ${epoch}, case when n % 7 = 0 then null else n % 100 end from (${series}) as t`,
    );
    const engine = createEngine(db.orm, { policy });
    for (const advice of engine.indexes()) await conn.execute(advice.ddl);
    await conn.execute(dialect === 'postgresql' ? 'analyze ix_shelf' : 'analyze');

    for (const sort of ['id', '-createdAt']) {
      const scoped = engine.from((db.orm.em.fork() as SqlEntityManager).createQueryBuilder(Shelf, 's'));
      // A cursor halfway into the table (half of it still ahead): one offset page gives it.
      const first = await scoped.list({ sort, limit: '20', offset: String(ROWS / 2) });
      const cursor = first.page.nextCursor;
      assert.ok(cursor, sort);
      const { calls } = await captureDriver(() => scoped.list({ sort, limit: '20', cursor }));
      const data = calls.find((c) => /limit/i.test(c.sql));
      assert.ok(data, sort);
      const plan = await explainPlan(db, data.sql, data.values);
      assert.ok(/index|primary key/i.test(plan), `${sort}: ${plan}`);
      assert.not.ok(dialect === 'postgresql' ? /\bSort\b/.test(plan) : /TEMP B-TREE/i.test(plan), `${sort}: ${plan}`);
    }
  });

  test('a deep backward page seeks on the same indexes, read the other way', async ({ db }) => {
    const engine = createEngine(db.orm, { policy });
    // From the middle of the table, and (-score, NULLs last) from among the NULLs at its end.
    const rows: readonly [string, number][] = [
      ['id', ROWS / 2],
      ['-createdAt', ROWS / 2],
      ['-score', ROWS / 2],
      ['score', ROWS / 2],
      ['-score', ROWS - 100],
    ];
    for (const [sort, offset] of rows) {
      const label = `sort=${sort} offset=${offset}`;
      const scoped = engine.from((db.orm.em.fork() as SqlEntityManager).createQueryBuilder(Shelf, 's'));
      const page = await scoped.list({ sort, limit: '20', offset: String(offset) });
      const { result, calls } = await captureDriver(() =>
        scoped.list({ sort, limit: '20', cursor: page.page.prevCursor! }),
      );
      const expected = await scoped.list({ sort, limit: '20', offset: String(offset - 20) });
      assert.equal(result.items, expected.items, label);
      const data = calls.find((c) => /limit/i.test(c.sql))!;
      const plan = await explainPlan(db, data.sql, data.values);
      if (dialect === 'sqlite') {
        // In index order, no sort step; from a NULL the plain predicate reads the index from its start (the NULLs
        // after the position, then the page), as SQLite forward pages with NULL branches do.
        const seek = offset === ROWS - 100 ? /USING INDEX/ : /SEARCH .* USING (INDEX|INTEGER PRIMARY KEY)/;
        assert.match(plan, seek, `${label}: ${plan}`);
        assert.not.match(plan, /TEMP B-TREE/i, `${label}: ${plan}`);
      } else if (/union all/i.test(data.sql)) {
        // From a NULL: "every non-NULL value" and "the NULLs before it", each an index scan; the outer sort orders
        // at most 2 × (limit + 1) rows.
        assert.is(offset, ROWS - 100, `${label}: only a NULL position needs branches`);
        assert.not.match(plan, /Seq Scan/, `${label}: ${plan}`);
        assert.ok((plan.match(/Index (Only )?Scan/g) ?? []).length >= 2, `${label}: ${plan}`);
      } else {
        // The index gives the order and the start: a bounded scan, no sort step.
        assert.match(plan, /Index Cond/, `${label}: ${plan}`);
        assert.not.match(plan, /Seq Scan|\bSort\b/, `${label}: ${plan}`);
      }
    }
  });

  test('a nullable descending key pages by seeking too (PostgreSQL: one UNION ALL of index scans)', async ({ db }) => {
    const engine = createEngine(db.orm, { policy });
    const scoped = engine.from((db.orm.em.fork() as SqlEntityManager).createQueryBuilder(Shelf, 's'));
    const first = await scoped.list({ sort: '-score', limit: '20', offset: String(ROWS / 2) });
    const { result, calls } = await captureDriver(() =>
      scoped.list({ sort: '-score', limit: '20', cursor: first.page.nextCursor! }),
    );
    const expected = await scoped.list({ sort: '-score', limit: '20', offset: String(ROWS / 2 + 20) });
    assert.equal(result.items, expected.items);
    const data = calls.find((c) => /limit/i.test(c.sql))!;
    if (dialect !== 'postgresql') return; // SQLite pages in-process; its plain predicate is cheap there.
    assert.match(data.sql, /union all/i);
    const plan = await explainPlan(db, data.sql, data.values);
    assert.not.match(plan, /Seq Scan/, plan);
    // The only sort is the outer one, over at most (limit + 1) rows per branch.
    assert.ok((plan.match(/Index (Only )?Scan/g) ?? []).length >= 3, plan);
  });
});
