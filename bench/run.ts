/**
 * `npm run bench`: the figures of DESIGN §10, each measured side by side in one run and printed as a ratio, with
 * the spread (half the interquartile range over the median) stated as noise. See docs/performance.md.
 *
 * Sizes can be lowered for a quick look: BENCH_ROWS (default 1,000,000 rows on PostgreSQL and MariaDB, and for the SQLite export),
 * BENCH_SMALL (10,000). PostgreSQL and MariaDB are found as the tests find them (LISTQL_PG_URL and LISTQL_MYSQL_URL,
 * else the local servers); each run uses its own databases. BENCH_DIALECTS=mariadb (or any comma-separated list of
 * sqlite, postgresql, mariadb) runs only those databases' sections.
 */
import { MikroORM as SqliteORM } from '@mikro-orm/sqlite';
import { openDatabase } from '../test/helpers/db.ts';
import { benchAggregates } from './aggregates.ts';
import { benchBurst } from './burst.ts';
import { benchClientSize } from './client-size.ts';
import { benchEstimatedCount } from './count.ts';
import { loadBooks } from './data.ts';
import { BENCH_SORTS, benchDeepPages, benchOverhead, benchWalk, createAdvisedIndexes } from './engine.ts';
import { benchExport } from './export.ts';
import { benchFacets } from './facets.ts';
import { benchFlatPeers } from './flat-peers.ts';
import { benchImport } from './import.ts';
import { benchLoopDelay } from './loop-delay.ts';
import { benchEntities } from './model.ts';
import { benchParse } from './parse.ts';
import { benchRequestPath } from './request-path.ts';
import { benchThroughput } from './throughput.ts';
import { benchTrees } from './tree.ts';
import { benchWorst } from './worst.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SMALL = Number(process.env.BENCH_SMALL ?? 10_000);
const ALL = ['sqlite', 'postgresql', 'mariadb'] as const;
const named = (process.env.BENCH_DIALECTS ?? '')
  .split(',')
  .map((d) => d.trim())
  .filter(Boolean);
for (const d of named) if (!(ALL as readonly string[]).includes(d)) throw new Error(`BENCH_DIALECTS: unknown ${d}`);
const on = (dialect: (typeof ALL)[number]) => named.length === 0 || named.includes(dialect);
const started = performance.now();

function section(title: string, lines: readonly string[]): void {
  console.log(`\n## ${title}`);
  for (const l of lines) console.log(l);
}

console.log('listql bench: medians of side-by-side rounds; noise = half the IQR over the median');
console.log(
  `node ${process.version}, ${ROWS.toLocaleString('en-US')} PostgreSQL and MariaDB rows, ${SMALL.toLocaleString('en-US')} small-table rows`,
);

// No database: the size of the browser client's bundle.
section('Browser client bundle (listql/client, esbuild minified + gzip)', await benchClientSize());

if (on('sqlite')) {
  // Cold start first, in fresh processes, before this one loads the databases.
  section('Cold import of the built package (fresh Node processes)', benchImport());

  // SQLite: parse/bind/plan, engine overhead, walk against findByCursor.
  const sqlite = await SqliteORM.init({ entities: benchEntities, dbName: ':memory:' });
  await sqlite.schema.create();
  await loadBooks(sqlite, 'sqlite', SMALL);
  await createAdvisedIndexes(sqlite, BENCH_SORTS);
  section('Parse, bind and plan (microseconds per call)', benchParse(sqlite));
  section(
    'Request path before SQL: parameters to the data statement (microseconds per request)',
    await benchRequestPath(sqlite),
  );
  section('Engine overhead, SQLite', await benchOverhead(sqlite, 'SQLite'));
  section('Full walk against em.findByCursor, SQLite', await benchWalk(sqlite, 'SQLite', 100));
  await sqlite.close();
  // SQLite, large table: the export walk against better-sqlite3's own iterate() of the same SELECT.
  const large = await SqliteORM.init({ entities: benchEntities, dbName: ':memory:' });
  await large.schema.create();
  await loadBooks(large, 'sqlite', ROWS);
  section('Export walk, SQLite', await benchExport(large, 'sqlite'));
  // Deep pages on the same table, with the indexes a user would create for the bench's sorts.
  const t0 = performance.now();
  await createAdvisedIndexes(large, BENCH_SORTS);
  console.log(
    `\n(SQLite: indexed ${ROWS.toLocaleString('en-US')} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
  section(
    `Deep pages, SQLite, ${ROWS.toLocaleString('en-US')} rows`,
    await benchDeepPages(large, Math.floor(ROWS * 0.9), BENCH_SORTS, 'SQLite'),
  );
  await large.close();
}

if (on('postgresql')) await benchPostgres();
if (on('mariadb')) await benchMariaDb();
{
  // The worst accepted request at the default limits, on a 100k-book bookstore with the advised indexes.
  const worst = await benchWorst(ALL.filter(on));
  const names = { sqlite: 'SQLite', postgresql: 'PostgreSQL', mariadb: 'MariaDB' } as const;
  for (const dialect of ALL) {
    const lines = worst[dialect];
    if (lines) section(`Worst accepted request, ${names[dialect]}`, lines);
  }
  // SQLite runs statements on the main thread: how long the loop stalls during those worst requests (≤ 250 ms).
  if (on('sqlite')) section('Event-loop delay during the worst accepted requests, SQLite', await benchLoopDelay());
  // Fair share: 20 worst requests at once and a cheap one, on the same bookstore (PostgreSQL only).
  if (on('postgresql')) section('Fair share under a burst, PostgreSQL', await benchBurst());
  // Facets: author, year and tags of a filtered request on a 100k-book bookstore, against the same GROUP BYs by hand.
  const facets = await benchFacets(ALL.filter(on));
  for (const dialect of ALL) {
    const lines = facets[dialect];
    if (lines) section(`Facets, ${names[dialect]}`, lines);
  }
  // Sort by an aggregate: BENCH_ROWS / 10 books (100,000 by default), three reviews each, page 1 and a deep page.
  for (const dialect of ALL.filter(on))
    section(`Aggregate sort, ${names[dialect]}`, await benchAggregates(dialect, Math.max(1000, Math.floor(ROWS / 10))));
  // Nested trees: BENCH_ROWS / 10 books (100,000 by default) and three reviews a book on each database.
  const trees = await benchTrees(ALL.filter(on), Math.max(1000, Math.floor(ROWS / 10)));
  for (const dialect of ALL) {
    const lines = trees[dialect];
    if (lines) section(`Nested trees, ${names[dialect]}`, lines);
  }
  // Flat pages beside PostGraphile: BENCH_ROWS / 10 books, one client, over the same node:http stack (PostgreSQL).
  if (on('postgresql'))
    section('Flat pages beside PostGraphile, PostgreSQL', await benchFlatPeers(Math.max(1000, Math.floor(ROWS / 10))));
}
{
  // Throughput: the bookstore's /books against a hand-written Express + MikroORM endpoint, 32 keep-alive clients.
  const rates = await benchThroughput(ALL.filter((d) => d !== 'mariadb' && on(d)));
  if (rates.sqlite) section('Throughput of /books, SQLite', rates.sqlite);
  if (rates.postgresql) section('Throughput of /books, PostgreSQL', rates.postgresql);
}
console.log(`\nbench finished in ${((performance.now() - started) / 1000).toFixed(0)} s`);

async function benchPostgres(): Promise<void> {
  // PostgreSQL, small table: engine overhead and the findByCursor walk.
  const small = await openDatabase('postgresql', benchEntities);
  try {
    await loadBooks(small.orm, 'postgresql', SMALL);
    await createAdvisedIndexes(small.orm, BENCH_SORTS);
    section('Engine overhead, PostgreSQL', await benchOverhead(small.orm, 'PostgreSQL'));
    section('Full walk against em.findByCursor, PostgreSQL', await benchWalk(small.orm, 'PostgreSQL', 100));
  } finally {
    await small.dispose();
  }

  // PostgreSQL, large table: deep pages and the export walk.
  const large = await openDatabase('postgresql', benchEntities);
  try {
    const t0 = performance.now();
    await loadBooks(large.orm, 'postgresql', ROWS);
    await createAdvisedIndexes(large.orm, BENCH_SORTS);
    console.log(
      `\n(loaded and indexed ${ROWS.toLocaleString('en-US')} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
    const depth = Math.floor(ROWS * 0.9);
    section(
      `Deep pages, PostgreSQL, ${ROWS.toLocaleString('en-US')} rows`,
      await benchDeepPages(large.orm, depth, BENCH_SORTS),
    );
    section('Export walk, PostgreSQL', await benchExport(large.orm, 'postgresql', large.url));
    section(
      `Estimated count vs exact count, PostgreSQL, ${ROWS.toLocaleString('en-US')} rows`,
      await benchEstimatedCount(large.orm),
    );
  } finally {
    await large.dispose();
  }
}

/**
 * MariaDB: the same engine overhead, findByCursor walk and deep pages as on PostgreSQL. Every listql statement there
 * is a server-side prepared statement (mysql2 execute()), while MikroORM's own path sends text queries with the
 * values inlined; the overhead section separates that protocol cost from the engine's.
 */
async function benchMariaDb(): Promise<void> {
  const small = await openDatabase('mariadb', benchEntities);
  try {
    await loadBooks(small.orm, 'mariadb', SMALL);
    await createAdvisedIndexes(small.orm, BENCH_SORTS);
    section('Engine overhead, MariaDB', await benchOverhead(small.orm, 'MariaDB'));
    section('Full walk against em.findByCursor, MariaDB', await benchWalk(small.orm, 'MariaDB', 100));
  } finally {
    await small.dispose();
  }
  const large = await openDatabase('mariadb', benchEntities);
  try {
    const t0 = performance.now();
    await loadBooks(large.orm, 'mariadb', ROWS);
    await createAdvisedIndexes(large.orm, BENCH_SORTS);
    console.log(
      `\n(MariaDB: loaded and indexed ${ROWS.toLocaleString('en-US')} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
    const depth = Math.floor(ROWS * 0.9);
    section(
      `Deep pages, MariaDB, ${ROWS.toLocaleString('en-US')} rows`,
      await benchDeepPages(large.orm, depth, BENCH_SORTS),
    );
    section('Export walk, MariaDB', await benchExport(large.orm, 'mariadb', large.url));
  } finally {
    await large.dispose();
  }
}
