/**
 * How long the event loop stalls while SQLite serves the slowest accepted requests. better-sqlite3 runs each statement
 * synchronously on the main thread, so while one runs no other request, timer or socket is served: the longest
 * statement of a request is how late everything else gets. Measured with `perf_hooks.monitorEventLoopDelay` around
 * each request of bench/worst.ts's shapes (the wide endpoint's shapes, continuation pages included, and the heaviest
 * shapes of its list), then a hill-climb over the wide shapes steered by the loop's delay (`WORST_CLIMB`, 60 by
 * default; `WORST_SEED`), on the same bookstore (`WORST_BOOKS`, default 100,000 books; `WORST_KEEP=1` reuses a kept
 * database). Target: at most 250 ms.
 *
 * Run alone with `npx node bench/loop-delay.ts`, or as part of `npm run bench`.
 */

import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { Author, Book } from '../examples/bookstore/entities.ts';
import { type Engine, isListError } from '../src/index.ts';
import { fmt } from './stats.ts';
import { enginesOn, openWorst } from './worst.ts';
import {
  type Candidate,
  describeShape,
  type Endpoint,
  mutate,
  random,
  shapeCandidate,
  wideCandidates,
} from './worst-shapes.ts';

/** The loop may stall this long at most while a request runs. */
export const LOOP_DELAY_TARGET_MS = 250;
/** How often the monitor samples the loop, in milliseconds. */
const RESOLUTION_MS = 10;

/** The heaviest shapes of bench/worst.ts's list, at the default limits. */
function heavyCandidates(): Candidate[] {
  const relationSort = 'author/name,-publisher/name,author/born,-year,title';
  const quantifiers = [`not reviews/all(r: r/stars gt 3)`, `tags/any(t: t/name eq 'tag7')`];
  const or33 = Array.from({ length: 33 }, (_, i) => quantifiers[i % 2]).join(' or ');
  return [
    { label: 'or of 33 quantifiers', endpoint: 'books', query: { filter: or33 } },
    {
      label: 'or of 33 quantifiers, 5 sort keys, count',
      endpoint: 'books',
      query: { filter: or33, sort: relationSort, count: 'true', limit: '100' },
    },
    {
      label: 'quantifier depth 4, count',
      endpoint: 'deep',
      query: {
        filter: `books/all(b: b/tags/all(t: t/books/all(c: c/reviews/all(r: r/stars gt 0))))`,
        count: 'true',
      },
    },
    { label: 'search on every row, count', endpoint: 'books', query: { search: 'book', count: 'true', limit: '100' } },
    {
      label: 'offset 100000, relation sort',
      endpoint: 'books',
      query: { sort: relationSort, offset: '100000', limit: '100' },
    },
  ];
}

interface Measured {
  readonly label: string;
  readonly candidate: Candidate;
  readonly ms: number;
  /** The longest the event loop waited while the request ran. */
  readonly delay: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Run one request under the loop monitor (its first sample after enable() or reset() only sets its clock, so a stall
 * before that sample would go unseen); undefined when the engine refuses the request before any query. A sample spans the sampling
 * interval too, so a delay reads up to 10 ms long.
 */
async function measure(
  histogram: ReturnType<typeof monitorEventLoopDelay>,
  engine: Engine,
  base: () => unknown,
  candidate: Candidate,
): Promise<Measured | undefined> {
  let query = candidate.query;
  if (candidate.continued) {
    // A cursor binds the sort, not the filter: take one after the first row of the unfiltered list (as worst.ts).
    const sort = query.sort;
    const first = await engine
      .from(base() as never)
      .list({ ...(sort ? { sort } : {}), limit: '1' })
      .catch(() => undefined);
    const cursor = first?.page.nextCursor;
    if (!cursor) return undefined;
    query = { ...query, cursor };
  }
  // reset() restarts the monitor's clock too: its next sample only sets it again, so wait for that one first.
  histogram.reset();
  await sleep(RESOLUTION_MS * 3);
  const started = performance.now();
  try {
    await engine.from(base() as never).list(query);
  } catch (err) {
    if (isListError(err) && err.status < 500) return undefined;
    throw err;
  }
  const ms = performance.now() - started;
  // Let the sample that spans the last statement land before reading the histogram.
  await sleep(RESOLUTION_MS * 3);
  return { label: candidate.label, candidate, ms, delay: histogram.max / 1e6 };
}

/** Measure the event loop's worst delay during the slowest accepted requests on SQLite; lines for bench/run.ts. */
export async function benchLoopDelay(books = Number(process.env.WORST_BOOKS ?? 100_000)): Promise<string[]> {
  const db = await openWorst('sqlite', books, process.env.WORST_KEEP === '1');
  try {
    const orm = db.orm as MikroORM;
    const engines = enginesOn(orm);
    if (db.fresh) {
      await db.load(orm);
      for (const engine of Object.values(engines))
        for (const advice of engine.indexes()) await orm.em.getConnection().execute(advice.ddl);
      await orm.em.getConnection().execute('analyze');
    }
    const base = (endpoint: Endpoint) => () => {
      const em = orm.em.fork() as SqlEntityManager;
      return endpoint === 'authors' || endpoint === 'deep'
        ? em.createQueryBuilder(Author, 'x').where({ tenant: 1 })
        : em.createQueryBuilder(Book, 'x').where({ tenant: 1 });
    };
    const measured: Measured[] = [];
    const climbs = Number(process.env.WORST_CLIMB ?? 60);
    let shapes = 0;
    const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    histogram.enable();
    try {
      const run = (candidate: Candidate) =>
        measure(histogram, engines[candidate.endpoint], base(candidate.endpoint), candidate);
      let tried = 0;
      for (const candidate of [...heavyCandidates(), ...wideCandidates()]) {
        tried++;
        const m = await run(candidate);
        if (m) measured.push(m);
      }
      // The hill-climb of worst.ts, steered by the loop's delay: mutate one of the five worst accepted wide shapes.
      const rnd = random(Number(process.env.WORST_SEED ?? 1));
      for (let i = 0; i < climbs; i++) {
        const pool = measured
          .filter((m) => m.candidate.shape)
          .sort((a, b) => b.delay - a.delay)
          .slice(0, 5);
        const parent = pool[Math.floor(rnd() * pool.length)]?.candidate.shape;
        if (!parent) break;
        const shape = mutate(parent, rnd);
        tried++;
        const m = await run(shapeCandidate(`climb: ${describeShape(shape)}`, shape));
        if (m) measured.push(m);
      }
      shapes = tried;
    } finally {
      histogram.disable();
    }
    measured.sort((a, b) => b.delay - a.delay);
    const worst = measured[0];
    const lines = [
      `(${books.toLocaleString('en-US')} books; ${shapes} shapes, ${climbs} of them by the hill-climb; ${measured.length} accepted, one run each)`,
    ];
    for (const m of measured.slice(0, 5))
      lines.push(
        `  loop delay ${fmt(m.delay, 'ms').padStart(10)}  request ${fmt(m.ms, 'ms').padStart(10)}  ${m.label}`,
      );
    if (worst) {
      const ok = worst.delay <= LOOP_DELAY_TARGET_MS;
      lines.push(
        `worst event-loop delay: ${fmt(worst.delay, 'ms')} (${worst.label})   target ≤ ${LOOP_DELAY_TARGET_MS} ms   ${ok ? 'met' : 'MISSED'}`,
      );
    }
    return lines;
  } finally {
    await db.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log('\n## Event-loop delay during the worst accepted requests, SQLite');
  for (const l of await benchLoopDelay()) console.log(l);
}
