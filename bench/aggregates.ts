/**
 * Sort by an aggregate: `sort=-reviews/count()` on a bookstore of `AGG_BOOKS` books (default 100,000; 3 reviews each,
 * soft-deleted rows among both), page 1 and a deep page (past 90 % of the books), through the engine against the
 * same statement written by hand and sent with bound values (the engine's own statement text is not reused: the hand
 * statement is the correlated count an application would write, and for the deep page its keyset predicate).
 * Target: the engine's page at most 2× the hand-written one (docs/performance.md, Aggregates).
 *
 * Run alone with `npx node bench/aggregates.ts`, or as part of `npm run bench`. Environment: `AGG_BOOKS` (100000),
 * `AGG_DIALECTS` (all: sqlite, postgresql, mariadb), `AGG_ROUNDS` (9).
 */
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { Book, ENTITIES, Review } from '../examples/bookstore/entities.ts';
import { createEngine, filterable, schema, sortable } from '../src/index.ts';
import { openDatabase } from '../test/helpers/db.ts';
import { fmt, noise, sideBySide, verdict } from './stats.ts';
import { loadBookstore } from './worst.ts';

type Dialect = 'sqlite' | 'postgresql' | 'mariadb';

const TARGET = { max: 2 } as const;
const LIMIT = 20;

const reviews = schema(Review).expose('id', sortable()).expose('stars', filterable(), sortable());
const policy = schema(Book)
  .expose('id', filterable(), sortable())
  .expose('title', sortable())
  .relation('reviews', reviews, { aggregates: { count: true, avg: ['stars'] } });

/** Measure one dialect: load, advise indexes, then page 1 and the deep page side by side with the hand statement. */
export async function benchAggregates(dialect: Dialect, books: number, rounds = 9): Promise<string[]> {
  const db = await openDatabase(dialect, ENTITIES);
  try {
    const t0 = performance.now();
    await loadBookstore(db.orm, dialect, books);
    // The default budget refuses deep pages of this sort on SQLite (its share of one statement, docs/security.md):
    // measured here with room, so the figures say what the budget should allow.
    const engine = createEngine(db.orm, {
      policy,
      maxLimit: 100,
      limits: { maxSubqueries: 64 },
      requestTimeout: 120_000,
      statementTimeout: 120_000,
    });
    const conn = db.orm.em.getConnection();
    for (const advice of engine.indexes()) await conn.execute(advice.ddl).catch(() => undefined);
    await conn.execute(dialect === 'mariadb' ? 'analyze table book, review' : 'analyze');
    const loaded = ((performance.now() - t0) / 1000).toFixed(0);
    const sort = '-reviews/count()';
    const base = (orm: MikroORM) => (orm.em.fork() as SqlEntityManager).createQueryBuilder(Book, 'b');
    const scoped = () => engine.from(base(db.orm) as never);
    // The deep position: the key of the first row past 90 % of the books, read by the engine's own walk.
    let deepCursor: string | undefined;
    for await (const page of scoped().pages({ sort }, { pageSize: Math.floor(books * 0.9) })) {
      deepCursor = page.page.nextCursor;
      break;
    }
    if (!deepCursor) throw new Error('bench: no deep cursor');
    const deep = await scoped().list({ sort, limit: String(LIMIT), cursor: deepCursor });
    const firstDeep = deep.items[0] as { id: number } | undefined;
    if (!firstDeep) throw new Error('bench: the deep page is empty');
    const count = await hand(db.orm, dialect, `select ${countOf('b')} as c from book b where b.id = ?`, [firstDeep.id]);
    const at = Number((count[0] as { c: unknown }).c);
    const pageOne = await sideBySide(
      () => scoped().list({ sort, limit: String(LIMIT) }),
      () => hand(db.orm, dialect, handPage(), [LIMIT + 1]),
      rounds,
    );
    const deepPage = await sideBySide(
      () => scoped().list({ sort, limit: String(LIMIT), cursor: deepCursor }),
      () => hand(db.orm, dialect, handPage(true), [at, at, firstDeep.id - 1, LIMIT + 1]),
      rounds,
    );
    const line = (label: string, s: Awaited<ReturnType<typeof sideBySide>>) =>
      `  ${label}: listql ${fmt(s.a.median, 'ms')} vs hand ${fmt(s.b.median, 'ms')} = ` +
      `${s.ratio.median.toFixed(2)}x (${noise(s.ratio)})  ${verdict(s.ratio.median, TARGET)}`;
    return [
      `${dialect}: ${books.toLocaleString('en-US')} books, ${(books * 3).toLocaleString('en-US')} reviews (loaded in ${loaded} s)`,
      line(`sort=${sort} page 1`, pageOne),
      line(`sort=${sort} deep page (90 %)`, deepPage),
    ];
  } finally {
    await db.dispose();
  }
}

/** The live reviews of a book, counted as an application would write it. */
function countOf(alias: string): string {
  return `(select count(*) from review r where r.book_id = ${alias}.id and r.deleted_at is null)`;
}

/**
 * The page by hand: live books ordered by their live reviews' count, descending, then id; after a position, the
 * keyset predicate on (count, id). The count is written once per use, as the ORDER BY and WHERE need it.
 */
function handPage(after = false): string {
  const c = countOf('b');
  const seek = after ? ` and (${c} < ? or (${c} = ? and b.id > ?))` : '';
  return `select b.*, ${c} as c from book b where b.deleted_at is null${seek} order by ${c} desc, b.id asc limit ?`;
}

async function hand(orm: MikroORM, dialect: Dialect, sql: string, params: unknown[]): Promise<unknown[]> {
  const text = dialect === 'postgresql' ? numbered(sql) : sql;
  const knex = (orm.em.getConnection() as unknown as { getClient(): unknown }).getClient() as {
    executeQuery(q: unknown): Promise<{ rows: unknown[] }>;
  };
  const { CompiledQuery } = await import('kysely');
  return (await knex.executeQuery(CompiledQuery.raw(text, params))).rows;
}

function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const books = Number(process.env.AGG_BOOKS ?? 100_000);
  const rounds = Number(process.env.AGG_ROUNDS ?? 9);
  const named = (process.env.AGG_DIALECTS ?? 'sqlite,postgresql,mariadb').split(',').map((d) => d.trim());
  console.log(
    `load ${(await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  for (const dialect of named as Dialect[])
    for (const l of await benchAggregates(dialect, books, rounds)) console.log(l);
}
