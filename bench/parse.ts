/**
 * Parse + bind + plan latency of typical and maximum filters, and the cost of rejecting an over-limit filter: a
 * well-formed filter over a limit is refused by the fast parser itself, so each refusal costs about one parse.
 */
import type { MikroORM } from '@mikro-orm/sqlite';
import { resolveQuery } from '../src/bind/index.ts';
import { ListError } from '../src/errors.ts';
import { planResolved } from '../src/plan/index.ts';
import { filterable, schema, sortable } from '../src/policy/index.ts';
import { parseFilter, parseHTTP } from '../src/syntax/index.ts';
import { Book, Review } from './model.ts';
import { fmt, microsPerCall, noise, type Sample, type Target, verdict, warmUp } from './stats.ts';

export const TYPICAL = "price gte 10 and title startswith 'The' and score lt 90 and reviews/any(r: r/stars gte 4)";

/** Operators that keep the typical filter valid, for building filters of shapes no earlier call had. */
const NUMBER_OPS = ['gte', 'gt', 'lte', 'lt', 'eq', 'ne'];
const TEXT_OPS = ['startswith', 'endswith', 'contains', 'eq'];
const JOINS = ['and', 'or'];

/**
 * The typical filter, in a shape of its own for each `i` below 6,912 (operators and connectives vary) and with
 * its own literals: nothing cached by text or by shape can serve it.
 */
export function neverSeenFilter(i: number): string {
  let k = i;
  const pick = (xs: readonly string[]): string => {
    const x = xs[k % xs.length] ?? '';
    k = Math.floor(k / xs.length);
    return x;
  };
  const [price, title, score, stars] = [pick(NUMBER_OPS), pick(TEXT_OPS), pick(NUMBER_OPS), pick(NUMBER_OPS)];
  const [j1, j2, j3] = [pick(JOINS), pick(JOINS), pick(JOINS)];
  return `price ${price} ${10 + i} ${j1} title ${title} 'The${i}' ${j2} score ${score} 90 ${j3} reviews/any(r: r/stars ${stars} 4)`;
}

/** A filter of exactly 100 nodes, the default maxNodes: 50 comparisons ANDed and ORed, one under `not`. */
export function maximumFilter(last = 49): string {
  const parts: string[] = [];
  for (let i = 0; i < 50; i++) parts.push(`price ${i % 2 ? 'gt' : 'lt'} ${i === 49 ? last : i}`);
  return `not ${parts.join(' or ').replace(/ or /g, (_m, at: number) => (at % 3 ? ' or ' : ' and '))}`;
}

/** The never-seen shapes bench/parse.ts may use: neverSeenFilter(0) to neverSeenFilter(NEVER_SEEN_PARSE - 1). */
export const NEVER_SEEN_PARSE = 3_500;

type Row = readonly [name: string, sample: Sample, target: Target];

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
  const plan = (filter: string) =>
    planResolved(base, bound, resolveQuery(bound, parseHTTP({ filter, sort: '-score' })));
  let n = 0;
  // A shape never seen and text never seen: every cache misses. Its own count, below NEVER_SEEN_PARSE (6,912 shapes
  // in all; the request path's figures take theirs from that number on).
  let fresh = 0;
  const neverSeen = () => {
    if (fresh >= NEVER_SEEN_PARSE) throw new Error('bench/parse.ts: out of never-seen shapes');
    return plan(neverSeenFilter(fresh++));
  };
  // A new literal each call in the one typical shape: the parse cache misses, a cache by shape would hit.
  const newLiteral = () => plan(TYPICAL.replace('10', String(10 + (n++ % 100_000))));
  const sameText = () => plan(TYPICAL);
  const maxCold = () => parseFilter(maximumFilter(1000 + (n++ % 100_000)));
  const huge = 'x'.repeat(1024 * 1024);
  const overNodes = `${maximumFilter()} and id gt 0`;
  // Well-formed but one level past maxExpressionDepth (16), with parentheses around each level.
  const overDepth = `${'not ('.repeat(17)}price gt 1${')'.repeat(17)}`;
  const reject = (text: string) => () => {
    try {
      parseFilter(text);
    } catch (err) {
      if (!(err instanceof ListError)) throw err;
    }
  };
  // The first calls in the process, while V8 is still compiling the planner: reported, not judged.
  const early = microsPerCall(neverSeen, 5, 40);
  // Then every path below runs for a while before it is timed (the new shapes' warm-up takes at most 1,500 of them).
  warmUp(neverSeen, 400, 1_500);
  for (const fn of [newLiteral, sameText, maxCold, reject(huge), reject(overNodes), reject(overDepth)]) warmUp(fn);
  const rows: Row[] = [
    ['parse+bind+plan, typical filter never seen (new shape)', microsPerCall(neverSeen, 30, 40), { max: 150 }],
    ['  early: the first 240 new shapes of the process', early, 'report'],
    ['parse+bind+plan, typical filter, new literal, seen shape', microsPerCall(newLiteral, 30, 50), { max: 50 }],
    ['parse+bind+plan, typical filter, same text (cache hit)', microsPerCall(sameText, 30, 200), 'report'],
    ['parse, 100-node filter, never seen', microsPerCall(maxCold, 30, 100), { max: 300 }],
    ['reject a 1 MiB filter (limit_exceeded)', microsPerCall(reject(huge), 30, 200), { max: 10 }],
    // A refusal costs no more than parsing the largest filter accepted (the line above's target).
    ['reject a 102-node filter (limit_exceeded)', microsPerCall(reject(overNodes), 30, 200), { max: 300 }],
    ['reject a filter 17 levels deep (limit_exceeded)', microsPerCall(reject(overDepth), 30, 200), { max: 50 }],
  ];
  return rows.map(
    ([name, s, target]) =>
      `${name.padEnd(58)} ${fmt(s.median, 'us').padStart(10)}  ${noise(s).padStart(7)}  ${verdict(s.median, target, ' us')}`,
  );
}

// `npx node bench/parse.ts` prints these figures alone, on an in-memory SQLite database.
if (import.meta.main) {
  const { MikroORM: SqliteORM } = await import('@mikro-orm/sqlite');
  const { benchEntities } = await import('./model.ts');
  const orm = await SqliteORM.init({ entities: benchEntities, dbName: ':memory:' });
  await orm.schema.create();
  for (const line of benchParse(orm)) console.log(line);
  await orm.close();
}
