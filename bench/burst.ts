/**
 * Fair share under a burst (docs/security.md, Fair share): on PostgreSQL, the bookstore of bench/worst.ts at its
 * scale (`WORST_BOOKS`, default 100,000 books) with the advised indexes and a pool of 10; 20 of the worst accepted
 * request shapes sent at once, and a cheap `limit=20` request sent 0.05 s, 1 s and 2 s into the burst. Printed: the
 * cheap requests' slowest latency beside the 1.5 s target, and how many expensive requests were answered, refused
 * with `overloaded` (503, Retry-After) or stopped by the statement timeout; once with the default admission and once
 * with `admission: false` for comparison.
 *
 * Run alone with `npx node bench/burst.ts`, or as part of `npm run bench`.
 */
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { Author, Book, ENTITIES } from '../examples/bookstore/entities.ts';
import { authorPolicy, bookPolicy } from '../examples/bookstore/policies.ts';
import { admissionOf } from '../src/engine/admission-weight.ts';
import { REQUEST_WORK } from '../src/engine/request-work.ts';
import { type AdmissionOptions, createEngine, type Engine, escapeLike, isListError } from '../src/index.ts';
import { openDatabase, type TestDatabase } from '../test/helpers/db.ts';
import { fmt, verdict } from './stats.ts';
import { loadBookstore } from './worst.ts';

export const CHEAP_TARGET_MS = 1500;

/** One request shape: the endpoint it goes to, and its query parameters. */
export interface Shape {
  readonly label: string;
  readonly endpoint: 'books' | 'authors';
  readonly query: Readonly<Record<string, string>>;
}

const RELATION_SORT = 'author/name,-publisher/name,author/born,-year,title';

/**
 * The worst shapes of bench/worst.ts that the default limits accept and admission weighs as expensive: `or` of
 * quantifiers, never-matching quantifiers with count, always-matching ones by `and`, quantifiers with a relation sort,
 * to-one paths with count, a 4 KB literal with a search, a deep offset. (benchBurst checks that each is accepted.)
 * (Its cheap-by-weight shapes, a 100-value `in` list or a search on every row with count, run as cheap requests;
 * the statement timeout bounds them.)
 */
export const WORST_SHAPES: readonly Shape[] = [
  {
    label: 'or of 4 quantifiers',
    endpoint: 'books',
    query: {
      filter: Array.from({ length: 4 }, (_, i) =>
        i % 2 ? `tags/any(t: t/name eq 'tag7')` : 'not reviews/all(r: r/stars gt 3)',
      ).join(' or '),
    },
  },
  {
    label: 'or of 2 never-matching quantifiers, count',
    endpoint: 'books',
    query: {
      filter: `reviews/all(r: r/stars gt 99) or tags/all(t: t/name eq 'zz')`,
      count: 'true',
      limit: '100',
    },
  },
  {
    label: 'and of 3 always-matching quantifiers',
    endpoint: 'books',
    query: {
      filter: `reviews/all(r: r/stars gt 0) and tags/all(t: t/name ne 'zz') and tags/all(t: t/name ne 'zy')`,
      limit: '100',
    },
  },
  {
    label: 'or of 2 quantifiers, a relation sort key',
    endpoint: 'books',
    query: {
      filter: `not reviews/all(r: r/stars gt 3) or tags/any(t: t/name eq 'tag7')`,
      sort: 'author/name,-year,title',
      limit: '100',
    },
  },
  {
    label: 'or of 4 to-one paths, count',
    endpoint: 'books',
    query: {
      filter: `author/name eq 'Author 7' or publisher/name in ('Publisher 3') or author/born gt 1950 or author/name eq 'Author 7'`,
      count: 'true',
    },
  },
  {
    label: 'title in 100 or ne, relation sort, count',
    endpoint: 'books',
    query: {
      filter: `title in (${Array.from({ length: 100 }, (_, i) => `'Book ${i * 991}'`).join(', ')}) or title ne 'x'`,
      sort: RELATION_SORT,
      count: 'true',
    },
  },
  {
    label: '4 KB contains literal + search, count',
    endpoint: 'books',
    query: {
      filter: `title contains '${'a'.repeat(4000)}' or author/name contains '${'a'.repeat(3000)}'`,
      search: 'b'.repeat(256),
      count: 'true',
    },
  },
  {
    label: 'offset 100000, relation sort',
    endpoint: 'books',
    query: { sort: RELATION_SORT, offset: '100000', limit: '100' },
  },
  {
    label: 'authors: books/any or books/all, count',
    endpoint: 'authors',
    query: {
      filter: `books/any(b: b/year lt 1950) or books/all(b: b/title contains 'x')`,
      count: 'true',
      sort: '-born,name',
    },
  },
];

/** Cheap requests: a plain page, the next page by cursor, a filter on the book's own columns. */
export const CHEAP_SHAPES: readonly Shape[] = [
  { label: 'limit=20', endpoint: 'books', query: { limit: '20' } },
  { label: 'year filter, sorted', endpoint: 'books', query: { filter: 'year gt 1990', sort: '-year', limit: '20' } },
  { label: 'authors page', endpoint: 'authors', query: { sort: 'name', limit: '20' } },
];

/** The bookstore at scale and its engines (one ORM, so they share one admission). */
export interface Bookstore {
  readonly db: TestDatabase;
  readonly engines: Record<Shape['endpoint'], Engine>;
  /** Send one shape with a fresh EntityManager, as a request would. */
  send(shape: Shape, signal?: AbortSignal): Promise<unknown>;
  /** Build engines with another admission setting over the same ORM. */
  withAdmission(admission: AdmissionOptions | false): Bookstore;
}

/** Load the bookstore of bench/worst.ts (PostgreSQL, or MariaDB for the soak) with the advised indexes. */
export async function openBookstore(
  books: number,
  dialect: 'postgresql' | 'mariadb' = 'postgresql',
): Promise<Bookstore & { loadedSeconds: number }> {
  const db = await openDatabase(dialect, ENTITIES);
  const t0 = performance.now();
  await loadBookstore(db.orm, dialect, books);
  const store = bookstore(db, {});
  const conn = db.orm.em.getConnection();
  for (const engine of Object.values(store.engines))
    for (const advice of engine.indexes()) await conn.execute(advice.ddl);
  if (dialect === 'mariadb') await conn.execute('analyze table publisher, author, tag, book, review, book_tags');
  else await conn.execute('analyze');
  return { ...store, loadedSeconds: (performance.now() - t0) / 1000 };
}

function bookstore(db: TestDatabase, admission: AdmissionOptions | false): Bookstore {
  const orm: MikroORM = db.orm;
  const search = (_ctx: unknown, qb: any, term: string) =>
    qb.andWhere(`lower(${qb.alias}.title) like ? escape '!'`, [`%${escapeLike(term.toLowerCase(), '!')}%`]);
  const engines = {
    books: createEngine(orm, { policy: bookPolicy, allowCount: true, search, admission }),
    authors: createEngine(orm, { policy: authorPolicy, allowCount: true, admission }),
  };
  return {
    db,
    engines,
    send(shape, signal) {
      const em = orm.em.fork() as SqlEntityManager;
      const entity = shape.endpoint === 'books' ? Book : Author;
      const base = em.createQueryBuilder(entity as typeof Book, 'x').where({ tenant: 1 });
      return engines[shape.endpoint].from(base as never).list(shape.query, signal ? { signal } : {});
    },
    withAdmission: (other) => bookstore(db, other),
  };
}

/** The weight admission gives a shape (what its engine answers under REQUEST_WORK). */
export function weightOfShape(store: Bookstore, shape: Shape): number {
  const price = (store.engines[shape.endpoint] as unknown as Record<symbol, (q: object) => { weight: number }>)[
    REQUEST_WORK
  ]!;
  return price(shape.query).weight;
}

/** What one request did: answered, refused by admission, stopped by the statement timeout, or failed. */
export type Outcome = 'answered' | 'overloaded' | 'query_timeout' | 'failed';

export function outcomeOf(err: unknown): Outcome {
  if (err === undefined) return 'answered';
  if (isListError(err) && (err.code === 'overloaded' || err.code === 'query_timeout')) return err.code;
  return 'failed';
}

interface Round {
  readonly cheapMs: readonly number[];
  readonly outcomes: Readonly<Record<Outcome, number>>;
  readonly seconds: number;
}

/** 20 worst requests at once, and a cheap one 0.05 s, 1 s and 2 s in. */
async function burst(store: Bookstore, size = 20): Promise<Round> {
  const outcomes: Record<Outcome, number> = { answered: 0, overloaded: 0, query_timeout: 0, failed: 0 };
  const started = performance.now();
  const expensive = Array.from({ length: size }, (_, i) =>
    store.send(WORST_SHAPES[i % WORST_SHAPES.length]!).then(
      () => outcomes.answered++,
      (err: unknown) => outcomes[outcomeOf(err)]++,
    ),
  );
  const cheapMs: number[] = [];
  for (const at of [50, 1000, 2000]) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - (performance.now() - started))));
    const t0 = performance.now();
    await store.send(CHEAP_SHAPES[0]!);
    cheapMs.push(performance.now() - t0);
  }
  await Promise.all(expensive);
  return { cheapMs, outcomes, seconds: (performance.now() - started) / 1000 };
}

/** The lines of one round; `baseline`: a round without admission, shown for comparison, with no target of its own. */
function describeRound(name: string, round: Round, baseline = false): string[] {
  const slowest = Math.max(...round.cheapMs);
  const { answered, overloaded, query_timeout, failed } = round.outcomes;
  return [
    `${name}: cheap limit=20 request, slowest of 3: ${fmt(slowest, 'ms')} (${round.cheapMs.map((ms) => fmt(ms, 'ms')).join(', ')})   ${baseline ? 'baseline, no target' : verdict(slowest, { max: CHEAP_TARGET_MS }, ' ms')}`,
    `${' '.repeat(name.length)}  expensive: ${answered} answered, ${overloaded} refused (overloaded), ${query_timeout} stopped (query_timeout)${failed ? `, ${failed} FAILED` : ''}; burst over in ${round.seconds.toFixed(1)} s`,
  ];
}

/** The burst on PostgreSQL, with and without admission; used by bench/run.ts and runnable alone. */
export async function benchBurst(books = Number(process.env.WORST_BOOKS ?? 100_000)): Promise<string[]> {
  const store = await openBookstore(books);
  try {
    const admission = admissionOf(store.engines.books)!;
    const { maxExpensive, queue, queueTimeout, retryAfter } = admission.settings;
    // Every shape must be one the default limits accept: a refused one would not load the server at all.
    const weights = WORST_SHAPES.map((s) => {
      try {
        return weightOfShape(store, s);
      } catch (err) {
        throw new Error(`bench/burst.ts: the shape "${s.label}" is refused at the default limits`, { cause: err });
      }
    });
    const lines = [
      `(${books.toLocaleString('en-US')} books, loaded and indexed in ${store.loadedSeconds.toFixed(1)} s; pool of 10; 20 requests over ${WORST_SHAPES.length} worst shapes of weight ${Math.min(...weights)}–${Math.max(...weights)}, cheap weight ${weightOfShape(store, CHEAP_SHAPES[0]!)})`,
    ];
    // Warm the pool and the plans, so neither round pays for the first connections.
    await Promise.all(Array.from({ length: 10 }, (_, i) => store.send(CHEAP_SHAPES[i % CHEAP_SHAPES.length]!)));
    lines.push(
      ...describeRound(
        `admission on (${maxExpensive} expensive at once, queue ${queue}, ${queueTimeout} ms, Retry-After ${retryAfter} s)`,
        await burst(store),
      ),
    );
    const stats = admission.stats();
    const idle = stats.expensive.running + stats.expensive.queued + stats.cheap.running + stats.cheap.queued === 0;
    lines.push(`slots held after the burst: ${idle ? 'none' : JSON.stringify(stats)}   ${idle ? 'met' : 'MISSED'}`);
    lines.push(...describeRound('admission off', await burst(store.withAdmission(false)), true));
    return lines;
  } finally {
    await store.db.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log('\n## Fair share under a burst, PostgreSQL');
  for (const line of await benchBurst()) console.log(line);
}
