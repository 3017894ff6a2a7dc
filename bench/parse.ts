/** Parse + bind + plan latency of typical and maximum filters, and the cost of rejecting an over-limit filter. */
import type { MikroORM } from '@mikro-orm/sqlite';
import { resolveQuery } from '../src/bind/index.ts';
import { ListError } from '../src/errors.ts';
import { DEFAULT_LIMITS } from '../src/limits.ts';
import { planResolved } from '../src/plan/index.ts';
import { filterable, schema, sortable } from '../src/policy/index.ts';
import { parseFilter, parseHTTP } from '../src/syntax/index.ts';
import { Book, Review } from './model.ts';
import { fmt, microsPerCall, noise } from './stats.ts';

export const TYPICAL = "price gte 10 and title startswith 'The' and score lt 90 and reviews/any(r: r/stars gte 4)";

/** A filter at the default limits: 100 nodes of comparisons ANDed and ORed. */
export function maximumFilter(): string {
  const parts: string[] = [];
  for (let i = 0; i < 50; i++) parts.push(`price ${i % 2 ? 'gt' : 'lt'} ${i}`);
  return parts.join(' or ').replace(/ or /g, (_m, at: number) => (at % 3 ? ' or ' : ' and '));
}

/** Measure and print the parse/bind/plan figures. */
export function benchParse(orm: MikroORM): string[] {
  const reviewPolicy = schema(Review).expose('stars', filterable());
  const bound = schema(Book)
    .expose('id', sortable())
    .expose('title', filterable(), sortable())
    .expose('price', filterable(), sortable())
    .expose('score', filterable(), sortable())
    .relation('reviews', reviewPolicy)
    .bind(orm);
  const em = orm.em.fork();
  const base = em.createQueryBuilder(Book, 'b');
  let n = 0;
  // Cold: a new literal each call, so the parse cache never hits.
  const cold = () => {
    const parsed = parseHTTP({ filter: TYPICAL.replace('10', String(10 + (n++ % 100_000))), sort: '-score' });
    return planResolved(base, bound, resolveQuery(bound, parsed));
  };
  const warm = () => planResolved(base, bound, resolveQuery(bound, parseHTTP({ filter: TYPICAL, sort: '-score' })));
  const max = maximumFilter();
  const maxCold = () => parseFilter(`${max} and id gt ${n++ % 100_000}`, { ...DEFAULT_LIMITS, maxNodes: 102 });
  const huge = 'x'.repeat(1024 * 1024);
  const reject = () => {
    try {
      parseFilter(huge);
    } catch (err) {
      if (!(err instanceof ListError)) throw err;
    }
  };
  const rows: [string, ReturnType<typeof microsPerCall>, string][] = [
    ['parse+bind+plan, typical filter, cache miss', microsPerCall(cold, 30, 50), 'p50'],
    ['parse+bind+plan, typical filter, cache hit', microsPerCall(warm, 30, 200), 'p50'],
    ['parse, maximum filter (100 nodes), cache miss', microsPerCall(maxCold, 20, 10), 'p50'],
    ['reject a 1 MiB filter (limit_exceeded)', microsPerCall(reject, 30, 200), 'target <= 10 us'],
  ];
  return rows.map(
    ([name, s, note]) => `${name.padEnd(48)} ${fmt(s.median, 'us').padStart(10)}  ${noise(s).padStart(7)}  ${note}`,
  );
}
