/**
 * Estimated against exact counts on the large PostgreSQL table: `count=estimated` (one planned, never executed
 * statement) against `count=true` (a scan of every matching row), both with `limit=0` so only the count is timed.
 * Each line also prints the two numbers, so the estimate's accuracy is read beside its cost.
 */
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { createEngine } from '../src/engine/index.ts';
import { filterable, schema, sortable } from '../src/policy/index.ts';
import { Book, Review } from './model.ts';
import { fmt, noise, sideBySide, verdict } from './stats.ts';

const bookPolicy = schema(Book)
  .expose('id', sortable())
  .expose('price', filterable(), sortable())
  .expose('score', filterable(), sortable())
  .relation('reviews', schema(Review).expose('stars', filterable()));

const FILTERS: readonly (string | undefined)[] = [
  undefined,
  'price gte 100 and price lt 900',
  'score lt 50',
  'reviews/any(r: r/stars eq 4)',
];

/** Time `count=estimated` against `count=true` for a few filters; one printed line per filter. */
export async function benchEstimatedCount(orm: MikroORM): Promise<string[]> {
  const books = createEngine(orm, { policy: bookPolicy, allowCount: true, allowEstimatedCount: true });
  const out: string[] = [];
  for (const filter of FILTERS) {
    const query = { limit: '0', ...(filter === undefined ? {} : { filter }) };
    const scoped = () => books.from((orm.em.fork() as SqlEntityManager).createQueryBuilder(Book, 'b'));
    const estimated = () => scoped().list({ ...query, count: 'estimated' });
    const exact = () => scoped().list({ ...query, count: 'true' });
    const r = await sideBySide(estimated, exact, 7, 1);
    const guess = (await estimated()).page.estimatedCount ?? 0;
    const truth = (await exact()).page.count ?? 0;
    const name = `count=estimated / count=true, ${filter === undefined ? 'no filter' : `filter=${filter}`}`;
    out.push(
      `${name.padEnd(72)} ${`${r.ratio.median.toFixed(3)}x`.padStart(8)}  ${noise(r.ratio).padStart(7)}  ` +
        `(${fmt(r.a.median, 'ms')} vs ${fmt(r.b.median, 'ms')}; estimate ${guess.toLocaleString('en-US')}, ` +
        `exact ${truth.toLocaleString('en-US')})  ${verdict(r.ratio.median, 'report')}`,
    );
  }
  return out;
}
