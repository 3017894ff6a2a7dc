/**
 * Export throughput: items() over every row against the driver's own streaming `SELECT … ORDER BY id` of the same
 * rows, and the walk's memory growth, on each database: better-sqlite3's iterate() on SQLite, a pg-cursor read in
 * chunks on PostgreSQL, a mysql2 query stream on MariaDB.
 *
 * Alone, for a quick look: `npx --no-install node bench/export.ts` (BENCH_ROWS, default 200,000 rows; BENCH_DIALECTS
 * as in bench/run.ts).
 */
import { createRequire } from 'node:module';
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import mysql from 'mysql2';
import pg from 'pg';
import { createEngine } from '../src/engine/index.ts';
import { schema, sortable } from '../src/policy/index.ts';
import { Book } from './model.ts';
import { fmt, noise, sideBySide, summarize, verdict } from './stats.ts';

// pg-cursor ships no types: the plain server-side cursor the PostgreSQL driver offers.
const Cursor = createRequire(import.meta.url)('pg-cursor') as new (
  text: string,
) => { read(n: number): Promise<unknown[]>; close(): Promise<void> };

/** Rows per read of the raw PostgreSQL cursor. */
const CHUNK = 1000;
const SELECT = 'select * from book order by id';

export type ExportDialect = 'sqlite' | 'postgresql' | 'mariadb';

/** The raw baseline: every row of the same SELECT through the driver's own streaming read. */
function rawStream(orm: MikroORM, dialect: ExportDialect, url: string | undefined): () => Promise<number> {
  if (dialect === 'sqlite')
    return async () => {
      const db = (await orm.em.getConnection().getNativeClient()) as unknown as {
        prepare(sql: string): { iterate(): Iterable<unknown> };
      };
      let n = 0;
      for (const _ of db.prepare(SELECT).iterate()) n++;
      return n;
    };
  if (dialect === 'postgresql')
    return async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const cursor = client.query(new Cursor(SELECT) as never) as unknown as InstanceType<typeof Cursor>;
        let n = 0;
        for (let rows = await cursor.read(CHUNK); rows.length > 0; rows = await cursor.read(CHUNK)) n += rows.length;
        await cursor.close();
        return n;
      } finally {
        await client.end();
      }
    };
  return async () => {
    const conn = mysql.createConnection({ uri: url! });
    try {
      let n = 0;
      for await (const _ of conn.query(SELECT).stream()) n++;
      return n;
    } finally {
      await new Promise<void>((resolve) => conn.end(() => resolve()));
    }
  };
}

/**
 * Walk every book with items() and with the driver's raw stream over the same table; print rows/s (wall clock, the
 * target), the CPU time per row this process spent on each (what a busy machine's wall clock blurs), and RSS: its
 * drift over the walk past its first fifth (flat: memory does not grow with the rows walked) and its peak growth.
 */
export async function benchExport(orm: MikroORM, dialect: ExportDialect, url?: string, rounds = 5): Promise<string[]> {
  const books = createEngine(orm, {
    policy: schema(Book).expose('id', sortable()).expose('title').expose('price').expose('score').expose('createdAt'),
  });
  const total = await orm.em.fork().count(Book, {});
  let peakGrowth = 0;
  const drifts: number[] = [];
  let rowsSeen = 0;
  const cpu = { items: [] as number[], raw: [] as number[] };
  const viaItems = async () => {
    const c0 = process.cpuUsage();
    const start = process.memoryUsage().rss;
    let settled = 0;
    let drift = 0;
    let n = 0;
    for await (const _ of books.from((orm.em.fork() as SqlEntityManager).createQueryBuilder(Book, 'b')).items({})) {
      if (++n % 1000 !== 0) continue;
      const rss = process.memoryUsage().rss;
      peakGrowth = Math.max(peakGrowth, rss - start);
      if (settled === 0 && n >= total / 5) settled = rss;
      else if (settled) drift = Math.max(drift, rss - settled);
    }
    cpu.items.push(cpuNanosPerRow(c0, n));
    drifts.push(drift);
    rowsSeen = n;
  };
  const raw = rawStream(orm, dialect, url);
  const viaRaw = async () => {
    const c0 = process.cpuUsage();
    const n = await raw();
    cpu.raw.push(cpuNanosPerRow(c0, n));
    if (n !== total) throw new Error(`export bench: the raw stream gave ${n} rows of ${total}`);
  };
  const r = await sideBySide(viaItems, viaRaw, rounds, 1);
  if (rowsSeen !== total) throw new Error(`export bench: items() gave ${rowsSeen} rows of ${total}`);
  const rate = (ms: number) => `${Math.round(rowsSeen / (ms / 1000)).toLocaleString('en-US')} rows/s`;
  // Throughput is the inverse of time: items() rows/s over the raw stream's rows/s.
  const throughput = 1 / r.ratio.median;
  const baseline = { sqlite: 'better-sqlite3 iterate()', postgresql: 'pg-cursor', mariadb: 'mysql2 query stream' };
  const ns = (v: readonly number[]) => summarize(v).median;
  const mib = (bytes: number) => fmt(bytes / 1024 / 1024, 'MiB');
  // A walk that kept what it read would drift in every round; the first rounds also grow the heap once.
  const drift = summarize(drifts).median;
  return [
    `${`export: items() rows/s / ${baseline[dialect]} of SELECT ORDER BY id rows/s`.padEnd(72)} ${`${throughput.toFixed(2)}x`.padStart(8)}  ${noise(r.ratio).padStart(7)}  (${rate(r.a.median)} vs ${rate(r.b.median)}, ${rowsSeen} rows)  ${verdict(throughput, { min: 0.9 })}`,
    `  CPU of this process per row: items() ${fmt(ns(cpu.items), 'ns')}, raw stream ${fmt(ns(cpu.raw), 'ns')} (raw / items() ${(ns(cpu.raw) / ns(cpu.items)).toFixed(2)}x)  report`,
    `  items() RSS drift past the first fifth of a walk: ${mib(drift)} (median of the walks; growth from a walk's start at most ${mib(peakGrowth)}, process peak ${fmt(process.resourceUsage().maxRSS / 1024, 'MiB')})  ${verdict(drift / 1024 / 1024, { max: 32 }, ' MiB')} (flat)`,
  ];
}

function cpuNanosPerRow(since: NodeJS.CpuUsage, rows: number): number {
  const used = process.cpuUsage(since);
  return ((used.user + used.system) * 1000) / Math.max(rows, 1);
}

if (import.meta.main) {
  const { openDatabase } = await import('../test/helpers/db.ts');
  const { loadBooks } = await import('./data.ts');
  const { benchEntities } = await import('./model.ts');
  const rows = Number(process.env.BENCH_ROWS ?? 200_000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const named = (process.env.BENCH_DIALECTS ?? 'sqlite,postgresql,mariadb').split(',').map((d) => d.trim());
  for (const dialect of named as ExportDialect[]) {
    const db = await openDatabase(dialect, benchEntities);
    try {
      await loadBooks(db.orm, dialect, rows);
      console.log(`\n## Export walk, ${dialect}, ${rows.toLocaleString('en-US')} rows`);
      for (const line of await benchExport(db.orm, dialect, db.url, rounds)) console.log(line);
    } finally {
      await db.dispose();
    }
  }
}
