/**
 * The engine's request path before SQL: from the request's parameters to the data statement it would send (text
 * and values), through parse, checks, cost budget, cursor plan and the compiled statement of the shape (or, for a
 * new shape, its planning). Nothing reaches the database. Compared with the targets of compiled statements.
 */
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { createEngine } from '../src/engine/index.ts';
import { PAGE_STATEMENT } from '../src/engine/page/compiled-data.ts';
import { filterable, schema, sortable } from '../src/policy/index.ts';
import { Book, Review } from './model.ts';
import { NEVER_SEEN_PARSE, neverSeenFilter, TYPICAL } from './parse.ts';
import { fmt, noise, type Sample, summarize, type Target, verdict, warmUpAsync } from './stats.ts';

type StatementOf = (query: Record<string, string>) => Promise<unknown>;

/** Time an async call in microseconds, over `runs` batches of `batch` calls. */
async function microsPerAsyncCall(fn: () => Promise<unknown>, runs = 30, batch = 100): Promise<Sample> {
  for (let i = 0; i < batch; i++) await fn();
  const values: number[] = [];
  for (let r = 0; r < runs; r++) {
    // BENCH_CPU=1: processor time instead of elapsed time (for a look on a busy machine).
    const cpu = process.env.BENCH_CPU ? process.cpuUsage() : undefined;
    const start = performance.now();
    for (let i = 0; i < batch; i++) await fn();
    const used = cpu && process.cpuUsage(cpu);
    values.push(((used ? (used.user + used.system) / 1000 : performance.now() - start) * 1000) / batch);
  }
  return summarize(values);
}

/** A filter of 100 nodes (50 comparisons, `not`, and/or) in a shape of its own for every `i`. */
export function hundredNodeShape(i: number): string {
  const parts: string[] = [];
  for (let k = 0; k < 50; k++) parts.push(`price ${(i >> (k % 20)) & 1 ? 'gt' : 'lt'} ${k + i}`);
  return `not ${parts.join(' or ').replace(/ or /g, (_m, at: number) => ((at + i) % 3 ? ' or ' : ' and '))}`;
}

/** Measure and print the request path's figures on `orm` (any dialect; nothing is sent). */
export async function benchRequestPath(orm: MikroORM): Promise<string[]> {
  const policy = schema(Book)
    .expose('id', sortable())
    .expose('title', filterable(), sortable())
    .expose('price', filterable(), sortable())
    .expose('score', filterable(), sortable())
    .relation('reviews', schema(Review).expose('stars', filterable()));
  const engine = createEngine(orm, { policy, maxLimit: 100 });
  const em = orm.em.fork() as SqlEntityManager;
  const base = em.createQueryBuilder(Book, 'b');
  const scoped = engine.from(base) as unknown as Record<typeof PAGE_STATEMENT, StatementOf>;
  const statementOf = (query: Record<string, string>) => scoped[PAGE_STATEMENT](query);
  let n = 0;
  // New shapes: neverSeenFilter() numbers after bench/parse.ts's, so no text or shape was seen in this process.
  let fresh = NEVER_SEEN_PARSE;
  const newShape = () => {
    if (fresh >= 6_912) throw new Error('bench/request-path.ts: out of never-seen shapes');
    return statementOf({ filter: neverSeenFilter(fresh++), sort: '-score' });
  };
  const same = () => statementOf({ filter: TYPICAL, sort: '-score', limit: '20' });
  const sameFrom = () =>
    (engine.from(base) as unknown as Record<typeof PAGE_STATEMENT, StatementOf>)[PAGE_STATEMENT]({
      filter: TYPICAL,
      sort: '-score',
      limit: '20',
    });
  const newLiteral = () => statementOf({ filter: TYPICAL.replace('10', String(10 + (n++ % 100_000))), sort: '-score' });
  const hundred = () => statementOf({ filter: hundredNodeShape(1000 + n++), sort: 'id' });
  const copy = async () => engine.from(base);
  // The engine's first requests, while V8 is still compiling its path: reported, not judged.
  const early = await microsPerAsyncCall(same, 10, 100);
  // Then each path runs for a while before it is timed (new shapes: at most 1,500 of them).
  for (const fn of [same, sameFrom, newLiteral, hundred, copy]) await warmUpAsync(fn);
  await warmUpAsync(newShape, 400, 1_500);
  const rows: [string, Sample, Target][] = [
    ['request path, same request (compiled shape, parse cache hit)', await microsPerAsyncCall(same), { max: 10 }],
    ['  early: the first 1,100 requests of a new engine', early, 'report'],
    // An application calls from() per request (its base scope holds the tenant): from()'s copy of the base is in it.
    ['request path, same request, from() of the same base each time', await microsPerAsyncCall(sameFrom), 'report'],
    ['request path, new literal in a compiled shape', await microsPerAsyncCall(newLiteral), { max: 20 }],
    ['request path, new shape (planned and compiled)', await microsPerAsyncCall(newShape, 10, 50), { max: 100 }],
    ['request path, 100-node filter of a new shape', await microsPerAsyncCall(hundred, 10, 30), { max: 300 }],
    ['from(qb): the private copy of the base scope (MikroORM clone)', await microsPerAsyncCall(copy), 'report'],
  ];
  return rows.map(
    ([name, s, target]) =>
      `${name.padEnd(62)} ${fmt(s.median, 'us').padStart(10)}  ${noise(s).padStart(7)}  ${verdict(s.median, target, ' us')}`,
  );
}

// `npx --no-install node bench/request-path.ts` prints these figures alone, on an in-memory SQLite database.
if (import.meta.main) {
  const { MikroORM: SqliteORM } = await import('@mikro-orm/sqlite');
  const { benchEntities } = await import('./model.ts');
  const orm = await SqliteORM.init({ entities: benchEntities, dbName: ':memory:' });
  await orm.schema.create();
  for (const line of await benchRequestPath(orm)) console.log(line);
  await orm.close();
}
