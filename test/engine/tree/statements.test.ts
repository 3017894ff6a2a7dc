/**
 * How nested levels reach the database: one statement per level for all parents (one more with `<path>.count=true`),
 * never one per parent, in order (each level, then its children; sibling levels side by side outside a transaction on
 * PostgreSQL and MariaDB); every client value and parent key bound, never in the SQL text; explain() builds the same
 * statements and runs none; an abort between levels stops the levels not yet run, one from a timer too; a level runs
 * inside the application's transaction; the parent keys are split only past a dialect's parameter limit.
 */
import type { EntityManager } from '@mikro-orm/core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Dialect } from '../../../src/dialect/index.ts';
import { mariadb } from '../../../src/dialect/mysql.ts';
import { postgresql } from '../../../src/dialect/postgresql.ts';
import { sqlite } from '../../../src/dialect/sqlite.ts';
import { parentChunks } from '../../../src/engine/tree/statement.ts';
import { isListError } from '../../../src/errors.ts';
import { Book, libraryEntities, libraryOptions, Review, seedLibrary } from '../../fixtures/library.ts';
import { asBuilt, captureDriver, type DriverCall } from '../../helpers/capture.ts';
import { eachDialect } from '../../helpers/db.ts';
import { engineOf } from './library-tree.ts';

/** The table each statement reads first at its top level (`book` for the page, `review` for a reviews level). */
function tables(calls: readonly DriverCall[]): string[] {
  return calls.map((call) => /from [`"](\w+)[`"] as [`"](?:b|a|t|lq_n)[`"]/.exec(call.sql)?.[1] ?? call.sql);
}

/** The statements that read rows (a transaction's own begin and commit left out). */
function selects(calls: readonly DriverCall[]): DriverCall[] {
  return calls.filter((call) => /^\s*select\b/i.test(call.sql));
}

/** Called with each statement's SQL just before it is sent (the ORM's onQuery), when a test sets it. */
let beforeStatement: ((sql: string) => void) | undefined;

const options = {
  ...libraryOptions,
  onQuery: (sql: string) => {
    beforeStatement?.(sql);
    return sql;
  },
};

const ROLLBACK = new Error('rollback');

interface StatementRow {
  readonly name: string;
  readonly root: 'book' | 'author' | 'tag';
  readonly query: string;
  /** The table each statement reads, in the order they are sent. */
  readonly tables: readonly string[];
}

const STATEMENTS: readonly StatementRow[] = [
  {
    name: 'every kind, one statement per level, the count right after its level',
    root: 'book',
    query: 'fields=id,author(name),publisher(name),reviews(stars),tags(label)&reviews.count=true',
    tables: ['book', 'author', 'publisher', 'review', 'review', 'lq1'],
  },
  {
    name: 'each level, then its children, then the next level',
    root: 'author',
    query: 'fields=id,books(title,reviews(stars),tags(label)),profile(bio)&books.count=true&limit=5',
    tables: ['author', 'book', 'book', 'review', 'lq1', 'profile'],
  },
  {
    name: 'three levels deep: one statement each',
    root: 'tag',
    query: 'fields=id,books(title,author(name,profile(bio)))',
    tables: ['lq1', 'book', 'author', 'profile'],
  },
  {
    name: 'a level whose parents have no key (a deleted author) sends nothing under it',
    root: 'book',
    query: 'fields=id,author(name,profile(bio))&filter=id eq 5',
    tables: ['book', 'author'],
  },
  {
    name: 'a top page without rows sends no level',
    root: 'book',
    query: 'fields=id,author(name),reviews(stars)&filter=id eq 99',
    tables: ['book'],
  },
];

eachDialect('nested selections: statements', { entities: libraryEntities, seed: seedLibrary, options }, (test) => {
  for (const row of STATEMENTS) {
    test(row.name, async ({ em }) => {
      // In a transaction the levels run one after another, in this order; outside one, PostgreSQL and MariaDB run
      // sibling levels side by side: the same statements, in any order.
      const held = await em.transactional((tx) => captureDriver(() => engineOf(tx, row.root).list(row.query)));
      assert.equal(tables(selects(held.calls)), [...row.tables]);
      const { calls } = await captureDriver(() => engineOf(em, row.root).list(row.query));
      assert.equal(tables(calls).sort(), [...row.tables].sort());
    });
  }

  test('client values and parent keys are bound at every level, never in the SQL text', async ({ em }) => {
    const query =
      "fields=id,reviews(stars),tags(label)&filter=title ne 'Zq''1'&reviews.filter=stars ne 77" +
      "&tags.filter=label ne 'Zq''2'&tags.sort=-label&reviews.limit=3&reviews.offset=1";
    const { calls } = await captureDriver(() => engineOf(em, 'book').list(query));
    assert.is(calls.length, 3);
    for (const call of calls) {
      assert.not.ok(/Zq|77|\bin \(\s*\d/.test(call.sql), call.sql);
      assert.not.ok(/[<>=] \d/.test(call.sql), call.sql);
    }
    const values = calls.map((call) => call.values.map(String));
    assert.ok(values[0]!.includes("Zq'1"));
    assert.ok(values[1]!.includes('77'));
    assert.ok(values[2]!.includes("Zq'2"));
    // The live books but the filtered one are every level's parents, each one a bound value (7 on each level).
    for (const id of ['1', '2', '3', '4', '5', '7', '8']) {
      assert.ok(values[1]!.includes(id), `review level: parent ${id}`);
      assert.ok(values[2]!.includes(id), `tag level: parent ${id}`);
    }
  });

  test('explain() builds each level in order, running nothing; with one parent, as list() sends it', async ({ em }) => {
    const query = 'fields=id,author(name,profile(bio)),reviews(stars)&filter=id eq 1&reviews.count=true';
    const { result: explained, calls: none } = await captureDriver(() => engineOf(em, 'book').explain(query));
    assert.is(none.length, 0);
    const levels = explained.levels ?? [];
    assert.equal(
      levels.map((level) => [level.path, level.data !== undefined, level.count !== undefined]),
      [
        ['author', true, false],
        ['author.profile', true, false],
        ['reviews', true, true],
      ],
    );
    const { calls } = await em.transactional((tx) => captureDriver(() => engineOf(tx, 'book').list(query)));
    const sent = selects(calls);
    const built = [explained.data!, ...levels.flatMap((l) => [l.data!, ...(l.count ? [l.count] : [])])];
    assert.equal(
      sent.map((call) => asBuilt(call.sql)),
      built.map((statement) => statement.sql),
    );
    // The parents' keys stand as NULL there: every other value is the one list() sends.
    assert.equal(levels[2]!.data!.params.length, sent[3]!.values.length);
  });

  /** List `fields` under `controller`'s signal: an execution_failed ListError, and no statement past `author`. */
  async function expectStoppedAfterAuthor(em: EntityManager, fields: string, controller: AbortController) {
    try {
      const { result, calls } = await captureDriver(() =>
        engineOf(em, 'book')
          .list(fields, { signal: controller.signal })
          .then(
            () => undefined,
            (err: unknown) => err,
          ),
      );
      if (!isListError(result)) throw new Error(`expected a ListError, got ${String(result)}`);
      assert.is(result.code, 'execution_failed');
      assert.ok(
        tables(calls).every((table) => table === 'book' || table === 'author'),
        tables(calls).join(', '),
      );
    } finally {
      beforeStatement = undefined;
    }
  }

  test('an abort between levels stops the levels not yet run', async ({ em }) => {
    const controller = new AbortController();
    beforeStatement = (sql) => {
      if (/from [`"]author[`"] as [`"]lq_n[`"]/.test(sql)) controller.abort(new Error('client went away'));
    };
    await expectStoppedAfterAuthor(em, 'fields=id,author(name),reviews(stars),tags(label)', controller);
  });

  test('an abort from a timer, due while a level holds the event loop, stops the levels after it', async ({ em }) => {
    // author.profile follows author on every dialect (sibling levels may run side by side on PostgreSQL and MariaDB).
    const controller = new AbortController();
    beforeStatement = (sql) => {
      if (!/from [`"]author[`"] as [`"]lq_n[`"]/.test(sql)) return;
      // The client goes away as a timer (a closed socket is I/O, seen in the same turn of the loop); meanwhile the
      // loop is held for 5 ms, longer than SQLite's executor goes without turning it (dialect/sqlite.ts).
      setTimeout(() => controller.abort(new Error('client went away')), 0);
      const until = performance.now() + 5;
      while (performance.now() < until);
    };
    await expectStoppedAfterAuthor(em, 'fields=id,author(name,profile(bio))', controller);
  });

  test("a level runs in the application's transaction: it sees its uncommitted rows", async ({ em }) => {
    const engine = (tem: EntityManager) => engineOf(tem, 'book');
    await em
      .fork()
      .transactional(async (tem) => {
        tem.create(Review, { id: 20, tenant: 1, book: tem.getReference(Book, 1), stars: 2 });
        await tem.flush();
        const answer = await engine(tem).list('fields=id,reviews(stars)&filter=id eq 1&reviews.limit=3');
        const reviews = answer.items[0]!.reviews as { items: { id: number }[] };
        assert.equal(
          reviews.items.map((r) => r.id),
          [1, 2, 20],
        );
        throw ROLLBACK;
      })
      .catch((err) => {
        if (err !== ROLLBACK) throw err;
      });
  });
});

const chunking = suite('nested selections: parent keys split past the parameter limit');

chunking('SQLite: composite keys in statements of at most half its 32,766 parameters; others in one', () => {
  const parents = Array.from({ length: 20_000 }, (_, i) => [i, i]);
  const sizes = (dialect: Dialect, columns: number) =>
    parentChunks({ target: { dialect }, link: { inner: Array.from({ length: columns }) } }, parents).map(
      (part) => part.length,
    );
  assert.equal(sizes(sqlite, 2), [8191, 8191, 3618]);
  assert.equal(sizes(sqlite, 1), [16383, 3617]);
  assert.equal(sizes(postgresql, 2), [16383, 3617]);
  assert.equal(sizes(mariadb, 1), [20_000]);
  assert.equal(parentChunks({ target: { dialect: sqlite }, link: { inner: [1] } }, []), []);
});

chunking.run();
