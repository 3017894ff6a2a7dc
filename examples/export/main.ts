/**
 * Export every book matching a filter, walking keyset cursors with `items()`: constant cost per page, constant
 * memory, no offset. Writes NDJSON (or CSV with --csv) to a file or stdout, with a progress bar on stderr when
 * stderr is a terminal (the total comes from `count`).
 *
 *   npm run export -- --filter "year lt 1970" --sort -year --tenant 1 --csv --out books.csv
 *
 * Uses the bookstore database: `DATABASE_URL` (PostgreSQL), else `BOOKSTORE_SQLITE` or `.data/bookstore.sqlite`
 * (created and seeded on first use).
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { createEngine, isListError } from '../../src/index.ts'; // in an application: from 'listql'
import { openBookstore } from '../bookstore/database.ts';
import { Book } from '../bookstore/entities.ts';
import { bookPolicy } from '../bookstore/policies.ts';

const { values: args } = parseArgs({
  options: {
    filter: { type: 'string' },
    sort: { type: 'string' },
    search: { type: 'string' },
    tenant: { type: 'string', default: '1' },
    csv: { type: 'boolean', default: false },
    out: { type: 'string' },
    'page-size': { type: 'string', default: '500' },
  },
});

const orm = await openBookstore({ databaseUrl: process.env.DATABASE_URL, sqliteFile: process.env.BOOKSTORE_SQLITE });
const pageSize = Number(args['page-size']);
const books = createEngine(orm, { policy: bookPolicy, maxLimit: Math.max(pageSize, 100), allowCount: true });
const scoped = books.from(
  orm.em
    .fork()
    .createQueryBuilder(Book, 'b')
    .where({ tenant: Number(args.tenant) }),
);
const query: Record<string, string> = {};
if (args.filter) query.filter = args.filter;
if (args.sort) query.sort = args.sort;
if (args.search) query.search = args.search;

const out: Writable = args.out ? createWriteStream(args.out) : process.stdout;
const progress = process.stderr.isTTY ? await progressBar() : undefined;
const started = performance.now();
let rows = 0;
let columns: string[] | undefined;

try {
  for await (const item of scoped.items(query, {}, { pageSize })) {
    let line: string;
    if (args.csv) {
      if (!columns) {
        columns = Object.keys(item);
        await write(`${columns.map(csvCell).join(',')}\n`);
      }
      line = `${columns.map((c) => csvCell(item[c])).join(',')}\n`;
    } else line = `${JSON.stringify(item)}\n`;
    await write(line);
    rows++;
    if (progress && rows % 1000 === 0) progress(rows);
  }
  progress?.(rows);
} catch (err) {
  if (!isListError(err)) throw err;
  process.stderr.write(`\nexport refused: ${JSON.stringify(err)}\n`);
  process.exitCode = 2;
} finally {
  if (out !== process.stdout) {
    out.end();
    await once(out, 'finish');
  }
  const seconds = (performance.now() - started) / 1000;
  const peak = process.resourceUsage().maxRSS / 1024;
  process.stderr.write(
    `${progress ? '\n' : ''}exported ${rows} rows in ${seconds.toFixed(2)} s (${Math.round(rows / seconds)} rows/s), peak RSS ${peak.toFixed(0)} MiB\n`,
  );
  await orm.close();
}

/** Write with backpressure: wait for the stream to drain instead of buffering without bound. */
async function write(text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A one-line progress bar; the total is the exact count of matching rows (`count=true&limit=0` runs no data query). */
async function progressBar(): Promise<(done: number) => void> {
  const page = await scoped.list({ ...query, count: 'true', limit: '0' });
  const total = page.page.count ?? 0;
  return (done) => {
    const width = 30;
    const filled = total ? Math.round((width * done) / total) : width;
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
  };
}
