/**
 * What the opt-in planner estimate (`planCheck`, docs/security.md) costs a request, on PostgreSQL and MariaDB, with
 * the bookstore seed (small tables, so the check's own cost is what differs): an engine with `planCheck` against one
 * without, alternating in every round.
 *
 * - a known shape: the verdict is remembered, so the check is a lookup of the statement's text;
 * - a new shape: one EXPLAIN (no ANALYZE) before the statement; each round sends `id in (…)` with one more value.
 *
 * Run with `npx --no-install node bench/plan-check.ts` (PLAN_ROUNDS, default 2000 known and 100 new per database).
 */
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { Book, ENTITIES } from '../examples/bookstore/entities.ts';
import { bookPolicy } from '../examples/bookstore/policies.ts';
import { seed } from '../examples/bookstore/seed.ts';
import { createEngine, type Engine } from '../src/index.ts';
import { openDatabase } from '../test/helpers/db.ts';
import { summarize } from './stats.ts';

const ROUNDS = Number(process.env.PLAN_ROUNDS ?? 2000);

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return (performance.now() - started) * 1000;
}

/** Median of per-round differences (checked − plain), in microseconds, and the plain request's median. */
async function rounds(orm: MikroORM, checked: Engine, plain: Engine, n: number, query: (i: number) => string) {
  const base = () => (orm.em.fork() as SqlEntityManager).createQueryBuilder(Book, 'b');
  const differences: number[] = [];
  const plainTimes: number[] = [];
  for (let i = 0; i < n; i++) {
    const filter = query(i);
    // Alternate which engine goes first, so neither always warms the other's connection.
    const first = i % 2 === 0;
    const a = first ? await timed(() => checked.from(base()).list({ filter })) : 0;
    const b = await timed(() => plain.from(base()).list({ filter }));
    const c = first ? a : await timed(() => checked.from(base()).list({ filter }));
    differences.push(c - b);
    plainTimes.push(b);
  }
  return { overhead: summarize(differences), plain: summarize(plainTimes) };
}

async function benchOn(dialect: 'postgresql' | 'mariadb'): Promise<string[]> {
  const db = await openDatabase(dialect, ENTITIES);
  try {
    await seed(db.orm.em.fork());
    const plain = createEngine(db.orm, { policy: bookPolicy });
    const checked = createEngine(db.orm, { policy: bookPolicy, planCheck: { maxCost: 1e12 } });
    const ids = (n: number) => `id in (${Array.from({ length: n }, (_, i) => i + 1).join(', ')})`;
    // Warm both engines (filter cache, prepared statements, the pool) on a shape the timed rounds do not use.
    await rounds(db.orm, checked, plain, 50, () => "title eq 'x'");
    const known = await rounds(db.orm, checked, plain, ROUNDS, () => "year gt 1950 and title ne 'x'");
    // Each round a shape neither engine has seen: one value more in the list.
    const fresh = await rounds(db.orm, checked, plain, Math.min(100, ROUNDS), (i) => ids(i + 1));
    const us = (v: number) => `${v.toFixed(0)} µs`;
    return [
      `known shape: +${us(known.overhead.median)} per request (p25 ${us(known.overhead.p25)}, p75 ${us(known.overhead.p75)}; the request itself ${us(known.plain.median)}; ${known.overhead.runs} rounds)`,
      `new shape:   +${us(fresh.overhead.median)} per request (p25 ${us(fresh.overhead.p25)}, p75 ${us(fresh.overhead.p75)}; the request itself ${us(fresh.plain.median)}; ${fresh.overhead.runs} rounds)`,
    ];
  } finally {
    await db.dispose();
  }
}

for (const dialect of ['postgresql', 'mariadb'] as const) {
  console.log(`\n## planCheck overhead, ${dialect}`);
  for (const line of await benchOn(dialect)) console.log(line);
}
