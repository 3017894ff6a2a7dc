/**
 * What the nested-tree figures compare listql with, each building the same tree (20 books, each with its author,
 * publisher, three newest reviews and every tag) as plain objects:
 * - the statements written by hand, run through the driver MikroORM holds (pg Pool, mysql2 pool, better-sqlite3),
 *   one after another: the page, authors and publishers by key, each book's newest reviews by ROW_NUMBER, the tags
 *   through the pivot;
 * - a DataLoader-style resolver: the same statements, batched per relation by Promise-batching loaders that one
 *   resolver per book calls (what a GraphQL server with DataLoader does);
 * - MikroORM's `em.find` with `populate`, which cannot limit a to-many relation per parent: it loads every review of
 *   each book and the page keeps the newest three.
 */
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { Book } from './tree-model.ts';

type Dialect = 'sqlite' | 'postgresql' | 'mariadb';
type Row = Record<string, any>;

/** One nested list as the baselines answer it: the items and whether the parent has more. */
export interface List<T> {
  readonly items: readonly T[];
  readonly hasMore: boolean;
}

/** A book of the tree as the baselines answer it. */
export interface TreeBook {
  readonly id: number;
  readonly title: string;
  readonly author: Row | null;
  readonly publisher: Row | null;
  readonly reviews: List<Row>;
  readonly tags: List<Row>;
}

/** Run one statement with bound values through the driver, rows as objects. */
type All = (sql: string, values: readonly unknown[]) => Promise<Row[]>;

/** The part of mysql2's callback pool the raw statements use (prepared statements, as listql sends them). */
interface PreparedPool {
  execute(sql: string, values: unknown[], cb: (err: Error | null, rows: unknown) => void): void;
}

/** The driver's own client behind MikroORM's connection, as one `all(sql, values)`. */
export async function rawDriver(orm: MikroORM, dialect: Dialect): Promise<All> {
  const client: any = await (orm.em.getConnection() as any).getNativeClient();
  if (dialect === 'postgresql') return async (sql, values) => (await client.query(sql, values)).rows;
  if (dialect === 'mariadb') {
    const pool = client as PreparedPool;
    return (sql, values) =>
      new Promise((resolve, reject) =>
        pool.execute(sql, [...values], (err, rows) => (err ? reject(err) : resolve(rows as Row[]))),
      );
  }
  return async (sql, values) => client.prepare(sql).all(...values);
}

/** The five statements of the tree, by hand. `$n` placeholders on PostgreSQL, `?` elsewhere. */
export function treeStatements(all: All, dialect: Dialect) {
  const marks = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => (dialect === 'postgresql' ? `$${from + i}` : '?')).join(', ');
  const byKey = (rows: Row[], key: string) => new Map(rows.map((r) => [r[key] as number, r]));
  /** Group child rows by parent, `limit` to a parent, and whether it had more (rows carry limit + 1). */
  const lists = (rows: Row[], parent: string, limit: number, pick: (r: Row) => Row) => {
    const grouped = new Map<number, Row[]>();
    for (const r of rows) {
      const list = grouped.get(r[parent]);
      if (list) list.push(r);
      else grouped.set(r[parent], [r]);
    }
    const out = new Map<number, List<Row>>();
    for (const [key, list] of grouped)
      out.set(key, { items: list.slice(0, limit).map(pick), hasMore: list.length > limit });
    return out;
  };
  return {
    page: (limit: number) =>
      all(`select id, title, author_id, publisher_id from book order by id limit ${marks(1, 1)}`, [limit + 1]),
    authors: async (ids: readonly number[]) =>
      byKey(await all(`select id, name from author where id in (${marks(1, ids.length)})`, ids), 'id'),
    publishers: async (ids: readonly number[]) =>
      byKey(await all(`select id, name from publisher where id in (${marks(1, ids.length)})`, ids), 'id'),
    newestReviews: async (books: readonly number[], limit: number) =>
      lists(
        await all(
          `select id, stars, created_at, book_id from (
             select id, stars, created_at, book_id,
                    row_number() over (partition by book_id order by created_at desc, id) as rn
             from review where book_id in (${marks(1, books.length)})) x
           where rn <= ${marks(books.length + 1, 1)} order by book_id, rn`,
          [...books, limit + 1],
        ),
        'book_id',
        limit,
        (r) => ({ id: r.id, stars: r.stars, createdAt: r.created_at }),
      ),
    tags: async (books: readonly number[], limit: number) =>
      lists(
        await all(
          `select bt.book_id, t.id, t.name from book_tags bt join tag t on t.id = bt.tag_id
           where bt.book_id in (${marks(1, books.length)}) order by bt.book_id, t.name, t.id`,
          books,
        ),
        'book_id',
        limit,
        (r) => ({ id: r.id, name: r.name }),
      ),
  };
}

type Statements = ReturnType<typeof treeStatements>;

const NONE: List<Row> = { items: [], hasMore: false };

/** The tree by hand: the five statements one after another, children attached to their parents by key. */
export function handWritten(st: Statements, limit: number, reviews: number, tags: number) {
  return async (): Promise<{ items: TreeBook[]; hasMore: boolean }> => {
    const rows = await st.page(limit);
    const books = rows.slice(0, limit);
    const ids = books.map((b) => b.id as number);
    const distinct = (key: string) => [...new Set(books.map((b) => b[key]).filter((v) => v !== null))] as number[];
    const authorIds = distinct('author_id');
    const publisherIds = distinct('publisher_id');
    const authors = authorIds.length ? await st.authors(authorIds) : new Map();
    const publishers = publisherIds.length ? await st.publishers(publisherIds) : new Map();
    const newest = ids.length ? await st.newestReviews(ids, reviews) : new Map();
    const tagged = ids.length ? await st.tags(ids, tags) : new Map();
    const items = books.map((b) => ({
      id: b.id,
      title: b.title,
      author: authors.get(b.author_id) ?? null,
      publisher: publishers.get(b.publisher_id) ?? null,
      reviews: newest.get(b.id) ?? NONE,
      tags: tagged.get(b.id) ?? NONE,
    }));
    return { items, hasMore: rows.length > limit };
  };
}

/**
 * A DataLoader-style batch loader: the keys asked for in one tick are fetched by one call, each key once (a cache per
 * request, as DataLoader keeps); dispatched after the current promise jobs, as DataLoader schedules it.
 */
class Batcher<V> {
  private queue: { key: number; resolve(v: V): void; reject(e: unknown): void }[] = [];
  private readonly cache = new Map<number, Promise<V>>();
  private readonly fetch: (keys: readonly number[]) => Promise<Map<number, V>>;
  private readonly missing: V;

  constructor(fetch: (keys: readonly number[]) => Promise<Map<number, V>>, missing: V) {
    this.fetch = fetch;
    this.missing = missing;
  }

  load(key: number): Promise<V> {
    const cached = this.cache.get(key);
    if (cached) return cached;
    const promise = new Promise<V>((resolve, reject) => {
      if (this.queue.length === 0) void Promise.resolve().then(() => process.nextTick(() => this.dispatch()));
      this.queue.push({ key, resolve, reject });
    });
    this.cache.set(key, promise);
    return promise;
  }

  private async dispatch(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    try {
      const found = await this.fetch(batch.map((b) => b.key));
      for (const b of batch) b.resolve(found.get(b.key) ?? this.missing);
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  }
}

/** The tree through loaders: one resolver per book asks each relation's loader; each loader sends one statement. */
export function dataLoaderStyle(st: Statements, limit: number, reviews: number, tags: number) {
  return async (): Promise<{ items: TreeBook[]; hasMore: boolean }> => {
    const authors = new Batcher<Row | null>((ids) => st.authors(ids), null);
    const publishers = new Batcher<Row | null>((ids) => st.publishers(ids), null);
    const newest = new Batcher<List<Row>>((ids) => st.newestReviews(ids, reviews), NONE);
    const tagged = new Batcher<List<Row>>((ids) => st.tags(ids, tags), NONE);
    const rows = await st.page(limit);
    const items = await Promise.all(
      rows.slice(0, limit).map(async (b) => {
        const [author, publisher, r, t] = await Promise.all([
          authors.load(b.author_id),
          b.publisher_id === null ? null : publishers.load(b.publisher_id),
          newest.load(b.id),
          tagged.load(b.id),
        ]);
        return { id: b.id, title: b.title, author, publisher, reviews: r, tags: t };
      }),
    );
    return { items, hasMore: rows.length > limit };
  };
}

/**
 * The tree through MikroORM: `em.find` with `populate` on a fresh fork (MikroORM's default `balanced` strategy: the
 * to-one relations joined, each to-many one more query). It loads every review of each book, sorted, and keeps three.
 */
export function mikroPopulate(orm: MikroORM, limit: number, reviews: number, tags: number) {
  return async (): Promise<{ items: TreeBook[]; hasMore: boolean }> => {
    const em = orm.em.fork() as SqlEntityManager;
    const rows = await em.find(
      Book,
      {},
      {
        populate: ['author', 'publisher', 'reviews', 'tags'],
        orderBy: { id: 'asc' },
        limit: limit + 1,
        populateOrderBy: { reviews: { createdAt: 'desc', id: 'asc' }, tags: { name: 'asc', id: 'asc' } },
      },
    );
    const list = <T>(all: readonly T[], n: number, pick: (t: T) => Row): List<Row> => ({
      items: all.slice(0, n).map(pick),
      hasMore: all.length > n,
    });
    const items = rows.slice(0, limit).map((b) => ({
      id: b.id,
      title: b.title,
      author: { id: b.author.id, name: b.author.name },
      publisher: b.publisher ? { id: b.publisher.id, name: b.publisher.name } : null,
      reviews: list(b.reviews!.getItems(), reviews, (r) => ({ id: r.id, stars: r.stars, createdAt: r.createdAt })),
      tags: list(b.tags!.getItems(), tags, (t) => ({ id: t.id, name: t.name })),
    }));
    return { items, hasMore: rows.length > limit };
  };
}
