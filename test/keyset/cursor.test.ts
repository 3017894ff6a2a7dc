/**
 * Cursors through the engine: every malformed, tampered, truncated, padded, re-ordered, wrong-version, oversized or
 * wrong-sort cursor is `invalid_cursor`, and not one statement reaches the database. A continuation page uses the
 * keyset predicate (row values where the keys allow), never offset, with cursor values bound. MikroORM's own
 * findByCursor is never called.
 */
import { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type ScopedEngine } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { Cell, cellPolicy, Entry, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { asBuilt, captureDriver, countCalls } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { expectSqlIncludes, id, nullsFirst, type PerDialectSql, param, sql } from '../helpers/sql.ts';
import { walk } from '../helpers/walk.ts';

interface Doc {
  v: unknown;
  s: string;
  k: unknown[];
}

const token = (json: string) => Buffer.from(json, 'utf8').toString('base64url');
const encode = (doc: Doc) => token(JSON.stringify({ v: doc.v, s: doc.s, k: doc.k }));

/** What a row gets to build its bad cursor from: a valid `sort=score` cursor, decoded, and one of another entity. */
interface Valid {
  readonly cursor: string;
  readonly doc: Doc;
  readonly cellCursor: string;
  /** A valid backward cursor of `sort=score` (a prevCursor), decoded, and the signature of `sort=-score` backward. */
  readonly back: string;
  readonly backDoc: Doc;
  readonly otherBackSignature: string;
}

interface BadRow {
  readonly name: string;
  readonly query: (v: Valid) => Record<string, string>;
  readonly code?: string;
  readonly maxCursorBytes?: number;
  /** The exact message, where it is part of the contract (docs/errors.md). */
  readonly message?: string;
}

const withDoc = (change: (doc: Doc) => Doc) => (v: Valid) => ({ sort: 'score', cursor: encode(change(v.doc)) });
const withBackDoc = (change: (doc: Doc) => Doc) => (v: Valid) => ({
  sort: 'score',
  cursor: encode(change(v.backDoc)),
});
const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);

/** What a client reads when its cursor belongs to another endpoint (entity) or another effective sort. */
const OTHER = 'the cursor was made for another endpoint or sort';

const BAD: readonly BadRow[] = [
  { name: 'a tampered signature', query: withDoc((d) => ({ ...d, s: flip(d.s, 3) })) },
  { name: 'a flipped character', query: (v) => ({ sort: 'score', cursor: flip(v.cursor, 12) }) },
  { name: 'truncated by one character', query: (v) => ({ sort: 'score', cursor: v.cursor.slice(0, -1) }) },
  { name: 'truncated by four characters', query: (v) => ({ sort: 'score', cursor: v.cursor.slice(0, -4) }) },
  { name: 'padded with =', query: (v) => ({ sort: 'score', cursor: `${v.cursor}=` }) },
  { name: 'padded to a multiple of four', query: (v) => ({ sort: 'score', cursor: `${v.cursor}${'='.repeat(4)}` }) },
  {
    name: 'keys re-ordered',
    query: (v) => ({ sort: 'score', cursor: token(JSON.stringify({ s: v.doc.s, v: 1, k: v.doc.k })) }),
  },
  {
    name: 'whitespace in the JSON',
    query: (v) => ({ sort: 'score', cursor: token(JSON.stringify({ v: 1, s: v.doc.s, k: v.doc.k }, null, 1)) }),
  },
  { name: 'version 2', query: withDoc((d) => ({ ...d, v: 2 })) },
  { name: 'version as a string', query: withDoc((d) => ({ ...d, v: '1' })) },
  { name: 'over maxCursorBytes', query: (v) => ({ sort: 'score', cursor: v.cursor }), maxCursorBytes: 32 },
  { name: 'far over the default bound', query: () => ({ sort: 'score', cursor: 'A'.repeat(4097) }) },
  { name: 'made for the other direction', query: (v) => ({ sort: '-score', cursor: v.cursor }), message: OTHER },
  { name: 'made for another field', query: (v) => ({ sort: 'title', cursor: v.cursor }), message: OTHER },
  { name: 'made for the default sort', query: (v) => ({ cursor: v.cursor }), message: OTHER },
  { name: 'made for another entity', query: (v) => ({ cursor: v.cellCursor }), message: OTHER },
  { name: 'one key too many', query: withDoc((d) => ({ ...d, k: [...d.k, 1] })) },
  { name: 'one key too few', query: withDoc((d) => ({ ...d, k: d.k.slice(0, 1) })) },
  { name: 'an integer key as a string', query: withDoc((d) => ({ ...d, k: [d.k[0], String(d.k[1])] })) },
  { name: 'NULL for a NOT NULL key', query: withDoc((d) => ({ ...d, k: [d.k[0], null] })) },
  { name: 'an unsafe integer', query: withDoc((d) => ({ ...d, k: [d.k[0], 2 ** 60] })) },
  { name: 'a fraction for an integer', query: withDoc((d) => ({ ...d, k: [1.5, d.k[1]] })) },
  { name: 'not JSON', query: () => ({ sort: 'score', cursor: token('hello') }) },
  { name: 'a JSON array', query: () => ({ sort: 'score', cursor: token('[1,"x",[2]]') }) },
  { name: 'a character outside base64url', query: (v) => ({ sort: 'score', cursor: `${v.cursor.slice(0, 5)}!` }) },
  { name: 'an empty cursor', query: () => ({ sort: 'score', cursor: '' }), code: 'invalid_parameter' },
  { name: 'a backward cursor with a tampered signature', query: withBackDoc((d) => ({ ...d, s: flip(d.s, 3) })) },
  {
    name: 'a backward cursor for the other direction',
    query: (v) => ({ sort: '-score', cursor: v.back }),
    message: OTHER,
  },
  { name: 'a backward cursor for the default sort', query: (v) => ({ cursor: v.back }), message: OTHER },
  {
    name: "a forward cursor's keys under another sort's backward signature",
    query: (v) => ({ sort: 'score', cursor: encode({ ...v.doc, s: v.otherBackSignature }) }),
    message: OTHER,
  },
  { name: 'a backward cursor with one key too many', query: withBackDoc((d) => ({ ...d, k: [...d.k, 1] })) },
  { name: 'a backward cursor with NULL for a NOT NULL key', query: withBackDoc((d) => ({ ...d, k: [d.k[0], null] })) },
  {
    name: 'a backward cursor with an offset',
    query: (v) => ({ sort: 'score', cursor: v.back, offset: '1' }),
    code: 'invalid_parameter',
  },
  {
    name: 'a cursor with an offset',
    query: (v) => ({ sort: 'score', cursor: v.cursor, offset: '0' }),
    code: 'invalid_parameter',
  },
];

function entries(em: EntityManager): ScopedEngine {
  return createEngine(em, { policy: entryPolicy }).from((em as any).createQueryBuilder(Entry, 'e'));
}

async function valid(em: EntityManager): Promise<Valid> {
  const page = await entries(em).list({ sort: 'score', limit: '3' });
  const cursor = page.page.nextCursor!;
  const cells = createEngine(em, { policy: cellPolicy }).from((em as any).createQueryBuilder(Cell, 'c'));
  const cellCursor = (await cells.list({ limit: '2' })).page.nextCursor!;
  const back = (await entries(em).list({ sort: 'score', limit: '3', cursor })).page.prevCursor!;
  const otherBack = (await entries(em).list({ sort: '-score', limit: '3', offset: '3' })).page.prevCursor!;
  return {
    cursor,
    doc: decodeDoc(cursor),
    cellCursor,
    back,
    backDoc: decodeDoc(back),
    otherBackSignature: decodeDoc(otherBack).s,
  };
}

function decodeDoc(cursor: string): Doc {
  return JSON.parse(Buffer.from(cursor, 'base64url').toString()) as Doc;
}

const [AT, KEY] = [id('e.at_moment'), id('e.entry_id')];

/**
 * The keyset predicate on (at, id) past a cursor, as the driver receives it: a row-value comparison, except on
 * MariaDB, which reads one as a filter over a full scan and so gets the expanded form, whose leading bound is a
 * range the index on (at_moment, entry_id) seeks to. On SQLite each cursor value is `+?`, a value its planner does
 * not read (Dialect.seekParameter).
 */
const AFTER: PerDialectSql = {
  postgresql: sql`(${AT}, ${KEY}) > (${param}, ${param})`,
  sqlite: sql`(${AT}, ${KEY}) > (+${param}, +${param})`,
  mariadb: sql`(${AT} >= ${param} and ((${AT} > ${param}) or (${AT} = ${param} and ${KEY} > ${param})))`,
};

/** The same predicate mirrored, for a backward page. */
const BEFORE: PerDialectSql = {
  postgresql: sql`(${AT}, ${KEY}) < (${param}, ${param})`,
  sqlite: sql`(${AT}, ${KEY}) < (+${param}, +${param})`,
  mariadb: sql`(${AT} <= ${param} and ((${AT} < ${param}) or (${AT} = ${param} and ${KEY} < ${param})))`,
};

/** The placeholder number of a cursor's first key value among the values sent. */
function firstKey(values: readonly unknown[], doc: Doc): number {
  return values.findIndex((x) => String(x) === String(doc.k[0])) + 1;
}

eachDialect('engine cursors', { entities: walkEntities, seed: seedWalk }, (test, dialect) => {
  test('the valid cursor the rows below start from continues the walk', async ({ em }) => {
    const v = await valid(em);
    assert.equal(v.doc.k, [1, 7], 'sort=score, limit 3: 17 (score 0; 11 is deleted), then 3 and 7 (score 1)');
    const next = await entries(em).list({ sort: 'score', cursor: v.cursor, limit: '2' });
    assert.equal(
      next.items.map((i) => i.id),
      [14, 19],
    );
  });

  for (const row of BAD) {
    test(`rejected before any query: ${row.name}`, async ({ em }) => {
      const v = await valid(em);
      const engine = createEngine(em, {
        policy: entryPolicy,
        ...(row.maxCursorBytes ? { maxCursorBytes: row.maxCursorBytes } : {}),
      });
      const scoped = engine.from((em as any).createQueryBuilder(Entry, 'e'));
      const { result, calls } = await captureDriver(() =>
        scoped.list(row.query(v)).then(
          () => undefined,
          (e) => e,
        ),
      );
      assert.ok(isListError(result), `expected a ListError, got ${String(result)}`);
      assert.is(result.code, row.code ?? 'invalid_cursor');
      if (row.message) assert.is(result.message, row.message);
      assert.is(result.parameter, row.code ? (row.name.includes('offset') ? 'offset' : 'cursor') : 'cursor');
      assert.is(calls.length, 0, `statements ran: ${calls.map((c) => c.sql).join('; ')}`);
    });
  }

  test('a continuation page uses the keyset predicate (row values, MariaDB: expanded with a leading bound), never offset, with cursor values bound', async ({
    em,
  }) => {
    const scoped = entries(em);
    const first = await scoped.list({ sort: 'at', limit: '3' });
    const doc = JSON.parse(Buffer.from(first.page.nextCursor!, 'base64url').toString()) as Doc;
    const { calls } = await captureDriver(() =>
      scoped.list({ sort: 'at', limit: '3', cursor: first.page.nextCursor! }),
    );
    const data = calls.filter((c) => c.sql.includes('walk_entry'));
    assert.is(data.length, 1);
    const { sql: text, values } = data[0]!;
    expectSqlIncludes(text, AFTER, dialect, firstKey(values, doc));
    assert.not.match(text, /\boffset\b/i);
    assert.ok(!text.includes(String(doc.k[0])), 'a cursor value is in the SQL text');
    assert.ok(
      values.some((x) => String(x) === String(doc.k[0])),
      JSON.stringify(values),
    );
    assert.ok(values.includes(4), 'limit + 1 rows are fetched');
  });

  test('a nullable key gets NULL branches instead of a row value', async ({ em }) => {
    const scoped = entries(em);
    const first = await scoped.list({ sort: '-score', limit: '2' });
    const { calls } = await captureDriver(() => scoped.list({ sort: '-score', cursor: first.page.nextCursor! }));
    const text = calls.find((c) => c.sql.includes('walk_entry'))!.sql;
    expectSqlIncludes(text, sql`${id('e.score_value')} is null`, dialect);
    expectSqlIncludes(text, sql`${id('e.score_value')} <`, dialect);
  });

  test('a backward cursor is its own position: the same keys under another signature, the rows before', async ({
    em,
  }) => {
    const v = await valid(em);
    assert.equal(v.backDoc.k, [1, 14], 'the first item of the page after 17, 3, 7 is 14 (score 1)');
    assert.is.not(v.backDoc.s, v.doc.s);
    const before = await entries(em).list({ sort: 'score', cursor: v.back, limit: '2' });
    assert.equal(
      before.items.map((i) => i.id),
      [3, 7],
    );
    assert.is(before.page.hasMore, true, 'row 17 precedes');
    const after = await entries(em).list({ sort: 'score', cursor: encode({ ...v.backDoc, s: v.doc.s }), limit: '2' });
    assert.equal(
      after.items.map((i) => i.id),
      [19, 6],
    );
  });

  test('pages() and items() walk forward only: a backward cursor is invalid_cursor before any query', async ({
    em,
  }) => {
    const v = await valid(em);
    for (const run of [
      async () => {
        for await (const _ of entries(em).pages({ sort: 'score', cursor: v.back }));
      },
      async () => {
        for await (const _ of entries(em).items({ sort: 'score', cursor: v.back }));
      },
    ]) {
      const { result, calls } = await captureDriver(() =>
        run().then(
          () => undefined,
          (e) => e,
        ),
      );
      assert.ok(isListError(result), `expected a ListError, got ${String(result)}`);
      assert.is(result.code, 'invalid_cursor');
      assert.is(calls.length, 0);
    }
  });

  test('a backward page is one query: mirrored order and keyset, limit + 1, cursor values bound', async ({ em }) => {
    const scoped = entries(em);
    const page = await scoped.list({ sort: 'at', limit: '3', offset: '6' });
    const doc = decodeDoc(page.page.prevCursor!);
    const { calls } = await captureDriver(() => scoped.list({ sort: 'at', limit: '3', cursor: page.page.prevCursor! }));
    const data = calls.filter((c) => c.sql.includes('walk_entry'));
    assert.is(data.length, 1);
    const { sql: text, values } = data[0]!;
    expectSqlIncludes(text, BEFORE, dialect, firstKey(values, doc));
    expectSqlIncludes(text, sql`order by ${id('e.at_moment')} desc, ${id('e.entry_id')} desc`, dialect);
    assert.not.match(text, /\boffset\b/i);
    assert.ok(!text.includes(String(doc.k[0])), 'a cursor value is in the SQL text');
    assert.ok(values.includes(4), 'limit + 1 rows are fetched');
    const explained = await scoped.explain({ sort: 'at', limit: '3', cursor: page.page.prevCursor! });
    assert.is(explained.data?.sql, asBuilt(text), 'explain() shows the backward statement list() sends');
  });

  test('backward from a NULL key: every non-NULL row precedes it, NULLS FIRST in the mirrored order', async ({
    em,
  }) => {
    const scoped = entries(em);
    const all = (await scoped.list({ sort: '-score', limit: '50' })).items;
    const at = all.findLastIndex((i) => i.score === null);
    assert.ok(at > 0 && all[at - 1]!.score === null, 'two NULL scores at the end');
    const page = await scoped.list({ sort: '-score', limit: '1', offset: String(at) });
    assert.is(decodeDoc(page.page.prevCursor!).k[0], null);
    const { result, calls } = await captureDriver(() =>
      scoped.list({ sort: '-score', limit: '50', cursor: page.page.prevCursor! }),
    );
    assert.equal(
      result.items.map((i) => i.id),
      all.slice(0, at).map((i) => i.id),
    );
    assert.is(result.page.hasMore, false);
    const text = calls.find((c) => c.sql.includes('walk_entry'))!.sql;
    expectSqlIncludes(text, sql`${id('e.score_value')} is not null`, dialect);
    // MariaDB sorts NULLs first in ascending order by itself: the non-NULL branch is ordered by the plain key.
    expectSqlIncludes(text, sql`order by ${nullsFirst('e.score_value', 'asc')}, ${id('e.entry_id')} desc`, dialect);
    if (dialect !== 'sqlite')
      assert.ok(text.includes('union all'), 'PostgreSQL and MariaDB seek each branch on their own');
  });

  test("MikroORM's findByCursor is never used", async ({ em }) => {
    const used = countCalls(EntityManager.prototype, 'findByCursor');
    try {
      const { items } = await walk(entries(em), { sort: '-score' }, [3]);
      assert.is(items.length, 20);
    } finally {
      used.restore();
    }
    assert.is(used.count(), 0);
  });
});
