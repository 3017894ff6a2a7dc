/**
 * Export every book matching a filter, walking keyset cursors with `items()`: constant cost per page, constant
 * memory, no offset. Writes NDJSON (or CSV with --csv) to a file or stdout, with a progress bar on stderr when
 * stderr is a terminal (the total comes from `count`). `--help` lists the options.
 *
 *   npm run export -- --filter "year lt 1970" --sort -year --tenant 1 --csv --out books.csv
 *   npm run export -- --fields "title,author(name),reviews(stars)" --nested reviews.limit=5
 *
 * `--fields` may select related objects (docs/selection.md): NDJSON writes each book's tree as list() gives it (a
 * to-one object or null, a page of its own per book for a to-many list); CSV flattens a to-one object into columns
 * (`author.id`, `author.name`) and refuses a to-many list with a one-line message and exit code 2.
 *
 * Uses the bookstore database: `DATABASE_URL` (PostgreSQL, MySQL or MariaDB, an existing database), else
 * `BOOKSTORE_SQLITE` or `.data/bookstore.sqlite` (created and seeded on first use). `DATABASE_REPLICA_URLS`
 * (comma-separated read replicas of DATABASE_URL) moves the export's reads, count and pages, off the primary. Exit
 * codes: 0 done, 1 a failure (database down), 2 refused (bad arguments, an unwritable --out, a to-many selection
 * with --csv, or a request listql refuses, printed as its JSON error).
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { createEngine, isListError } from '../../src/index.ts'; // in an application: from 'listql'
import { type BookstoreORM, databaseOptionsFromEnv, openBookstore } from '../bookstore/database.ts';
import { Book } from '../bookstore/entities.ts';
import { bookPolicy } from '../bookstore/policies.ts';
import { titleSearch } from '../bookstore/search.ts';
import { type ExportOptions, parseExportArgs, USAGE, UsageError } from './args.ts';
import { csvColumns } from './columns.ts';
import { csvCell, csvLine } from './csv.ts';

const options = readArguments();
// A reader that stops early (`| head`) closes the pipe: that ends the export quietly, as it does for any CLI.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(0);
});
const out = options.out ? await openOutput(options.out) : process.stdout;
const orm = await openDatabase();
process.exitCode = await exportBooks(orm, options, out);

/** Read the command line; print the help, or a one-line error and the usage (exit code 2), and stop. */
function readArguments(): ExportOptions {
  let parsed: ExportOptions;
  try {
    parsed = parseExportArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`export: ${err.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  return parsed;
}

/** Open `--out` before any database work; a missing folder is refused, never created (a typo would be, too). */
async function openOutput(path: string): Promise<Writable> {
  const stream = createWriteStream(path);
  try {
    await once(stream, 'open');
    return stream;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? `folder ${dirname(path)} does not exist` : (err as Error).message;
    process.stderr.write(`export: cannot write ${path}: ${reason}\n`);
    process.exit(2);
  }
}

async function openDatabase(): Promise<BookstoreORM> {
  try {
    return await openBookstore(databaseOptionsFromEnv());
  } catch (err) {
    process.stderr.write(`export: cannot open the bookstore database: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

/** Walk the books and write them; the exit code: 0 done, 2 refused by listql, 1 failed. */
async function exportBooks(orm: BookstoreORM, options: ExportOptions, out: Writable): Promise<number> {
  const books = createEngine(orm, { policy: bookPolicy, allowCount: true, search: titleSearch });
  const scoped = books.from(orm.em.fork().createQueryBuilder(Book, 'b').where({ tenant: options.tenant }));
  const query: Record<string, string> = {};
  if (options.filter !== undefined) query.filter = options.filter;
  if (options.sort !== undefined) query.sort = options.sort;
  if (options.search !== undefined) query.search = options.search;
  if (options.fields !== undefined) query.fields = options.fields;
  for (const [name, value] of options.nested) query[name] = value;
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain'); // backpressure: wait instead of buffering without bound
  };
  const started = performance.now();
  let rows = 0;
  let code = 0;
  try {
    // The request checked before anything is written (limit=0 runs no statement), then the CSV columns: known
    // before any row, so a zero-row export still gets its header.
    await scoped.list({ ...query, limit: '0' });
    const columns = options.csv ? csvColumns(orm.getMetadata().get(Book), books.describe(), options.fields) : undefined;
    const header = columns ? `${columns.map(csvCell).join(',')}\n` : '';
    let progress: ((done: number) => void) | undefined;
    if (process.stderr.isTTY) {
      // The total is the exact count of matching rows (`count=true&limit=0` runs no data query).
      const total = (await scoped.list({ ...query, count: 'true', limit: '0' })).page.count ?? 0;
      progress = (done) => process.stderr.write(`\r${bar(done, total)} ${done}/${total}`);
    }
    const walk = options.pageSize === undefined ? {} : { pageSize: options.pageSize };
    for await (const item of scoped.items(query, {}, walk)) {
      if (rows === 0) await write(header);
      await write(columns ? csvLine(columns, item) : `${JSON.stringify(item)}\n`);
      rows++;
      if (progress && rows % 1000 === 0) progress(rows);
    }
    if (rows === 0) await write(header);
    progress?.(rows);
    const seconds = (performance.now() - started) / 1000;
    const peak = process.resourceUsage().maxRSS / 1024;
    process.stderr.write(
      `${progress ? '\n' : ''}exported ${rows} ${rows === 1 ? 'row' : 'rows'} in ${seconds.toFixed(2)} s (${Math.round(rows / seconds)} rows/s), peak RSS ${peak.toFixed(0)} MiB\n`,
    );
  } catch (err) {
    const refused = (isListError(err) && err.status < 500) || err instanceof UsageError;
    process.stderr.write(
      err instanceof UsageError
        ? `export: ${err.message}\n`
        : refused
          ? `\nexport refused: ${JSON.stringify(err)}\n`
          : `\nexport failed: ${(err as Error).message}\n`,
    );
    code = refused ? 2 : 1;
  } finally {
    if (out !== process.stdout) {
      out.end();
      await once(out, 'finish');
    }
    await orm.close();
  }
  return code;
}

function bar(done: number, total: number): string {
  const width = 30;
  const filled = total ? Math.min(width, Math.round((width * done) / total)) : width;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}
