/** Export throughput: items() over every row against a plain streaming `SELECT … ORDER BY pk`, and memory growth. */
import { createRequire } from 'node:module';
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import pg from 'pg';
import { createEngine } from '../src/engine/index.ts';
import { schema, sortable } from '../src/policy/index.ts';
import { Book } from './model.ts';
import { fmt, noise, sideBySide, verdict } from './stats.ts';

// pg-cursor ships no types: the plain server-side cursor the PostgreSQL driver offers.
const Cursor = createRequire(import.meta.url)('pg-cursor') as new (
  text: string,
) => { read(n: number): Promise<unknown[]>; close(): Promise<void> };

const PAGE = 1000;

/** Walk every book with items() and with a streaming cursor over the same table; print rows/s and RSS growth. */
export async function benchExport(orm: MikroORM, url: string): Promise<string[]> {
  const books = createEngine(orm, {
    policy: schema(Book).expose('id', sortable()).expose('title').expose('price').expose('score').expose('createdAt'),
    maxLimit: PAGE,
  });
  let peakGrowth = 0;
  let rowsSeen = 0;
  const viaItems = async () => {
    const start = process.memoryUsage().rss;
    let n = 0;
    for await (const _ of books
      .from((orm.em.fork() as SqlEntityManager).createQueryBuilder(Book, 'b'))
      .items({}, {}, { pageSize: PAGE })) {
      if (++n % PAGE === 0) peakGrowth = Math.max(peakGrowth, process.memoryUsage().rss - start);
    }
    rowsSeen = n;
  };
  const viaCursor = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const cursor = client.query(new Cursor('select * from book order by id') as never) as unknown as InstanceType<
        typeof Cursor
      >;
      for (let rows = await cursor.read(PAGE); rows.length > 0; rows = await cursor.read(PAGE)) {}
      await cursor.close();
    } finally {
      await client.end();
    }
  };
  const r = await sideBySide(viaItems, viaCursor, 3, 1);
  const rate = (ms: number) => `${Math.round(rowsSeen / (ms / 1000)).toLocaleString('en-US')} rows/s`;
  // Throughput is the inverse of time: items() rows/s over the raw stream's rows/s.
  const throughput = 1 / r.ratio.median;
  return [
    `${'export: items() rows/s / streaming SELECT ORDER BY pk rows/s'.padEnd(72)} ${`${throughput.toFixed(2)}x`.padStart(8)}  ${noise(r.ratio).padStart(7)}  (${rate(r.a.median)} vs ${rate(r.b.median)}, ${rowsSeen} rows)  ${verdict(throughput, { min: 0.8 })}`,
    `  items() RSS growth during the walk: at most ${fmt(peakGrowth / 1024 / 1024, 'MiB')} (process peak ${fmt(process.resourceUsage().maxRSS / 1024, 'MiB')})  ${verdict(peakGrowth / 1024 / 1024, { max: 64 }, ' MiB')} (flat)`,
  ];
}
