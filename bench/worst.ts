/**
 * The worst accepted request: search the default limits for slow request shapes on a bookstore of `WORST_BOOKS` books
 * (default 100,000; 3 reviews and 2 tags each) with the indexes engine.indexes() advises, and report the slowest
 * request the engine accepts, on SQLite, PostgreSQL and MariaDB. Target: at most 1 s on each.
 *
 * The shapes: deep quantifiers, a wide `or` of quantifiers, relation sort keys with count, maximal `in` lists and
 * literals, deep offsets; on a permissive endpoint (`wide`, bench/worst-shapes.ts): case-insensitive operators inside
 * quantifiers, never-matching quantifiers by `or` and always-matching ones by `and`, inner predicates filled to
 * maxNodes, offsets past the end, continuation pages of nullable sorts. Then a short hill-climb mutates the slowest
 * accepted shapes (more nodes, swapped operators, i-operators, count, offsets, sorts, continuation pages).
 *
 * Run alone with `npx node bench/worst.ts`, or as part of `npm run bench`. Environment:
 * - `WORST_BOOKS` (100000): the bookstore's size;
 * - `WORST_DIALECTS` (all): a comma-separated list of sqlite, postgresql, mariadb;
 * - `WORST_CLIMB` (60): mutants the hill-climb tries per dialect (0: none); `WORST_SEED` (1): its random seed;
 * - `WORST_PG_JIT=on`: keep PostgreSQL's JIT compilation on (the server's default); the bench turns it off for its
 *   database, as docs/security.md advises;
 * - `WORST_KEEP=1`: keep the loaded databases (`listql_worst_<books>`, SQLite in the temporary directory) and reuse
 *   them on the next run, for iterating on shapes.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EntitySchema, type MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { Author, Book, ENTITIES, Publisher, Review, Tag } from '../examples/bookstore/entities.ts';
import { authorPolicy, bookPolicy } from '../examples/bookstore/policies.ts';
import { createEngine, type Engine, escapeLike, filterable, isListError, schema, sortable } from '../src/index.ts';
import {
  mariadbAdmin,
  microsecondDateTimes,
  mysqlAdminUrl,
  openDatabase,
  postgresAdmin,
  postgresAdminUrl,
} from '../test/helpers/db.ts';
import { fmt } from './stats.ts';
import {
  type Candidate,
  describeShape,
  type Endpoint,
  mutate,
  random,
  type Shape,
  shapeCandidate,
  wideCandidates,
} from './worst-shapes.ts';

type Dialect = 'sqlite' | 'postgresql' | 'mariadb';

/** What one candidate did: accepted and timed, or refused before any query with a code. */
interface Outcome {
  readonly candidate: Candidate;
  readonly ms?: number;
  /** The server stopped a statement at its time limit (the request was accepted and took at least this long). */
  readonly stopped?: boolean;
  readonly refused?: string;
}

const TARGET_MS = 1000;

/** Fill the bookstore tables with `books` books and proportionate related rows, in SQL. */
export async function loadBookstore(orm: MikroORM, dialect: Dialect, books: number): Promise<void> {
  const conn = orm.em.getConnection();
  const series = (n: number) => {
    if (dialect === 'postgresql') return `select g as n from generate_series(1, ${n}) g`;
    // MariaDB's sequence engine; a recursive CTE stops at max_recursive_iterations there.
    if (dialect === 'mariadb') return `select seq as n from seq_1_to_${n}`;
    return `with recursive s(n) as (select 1 union all select n + 1 from s where n < ${n}) select n from s`;
  };
  const deleted = { postgresql: "timestamptz '2024-01-01'", sqlite: '1704067200000', mariadb: "'2024-01-01'" }[dialect];
  // `||` is a logical OR on MariaDB unless PIPES_AS_CONCAT is set; concat() is understood by all three.
  const text = (prefix: string, n: string) =>
    dialect === 'sqlite' ? `'${prefix}' || ${n}` : `concat('${prefix}', ${n})`;
  const authors = Math.max(10, Math.floor(books / 10));
  const run = (sql: string) => conn.execute(sql);
  await run(
    `insert into publisher (id, tenant, name) select n, 1 + n % 2, ${text('Publisher ', 'n')} from (${series(100)}) t`,
  );
  await run(
    `insert into author (id, tenant, name, born, deleted_at)
     select n, 1 + n % 2, ${text('Author ', 'n')}, 1900 + n % 100, case when n % 50 = 0 then ${deleted} end from (${series(authors)}) t`,
  );
  await run(`insert into tag (id, name) select n, ${text('tag', 'n')} from (${series(50)}) t`);
  await run(
    `insert into book (id, tenant, title, year, price, author_id, publisher_id, deleted_at)
     select n, 1 + n % 2, ${text('Book ', 'n')}, 1900 + n % 120, (n % 5000) / 100.0, 1 + n % ${authors},
            case when n % 10 = 0 then null else 1 + n % 100 end, case when n % 40 = 0 then ${deleted} end
     from (${series(books)}) t`,
  );
  await run(
    `insert into review (id, tenant, book_id, reviewer, stars, deleted_at)
     select n, 1 + n % 2, 1 + n % ${books}, ${text('r', '(n % 1000)')}, 1 + n % 5, case when n % 30 = 0 then ${deleted} end
     from (${series(books * 3)}) t`,
  );
  await run(`insert into book_tags (book_id, tag_id) select n, 1 + n % 50 from (${series(books)}) t`);
  await run(`insert into book_tags (book_id, tag_id) select n, 1 + (n + 25) % 50 from (${series(books)}) t`);
}

/** The request shapes to try, each at or near the default limits. */
function candidates(): Candidate[] {
  const out: Candidate[] = [];
  const relationSort = 'author/name,-publisher/name,author/born,-year,title';
  const quantifiers = [`not reviews/all(r: r/stars gt 3)`, `tags/any(t: t/name eq 'tag7')`];
  for (const n of [1, 2, 3, 4, 8, 16, 24, 33]) {
    const filter = Array.from({ length: n }, (_, i) => quantifiers[i % 2]).join(' or ');
    out.push({ label: `or of ${n} quantifiers`, endpoint: 'books', query: { filter } });
    out.push({
      label: `or of ${n} quantifiers, 5 sort keys, count`,
      endpoint: 'books',
      query: { filter, sort: relationSort, count: 'true', limit: '100' },
    });
  }
  for (const n of [4, 16, 33]) {
    const paths = [`author/name eq 'Author 7'`, `publisher/name in ('Publisher 3')`, `author/born gt 1950`];
    const filter = Array.from({ length: n }, (_, i) => paths[i % 3]).join(' or ');
    out.push({ label: `or of ${n} to-one paths, count`, endpoint: 'books', query: { filter, count: 'true' } });
  }
  const deep = [
    `books/any(b: b/tags/any(t: t/books/any(c: c/reviews/any(r: r/stars gt 99))))`,
    `books/all(b: b/tags/all(t: t/books/all(c: c/reviews/all(r: r/stars gt 0))))`,
    `not books/any(b: b/tags/any(t: t/books/any(c: c/reviews/any(r: r/stars gt 99))))`,
  ];
  for (const filter of deep) {
    out.push({ label: `quantifier depth 4 (#${deep.indexOf(filter) + 1})`, endpoint: 'deep', query: { filter } });
    out.push({
      label: `quantifier depth 4 (#${deep.indexOf(filter) + 1}), count`,
      endpoint: 'deep',
      query: { filter, count: 'true' },
    });
  }
  out.push({
    label: 'nested any, or of 8',
    endpoint: 'deep',
    query: {
      filter: Array.from({ length: 8 }, () => `books/any(b: b/tags/any(t: t/books/any(c: c/year gt 1950)))`).join(
        ' or ',
      ),
      count: 'true',
    },
  });
  const ids = Array.from({ length: 100 }, (_, i) => String(i * 997 + 1)).join(', ');
  out.push({ label: 'in list of 100, count', endpoint: 'books', query: { filter: `id in (${ids})`, count: 'true' } });
  const titles = Array.from({ length: 100 }, (_, i) => `'Book ${i * 991}'`).join(', ');
  out.push({
    label: 'title not in 100, relation sort, count',
    endpoint: 'books',
    query: { filter: `title in (${titles}) or title ne 'x'`, sort: relationSort, count: 'true' },
  });
  const long = 'a'.repeat(4000);
  out.push({
    label: '4 KB contains literal + search, count',
    endpoint: 'books',
    query: {
      filter: `title contains '${long}' or author/name contains '${long.slice(0, 3000)}'`,
      search: 'b'.repeat(256),
      count: 'true',
    },
  });
  out.push({
    label: 'search on every row, count',
    endpoint: 'books',
    query: { search: 'book', count: 'true', limit: '100' },
  });
  out.push({
    label: 'offset 100000, relation sort',
    endpoint: 'books',
    query: { sort: relationSort, offset: '100000', limit: '100' },
  });
  out.push({
    label: 'authors: books/any or books/all, count',
    endpoint: 'authors',
    query: {
      filter: `books/any(b: b/year lt 1950) or books/all(b: b/title contains 'x')`,
      count: 'true',
      sort: '-born,name',
    },
  });
  return out;
}

/** A policy a permissive developer might write: authors → books → tags → books → reviews, four hops deep. */
function deepPolicy() {
  const reviews = schema(Review).expose('stars', filterable());
  const innerBooks = schema(Book).expose('year', filterable()).relation('reviews', reviews);
  const tags = schema(Tag).expose('name', filterable()).relation('books', innerBooks);
  const books = schema(Book).expose('year', filterable()).relation('tags', tags).relation('reviews', reviews);
  return schema(Author).expose('id', sortable()).expose('name', filterable(), sortable()).relation('books', books);
}

/**
 * The bookstore's Book with one more column, `rank`: a nullable integer (NULL on every tenth book), so sorts on a
 * nullable root key (whose continuation pages PostgreSQL and MariaDB read as a UNION ALL of branches) can be tried.
 */
type RankedBook = Book & { rank?: number | null };
const RankedBookSchema = new EntitySchema<RankedBook>({
  class: Book as never,
  filters: { softDelete: { name: 'softDelete', cond: { deletedAt: null }, default: true } },
  indexes: [{ properties: ['tenant', 'id'] }, { properties: ['author'] }, { properties: ['publisher'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    tenant: { type: 'integer', hidden: true },
    title: { type: 'string' },
    year: { type: 'integer' },
    price: { type: 'decimal', precision: 8, scale: 2, runtimeType: 'number' },
    rank: { type: 'integer', nullable: true },
    author: { kind: 'm:1', entity: () => Author },
    publisher: { kind: 'm:1', entity: () => Publisher, nullable: true },
    reviews: { kind: '1:m', entity: () => Review, mappedBy: 'book' },
    tags: { kind: 'm:n', entity: () => Tag, owner: true, inversedBy: 'books', pivotEntity: () => BOOK_TAG },
    deletedAt: { type: 'datetime', nullable: true, hidden: true },
  },
});
const BOOK_TAG = ENTITIES.find((e) => e.meta.tableName === 'book_tags')!.meta.class;
const WORST_ENTITIES = ENTITIES.map((e) => (e.meta.class === Book ? RankedBookSchema : e));

/** A permissive developer's endpoint: i-operators on every string, a nullable sortable key, every relation. */
function widePolicy() {
  const text = filterable('eq', 'ne', 'contains', 'ieq', 'ine', 'icontains', 'istartswith', 'iendswith');
  const reviews = schema(Review).expose('reviewer', text, sortable()).expose('stars', filterable(), sortable());
  const tags = schema(Tag).expose('name', text, sortable());
  const author = schema(Author).expose('name', text, sortable()).expose('born', filterable(), sortable());
  const publisher = schema(Publisher).expose('name', text, sortable());
  return schema(Book as unknown as new () => RankedBook)
    .expose('id', filterable('eq', 'in'), sortable())
    .expose('title', text, sortable())
    .expose('year', filterable(), sortable())
    .expose('price', filterable(), sortable())
    .expose('rank', filterable(), sortable())
    .relation('author', author)
    .relation('publisher', publisher)
    .relation('reviews', reviews)
    .relation('tags', tags);
}

/** Open the bench's database: fresh, or with `keep`, the one a previous run loaded with the same size. */
export async function openWorst(dialect: Dialect, books: number, keep: boolean) {
  const load = async (orm: MikroORM) => {
    await loadBookstore(orm, dialect, books);
    await orm.em
      .getConnection()
      .execute('update book set rank = case when id % 10 = 0 then null else (id * 7919) % 1000 end');
  };
  if (!keep) {
    const db = await openDatabase(dialect, WORST_ENTITIES);
    return { orm: db.orm, fresh: true, load, dispose: () => db.dispose() };
  }
  const name = `listql_worst_${books}`;
  let fresh = false;
  let options: Record<string, unknown>;
  if (dialect === 'sqlite') {
    const file = join(tmpdir(), `${name}.sqlite`);
    fresh = !existsSync(file);
    options = { dbName: file };
  } else if (dialect === 'postgresql') {
    const found = await postgresAdmin((c) => c.query('select 1 from pg_database where datname = $1', [name]));
    if (found.rowCount === 0) await postgresAdmin((c) => c.query(`create database "${name}"`));
    fresh = found.rowCount === 0;
    const url = new URL(await postgresAdminUrl());
    url.pathname = `/${name}`;
    options = { clientUrl: url.toString() };
  } else {
    const [rows] = await mariadbAdmin((c) => c.query('show databases like ?', [name]));
    fresh = (rows as unknown[]).length === 0;
    if (fresh) await mariadbAdmin((c) => c.query(`create database \`${name}\``));
    const url = new URL(await mysqlAdminUrl());
    url.pathname = `/${name}`;
    options = { clientUrl: url.toString(), discovery: microsecondDateTimes() };
  }
  const driver =
    dialect === 'sqlite'
      ? await import('@mikro-orm/sqlite')
      : dialect === 'postgresql'
        ? await import('@mikro-orm/postgresql')
        : await import('@mikro-orm/mariadb');
  const orm = (await driver.MikroORM.init({ entities: [...WORST_ENTITIES], debug: false, ...options })) as MikroORM;
  if (fresh) await orm.schema.create();
  return { orm, fresh, load, dispose: () => orm.close(true) };
}

/** The engines of the bench's endpoints. */
export function enginesOn(orm: MikroORM): Record<Endpoint, Engine> {
  return {
    books: createEngine(orm, {
      policy: bookPolicy,
      allowCount: true,
      search: (_ctx, qb, term) =>
        qb.andWhere(`lower(${qb.alias}.title) like ? escape '!'`, [`%${escapeLike(term.toLowerCase(), '!')}%`]),
    }),
    authors: createEngine(orm, { policy: authorPolicy, allowCount: true }),
    deep: createEngine(orm, { policy: deepPolicy(), allowCount: true }),
    wide: createEngine(orm, { policy: widePolicy(), allowCount: true }),
  };
}

async function runOn(dialect: Dialect, books: number): Promise<string[]> {
  const keep = process.env.WORST_KEEP === '1';
  const db = await openWorst(dialect, books, keep);
  try {
    const t0 = performance.now();
    const engines = enginesOn(db.orm);
    const conn = db.orm.em.getConnection();
    if (db.fresh) {
      await db.load(db.orm);
      for (const engine of Object.values(engines))
        for (const advice of engine.indexes()) await conn.execute(advice.ddl);
      if (dialect === 'mariadb') await conn.execute('analyze table publisher, author, tag, book, review, book_tags');
      else await conn.execute('analyze');
    }
    if (dialect === 'postgresql') {
      // docs/security.md advises JIT off for an API's role: compiling a costly plan took longer than running it.
      const jit = process.env.WORST_PG_JIT === 'on' ? 'on' : 'off';
      const [{ name }] = (await conn.execute('select current_database() as name')) as [{ name: string }];
      await conn.execute(`alter database "${name}" set jit = ${jit}`);
      await db.orm.reconnect();
    }
    const loaded = ((performance.now() - t0) / 1000).toFixed(1);

    const outcomes: Outcome[] = [];
    for (const candidate of [...candidates(), ...wideCandidates()])
      outcomes.push(await attempt(db.orm, engines, candidate));
    const climbed = await climb(db.orm, engines, outcomes);
    // Time the slowest three again and keep the median of three runs, so one noisy run does not decide.
    const slow = outcomes
      .filter((o) => o.ms !== undefined)
      .sort((a, b) => (b.ms ?? 0) - (a.ms ?? 0))
      .slice(0, 3);
    for (const o of slow) {
      const again = [o.ms ?? 0];
      for (let i = 0; i < 2; i++) again.push((await attempt(db.orm, engines, o.candidate)).ms ?? 0);
      again.sort((a, b) => a - b);
      outcomes[outcomes.indexOf(o)] = { ...o, ms: again[1] ?? 0 };
    }
    return report(books, loaded, outcomes, climbed);
  } finally {
    await db.dispose();
  }
}

/**
 * The hill-climb: `WORST_CLIMB` times, mutate one of the five slowest accepted `wide` shapes and try the mutant; an
 * accepted mutant joins the outcomes (and so may be mutated in turn). Returns how many mutants were tried.
 */
async function climb(orm: MikroORM, engines: Record<Endpoint, Engine>, outcomes: Outcome[]): Promise<number> {
  const tries = Number(process.env.WORST_CLIMB ?? 60);
  const rnd = random(Number(process.env.WORST_SEED ?? 1));
  for (let i = 0; i < tries; i++) {
    const pool = outcomes
      .filter((o) => o.ms !== undefined && o.candidate.shape)
      .sort((a, b) => (b.ms ?? 0) - (a.ms ?? 0))
      .slice(0, 5);
    const parent = pool[Math.floor(rnd() * pool.length)]?.candidate.shape;
    if (!parent) return i;
    const shape: Shape = mutate(parent, rnd);
    outcomes.push(await attempt(orm, engines, shapeCandidate(`climb: ${describeShape(shape)}`, shape)));
  }
  return tries;
}

function report(books: number, loaded: string, outcomes: readonly Outcome[], climbed: number): string[] {
  const accepted = outcomes.filter((o) => o.ms !== undefined).sort((a, b) => (b.ms ?? 0) - (a.ms ?? 0));
  const refused = outcomes.filter((o) => o.refused !== undefined);
  const worst = accepted[0];
  const lines = [
    `(${books.toLocaleString('en-US')} books, ${(books * 3).toLocaleString('en-US')} reviews, loaded and indexed in ${loaded} s; ${outcomes.length} shapes (${climbed} by the hill-climb), ${accepted.length} accepted, ${refused.length} refused before any query)`,
  ];
  const name = (o: Outcome) =>
    `${o.candidate.label}${o.stopped ? ' [stopped by the statement timeout]' : ''}  ${new URLSearchParams(
      o.candidate.query,
    )
      .toString()
      .slice(0, 160)}`;
  for (const o of accepted.slice(0, 5)) lines.push(`  ${fmt(o.ms ?? 0, 'ms').padStart(10)}  ${name(o)}`);
  for (const o of refused.slice(0, 5)) lines.push(`  ${'refused'.padStart(10)}  ${o.candidate.label}: ${o.refused}`);
  if (worst) {
    const ok = (worst.ms ?? 0) <= TARGET_MS;
    lines.push(
      `slowest accepted request: ${fmt(worst.ms ?? 0, 'ms')} (${worst.candidate.label})   target ≤ ${TARGET_MS} ms   ${ok ? 'met' : 'MISSED'}`,
    );
  }
  return lines;
}

async function attempt(orm: MikroORM, engines: Record<Endpoint, Engine>, candidate: Candidate): Promise<Outcome> {
  const engine = engines[candidate.endpoint];
  const base = () => {
    const em = orm.em.fork() as SqlEntityManager;
    return candidate.endpoint === 'authors' || candidate.endpoint === 'deep'
      ? em.createQueryBuilder(Author, 'x').where({ tenant: 1 })
      : em.createQueryBuilder(Book, 'x').where({ tenant: 1 });
  };
  let query = candidate.query;
  if (candidate.continued) {
    // A cursor is bound to the sort, not the filter: take one after the first row of the unfiltered list.
    const sort = candidate.query.sort;
    const first = await engine
      .from(base())
      .list({ ...(sort ? { sort } : {}), limit: '1' })
      .catch((err: unknown) => err);
    if (isListError(first)) return { candidate, refused: `no cursor: ${first.code}` };
    if (first instanceof Error) throw first;
    const cursor = (first as { page: { nextCursor?: string } }).page.nextCursor;
    if (cursor) query = { ...query, cursor };
  }
  const started = performance.now();
  try {
    await engine.from(base()).list(query, { signal: AbortSignal.timeout(120_000) });
    return { candidate, ms: performance.now() - started };
  } catch (err) {
    if (isListError(err) && err.status < 500) return { candidate, refused: `${err.code}: ${err.message}` };
    // A statement timeout is the server's guard working: the request was accepted and cost at least this long.
    if (isListError(err) && err.code === 'query_timeout')
      return { candidate, ms: performance.now() - started, stopped: true };
    throw err;
  }
}

/** Find the worst accepted request on each of `dialects`; used by bench/run.ts and runnable alone. */
export async function benchWorst(
  dialects: readonly Dialect[] = ['sqlite', 'postgresql', 'mariadb'],
  books = Number(process.env.WORST_BOOKS ?? 100_000),
): Promise<Partial<Record<Dialect, string[]>>> {
  const out: Partial<Record<Dialect, string[]>> = {};
  for (const dialect of dialects) out[dialect] = await runOn(dialect, books);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const named = (process.env.WORST_DIALECTS ?? 'sqlite,postgresql,mariadb').split(',').map((d) => d.trim());
  // One dialect at a time, each printed as soon as it is done.
  for (const dialect of named as Dialect[]) {
    const result = await benchWorst([dialect]);
    console.log(`\n## Worst accepted request, ${dialect}`);
    for (const l of result[dialect] ?? []) console.log(l);
  }
}
