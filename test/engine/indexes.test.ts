/**
 * engine.indexes(): the advised DDL per dialect, that it runs, and that with the advised indexes a deep keyset page
 * seeks (an index scan that also gives the order: no sort step) on every dialect.
 */
import { type Collection, EntitySchema } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { eachDialect, type TestDatabase } from '../helpers/db.ts';
import { explainPlan } from '../helpers/explain.ts';
import { integerSeries } from '../helpers/series.ts';

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
    // `:nullsfirst` on a nullable key: PostgreSQL's indexes say where their NULLs go.
    'create index if not exists "ix_shelf_score_nf_id_idx" on "ix_shelf" ("score" nulls first, "id")',
    'create index if not exists "ix_shelf_score_desc_nf_id_idx" on "ix_shelf" ("score" desc, "id")',
    'create index if not exists "ix_note_shelf_id_idx" on "ix_note" ("shelf_id")',
  ],
  sqlite: [
    'create index if not exists `ix_shelf_created_at_id_idx` on `ix_shelf` (`created_at`, `id`)',
    'create index if not exists `ix_shelf_created_at_desc_id_idx` on `ix_shelf` (`created_at` desc, `id`)',
    'create index if not exists `ix_shelf_score_id_idx` on `ix_shelf` (`score`, `id`)',
    'create index if not exists `ix_shelf_score_desc_id_idx` on `ix_shelf` (`score` desc, `id`)',
    'create index if not exists `ix_note_shelf_id_idx` on `ix_note` (`shelf_id`)',
  ],
  // MariaDB: no NULLS LAST clause (NULLs are the smallest value, so a descending index has them last).
  mariadb: [
    'create index if not exists `ix_shelf_created_at_id_idx` on `ix_shelf` (`created_at`, `id`)',
    'create index if not exists `ix_shelf_created_at_desc_id_idx` on `ix_shelf` (`created_at` desc, `id`)',
    'create index if not exists `ix_shelf_score_id_idx` on `ix_shelf` (`score`, `id`)',
    'create index if not exists `ix_shelf_score_desc_id_idx` on `ix_shelf` (`score` desc, `id`)',
    'create index if not exists `ix_note_shelf_id_idx` on `ix_note` (`shelf_id`)',
  ],
} as const;

const LIMIT = 20;

/**
 * Assert that a page's plan seeks: it reads an index in the order the page wants, from the cursor's position on.
 * MariaDB: every read of the table (alias `s`) is an index range or lookup (or the primary key read in order), none is sorted after
 * reading, and each reads at most a page and its extra row (a UNION ALL's branches each read theirs).
 */
function assertSeeks(dialect: string, plan: string, label: string, maxRows = LIMIT + 1): void {
  if (dialect === 'mariadb') {
    const reads = plan.split('\n').filter((line) => !line.includes('<derived'));
    assert.ok(reads.length > 0, `${label}: ${plan}`);
    for (const read of reads) {
      assert.match(read, /^s (range|ref|ref_or_null|index) /, `${label}: ${plan}`);
      const rows = Number(/r_rows=(\d+(\.\d+)?)/.exec(read)?.[1]);
      assert.ok(rows <= maxRows, `${label}: reads ${rows} rows: ${plan}`);
    }
    return;
  }
  assert.ok(/index|primary key/i.test(plan), `${label}: ${plan}`);
  assert.not.ok(dialect === 'postgresql' ? /\bSort\b/.test(plan) : /TEMP B-TREE/i.test(plan), `${label}: ${plan}`);
}

/** Fill ix_shelf with ROWS rows: one a second from 2024-01-01, score n % 100 except every 7th, NULL. */
async function fill(db: TestDatabase): Promise<void> {
  const conn = db.orm.em.getConnection();
  const epoch = {
    postgresql: "timestamptz '2024-01-01' + n * interval '1 second'",
    sqlite: '1704067200000 + n * 1000',
    mariadb: "timestamp '2024-01-01 00:00:00' + interval n second",
  }[db.dialect];
  const series = integerSeries(db.dialect, ROWS, 'n');
  await conn.execute(
    `insert into ix_shelf (id, created_at, score) select n, ${epoch}, case when n % 7 = 0 then null else n % 100 end from (${series}) as t`,
  );
}

eachDialect('engine indexes', { entities: [ShelfSchema, NoteSchema] }, (test, dialect) => {
  test('advises one index per sortable non-key field and direction, and the correlated foreign key', ({ db }) => {
    const advice = createEngine(db.orm, { policy }).indexes();
    assert.equal(
      advice.map((a) => a.ddl),
      [...EXPECTED[dialect]],
    );
    assert.equal(
      advice.map((a) => a.serves),
      [
        'sort=createdAt',
        'sort=-createdAt',
        'sort=score',
        'sort=-score',
        ...(dialect === 'postgresql' ? ['sort=score:nullsfirst', 'sort=-score:nullsfirst'] : []),
        'filter=notes/any(…)',
      ],
    );
    assert.equal(advice.at(-1)?.reason, 'correlation');
    assert.equal(advice[3]?.columns, [
      { column: 'score', direction: 'desc', nulls: 'last' },
      { column: 'id', direction: 'asc' },
    ]);
  });

  test('the advised DDL runs, and deep keyset pages on id, createdAt and -createdAt seek', async ({ db }) => {
    await fill(db);
    const conn = db.orm.em.getConnection();
    const engine = createEngine(db.orm, { policy });
    for (const advice of engine.indexes()) await conn.execute(advice.ddl);
    await conn.execute(
      { postgresql: 'analyze ix_shelf', sqlite: 'analyze', mariadb: 'analyze table ix_shelf' }[dialect],
    );

    for (const sort of ['id', 'createdAt', '-createdAt']) {
      const scoped = engine.from((db.orm.em.fork() as SqlEntityManager).createQueryBuilder(Shelf, 's'));
      // A cursor halfway into the table (half of it still ahead): one offset page gives it.
      const first = await scoped.list({ sort, limit: String(LIMIT), offset: String(ROWS / 2) });
      const cursor = first.page.nextCursor;
      assert.ok(cursor, sort);
      // explain(): the statement list() sends, with its values (engine-explain.test.ts holds it to that).
      const { data } = await scoped.explain({ sort, limit: String(LIMIT), cursor });
      assert.ok(data, sort);
      assertSeeks(dialect, await explainPlan(db, data.sql, data.params), sort);
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
      ['score', ROWS - 100],
    ];
    for (const [sort, offset] of rows) {
      const label = `sort=${sort} offset=${offset}`;
      const scoped = engine.from((db.orm.em.fork() as SqlEntityManager).createQueryBuilder(Shelf, 's'));
      const page = await scoped.list({ sort, limit: String(LIMIT), offset: String(offset) });
      const query = { sort, limit: String(LIMIT), cursor: page.page.prevCursor! };
      const result = await scoped.list(query);
      const expected = await scoped.list({ sort, limit: String(LIMIT), offset: String(offset - LIMIT) });
      assert.equal(result.items, expected.items, label);
      const data = (await scoped.explain(query)).data!;
      const plan = await explainPlan(db, data.sql, data.params);
      if (dialect === 'sqlite') {
        // In index order, no sort step; from a NULL the plain predicate reads the index from its start (the NULLs
        // after the position, then the page), as SQLite forward pages with NULL branches do. SQLite has no index
        // for `score` with NULLs last (see the advice's note).
        if (sort === 'score') continue;
        const seek = offset === ROWS - 100 ? /USING INDEX/ : /SEARCH .* USING (INDEX|INTEGER PRIMARY KEY)/;
        assert.match(plan, seek, `${label}: ${plan}`);
        // A nullable key's page is a UNION ALL of index reads (no branch scans the table); SQLite sorts each branch's
        // limit + 1 rows to merge them.
        const unsorted = /union all/i.test(data.sql) ? /^SCAN s\b/m : /TEMP B-TREE/i;
        assert.not.match(plan, unsorted, `${label}: ${plan}`);
      } else if (dialect === 'mariadb') {
        // Each branch (one for a bounded position, more around NULLs) reads an index range, in order. Before a NULL
        // near the end, MariaDB may read the NULLs back from the last one (ref access, not the range `id < ?`, which
        // it rightly estimates to hold most of them): the 100 after the position, then the page.
        assertSeeks(dialect, plan, label, offset === ROWS - 100 ? LIMIT + 1 + 100 : LIMIT + 1);
      } else if (/union all/i.test(data.sql)) {
        // From a NULL: "every non-NULL value" and "the NULLs before it", each an index scan; the outer sort orders
        // at most 2 × (limit + 1) rows.
        assert.is(offset, ROWS - 100, `${label}: only a NULL position needs branches`);
        assert.not.match(plan, /Seq Scan/, `${label}: ${plan}`);
        assert.ok((plan.match(/Index (Only )?Scan/g) ?? []).length >= 2, `${label}: ${plan}`);
      } else if (sort !== 'score') {
        // The index gives the order and the start: a bounded scan, no sort step.
        assert.match(plan, /Index Cond/, `${label}: ${plan}`);
        assert.not.match(plan, /Seq Scan|\bSort\b/, `${label}: ${plan}`);
      }
    }
  });

  test('a key sorted :nullsfirst pages by seeking on its advised index, both ways', async ({ db }) => {
    const engine = createEngine(db.orm, { policy });
    const conn = db.orm.em.getConnection();
    for (const advice of engine.indexes()) await conn.execute(advice.ddl);
    for (const sort of ['score:nullsfirst', '-score:nullsfirst']) {
      for (const [offset, backward] of [
        [ROWS / 2, false],
        [ROWS / 2, true],
        [100, false],
      ] as const) {
        const label = `sort=${sort} offset=${offset}${backward ? ' backward' : ''}`;
        const scoped = engine.from((db.orm.em.fork() as SqlEntityManager).createQueryBuilder(Shelf, 's'));
        const page = await scoped.list({ sort, limit: String(LIMIT), offset: String(offset) });
        const cursor = backward ? page.page.prevCursor! : page.page.nextCursor!;
        const query = { sort, limit: String(LIMIT), cursor };
        const result = await scoped.list(query);
        const at = backward ? offset - LIMIT : offset + LIMIT;
        const expected = await scoped.list({ sort, limit: String(LIMIT), offset: String(at) });
        assert.equal(result.items, expected.items, label);
        if (dialect === 'sqlite') continue;
        const data = (await scoped.explain(query)).data!;
        const plan = await explainPlan(db, data.sql, data.params);
        if (dialect === 'mariadb') assertSeeks(dialect, plan, label);
        else {
          assert.not.match(plan, /Seq Scan/, `${label}: ${plan}`);
          assert.match(plan, /Index (Only )?Scan/, `${label}: ${plan}`);
        }
      }
    }
  });

  test('a nullable key pages by seeking too (PostgreSQL: one UNION ALL of index reads; MariaDB: index ranges)', async ({
    db,
  }) => {
    const engine = createEngine(db.orm, { policy });
    for (const sort of ['-score', 'score']) {
      const scoped = engine.from((db.orm.em.fork() as SqlEntityManager).createQueryBuilder(Shelf, 's'));
      const first = await scoped.list({ sort, limit: String(LIMIT), offset: String(ROWS / 2) });
      const query = { sort, limit: String(LIMIT), cursor: first.page.nextCursor! };
      const result = await scoped.list(query);
      const expected = await scoped.list({ sort, limit: String(LIMIT), offset: String(ROWS / 2 + LIMIT) });
      assert.equal(result.items, expected.items, sort);
      const data = (await scoped.explain(query)).data!;
      if (dialect === 'sqlite') continue; // SQLite pages in-process; its plain predicate is cheap there.
      const plan = await explainPlan(db, data.sql, data.params);
      if (dialect === 'mariadb') {
        assertSeeks(dialect, plan, sort);
        // `-score` is in plain index order there (NULL is the smallest value): one predicate, read as index ranges
        // in order up to the page. `score` (NULLs last, emulated) is three parts, each read in index order.
        const reads = plan.split('\n').filter((l) => l.startsWith('s ')).length;
        assert.is(reads, sort === '-score' ? 1 : 3, `${sort}: ${plan}`);
        assert.is(/union all/i.test(data.sql), sort !== '-score', `${sort}: ${data.sql}`);
        continue;
      }
      assert.match(data.sql, /union all/i, sort);
      assert.not.match(plan, /Seq Scan/, plan);
      // The only sort is the outer one, over at most (limit + 1) rows per branch.
      assert.ok((plan.match(/Index (Only )?Scan/g) ?? []).length >= 3, plan);
    }
  });

  test('MariaDB: a first page by a nullable key, NULLs last, reads its values and its NULLs by index', async ({
    db,
  }) => {
    const engine = createEngine(db.orm, { policy });
    const scoped = engine.from((db.orm.em.fork() as SqlEntityManager).createQueryBuilder(Shelf, 's'));
    // The first page, and one that reaches the NULLs: the last 10 values, then the first NULLs.
    const values = ROWS - Math.floor(ROWS / 7);
    const page = await scoped.list({ sort: 'score', limit: String(LIMIT) });
    const tail = await scoped.list({ sort: 'score', limit: String(LIMIT), offset: String(values - 10) });
    assert.equal(
      page.items.map((i) => i.score),
      Array(LIMIT).fill(0),
    );
    assert.equal(
      tail.items.map((i) => i.score),
      [...Array(10).fill(99), ...Array(10).fill(null)],
    );
    const walked = await scoped.list({ sort: 'score', limit: String(LIMIT), cursor: tail.page.prevCursor! });
    assert.equal(walked.items.at(-1)?.score, 99);
    const data = (await scoped.explain({ sort: 'score', limit: String(LIMIT) })).data!;
    if (dialect !== 'mariadb') return;
    assert.match(data.sql, /union all/i);
    const plan = await explainPlan(db, data.sql, data.params);
    assertSeeks(dialect, plan, 'sort=score first page');
  });
});
