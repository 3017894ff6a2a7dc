/**
 * Deep cursor pages alone: `npx --no-install node bench/deep.ts`. For every bench sort, a page after a cursor at
 * 90 % of the table against page 1, both through list() (the ratio the bench checks), and the same two data
 * statements sent alone (the database's share). BENCH_ROWS (default 1,000,000) sizes the table, BENCH_DIALECTS
 * (comma-separated sqlite, postgresql, mariadb) picks the databases, BENCH_SORTS (`;`-separated) the sorts,
 * BENCH_ROUNDS (default 41) the side-by-side rounds of each ratio. BENCH_CPU=1 (SQLite) adds processor-time ratios,
 * among them a new cursor on every request with the cursor memo on against off (same process, interleaved).
 */
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { MikroORM as SqliteORM } from '@mikro-orm/sqlite';
import { PAGE_STATEMENT } from '../src/engine/page/compiled-data.ts';
import { cursorMemo } from '../src/engine/request-mask.ts';
import { openDatabase } from '../test/helpers/db.ts';
import { loadBooks } from './data.ts';
import { BENCH_SORTS, benchDeepPages, createAdvisedIndexes, deepPageEngine, SLOW } from './engine.ts';
import { Book, benchEntities } from './model.ts';
import { fmt, noise, sideBySide, summarize } from './stats.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ALL = ['sqlite', 'postgresql', 'mariadb'] as const;
const only = (process.env.BENCH_DIALECTS ?? ALL.join(',')).split(',').map((d) => d.trim());
const sorts = process.env.BENCH_SORTS ? process.env.BENCH_SORTS.split(';') : BENCH_SORTS;
const depth = Math.floor(ROWS * 0.9);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 41);

type Statement = { readonly sql: string; readonly params: readonly unknown[] };
type StatementOf = (query: Record<string, string>) => Promise<Statement>;
type Prepared = { all(params: readonly unknown[]): unknown[] };

/** The deep page's and page 1's data statements sent alone, side by side: the database's share of the ratio. */
async function statementsAlone(orm: MikroORM, label: string): Promise<string[]> {
  const books = deepPageEngine(orm);
  const scoped = () =>
    books.from((orm.em.fork() as SqlEntityManager).createQueryBuilder(Book, 'b')) as unknown as Record<
      typeof PAGE_STATEMENT,
      StatementOf
    >;
  const conn = orm.em.getConnection();
  // SQLite: through a prepared statement kept per text, as list() sends its statements there.
  const native = (await conn.getNativeClient?.()) as { prepare?: (sql: string) => Prepared } | undefined;
  const kept = new Map<string, Prepared>();
  const send = (s: Statement) => {
    if (typeof native?.prepare !== 'function') return conn.execute(s.sql, [...s.params]);
    let statement = kept.get(s.sql);
    if (!statement) {
      statement = native.prepare(s.sql);
      kept.set(s.sql, statement);
    }
    return Promise.resolve(statement.all([...s.params]));
  };
  const out: string[] = [];
  for (const sort of sorts) {
    const minted = await books
      .from((orm.em.fork() as SqlEntityManager).createQueryBuilder(Book, 'b'))
      .list({ sort, limit: '20', offset: String(depth - 20) }, SLOW);
    const cursor = minted.page.nextCursor!;
    const first = await scoped()[PAGE_STATEMENT]({ sort, limit: '20' });
    const deep = await scoped()[PAGE_STATEMENT]({ sort, limit: '20', cursor });
    const r = await sideBySide(
      () => send(deep),
      () => send(first),
      60,
      10,
    );
    out.push(
      `statement alone, deep / page 1, sort=${sort}, ${label}`.padEnd(80) +
        ` ${`${r.ratio.median.toFixed(2)}x`.padStart(8)}  (${fmt(r.a.median * 1000, 'us')} vs ${fmt(r.b.median * 1000, 'us')})`,
    );
  }
  return out;
}

/**
 * SQLite only, BENCH_CPU=1: the process's processor time per list() call (SQLite runs in the process), deep page
 * against page 1, in interleaved batches: a figure a busy machine disturbs far less than elapsed time.
 */
async function cpuRatios(orm: MikroORM): Promise<string[]> {
  const books = deepPageEngine(orm);
  const scoped = () => books.from((orm.em.fork() as SqlEntityManager).createQueryBuilder(Book, 'b'));
  const out: string[] = [];
  const cpu = async (fn: () => Promise<unknown>, n: number) => {
    const t = process.cpuUsage();
    for (let i = 0; i < n; i++) await fn();
    const d = process.cpuUsage(t);
    return (d.user + d.system) / n / 1000;
  };
  for (const sort of sorts) {
    const minted = await scoped().list({ sort, limit: '20', offset: String(depth - 20) }, SLOW);
    const cursor = minted.page.nextCursor!;
    const page1 = () => scoped().list({ sort, limit: '20' });
    const deep = () => scoped().list({ sort, limit: '20', cursor });
    const a: number[] = [];
    const b: number[] = [];
    const r: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const x = await cpu(deep, 20);
      const y = await cpu(page1, 20);
      a.push(x);
      b.push(y);
      r.push(x / y);
    }
    const ratio = summarize(r);
    out.push(
      `CPU time per list(), deep / page 1, sort=${sort}, sqlite`.padEnd(80) +
        ` ${`${ratio.median.toFixed(2)}x`.padStart(8)}  ${noise(ratio).padStart(7)}  (${fmt(summarize(a).median, 'ms')} vs ${fmt(summarize(b).median, 'ms')})`,
    );
    out.push(await newCursors(scoped, sort, cursor, cpu));
  }
  return out;
}

/**
 * A new cursor on every request (1,500 cursors of consecutive deep pages, each sent once per round: more than the
 * parse memo keeps), the cursor memo on against off, in interleaved batches: what the memo saves a client paging on.
 */
async function newCursors(
  scoped: () => ReturnType<ReturnType<typeof deepPageEngine>['from']>,
  sort: string,
  start: string,
  cpu: (fn: () => Promise<unknown>, n: number) => Promise<number>,
): Promise<string> {
  const cursors: string[] = [start];
  while (cursors.length < 1500) {
    const next = (await scoped().list({ sort, limit: '20', cursor: cursors.at(-1)! })).page.nextCursor;
    if (!next) break;
    cursors.push(next);
  }
  let i = 0;
  const deep = () => scoped().list({ sort, limit: '20', cursor: cursors[i++ % cursors.length]! });
  const on: number[] = [];
  const off: number[] = [];
  const r: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const x = await cpu(deep, 20);
    cursorMemo.enable(false);
    const y = await cpu(deep, 20).finally(() => cursorMemo.enable(true));
    on.push(x);
    off.push(y);
    r.push(x / y);
  }
  const ratio = summarize(r);
  return (
    `CPU time per list(), new cursor each time, memo on / off, sort=${sort}, sqlite`.padEnd(80) +
    ` ${`${ratio.median.toFixed(2)}x`.padStart(8)}  ${noise(ratio).padStart(7)}  (${fmt(summarize(on).median, 'ms')} vs ${fmt(summarize(off).median, 'ms')})`
  );
}

async function run(orm: MikroORM, dialect: (typeof ALL)[number]): Promise<void> {
  const t0 = performance.now();
  await loadBooks(orm, dialect, ROWS);
  await createAdvisedIndexes(orm, BENCH_SORTS);
  console.log(
    `\n## ${dialect}, ${ROWS.toLocaleString('en-US')} rows (loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s)`,
  );
  for (const l of await benchDeepPages(orm, depth, sorts, dialect, ROUNDS))
    if (l.includes('cursor page')) console.log(l);
  for (const l of await statementsAlone(orm, dialect)) console.log(l);
  if (process.env.BENCH_CPU && dialect === 'sqlite') for (const l of await cpuRatios(orm)) console.log(l);
}

for (const dialect of ALL) {
  if (!only.includes(dialect)) continue;
  if (dialect === 'sqlite') {
    const orm = await SqliteORM.init({ entities: benchEntities, dbName: ':memory:' });
    await orm.schema.create();
    await run(orm as never, dialect);
    await orm.close();
    continue;
  }
  const db = await openDatabase(dialect, benchEntities);
  try {
    await run(db.orm, dialect);
  } finally {
    await db.dispose();
  }
}
