/**
 * The export script as a user runs it: a child process over a fresh bookstore database (a temporary SQLite file, and
 * a fresh PostgreSQL and MariaDB database through DATABASE_URL), walking cursors with items() and writing NDJSON or
 * CSV, the same bytes on every database; with `--fields` selecting related objects, NDJSON nests each book's tree
 * and CSV flattens to-one objects into `author.name` columns and refuses a to-many list (exit code 2). Bad
 * arguments get one line and the usage (exit code 2), never a stack trace.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { csvCell } from '../../examples/export/csv.ts';
import { createDatabase, DIALECTS, type Dialect } from '../helpers/db.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

// The suite's own database only (no DATABASE_URL of the caller's shell), and no NO_COLOR beside a FORCE_COLOR, which
// makes Node warn on stderr.
const {
  DATABASE_URL: _url,
  BOOKSTORE_CREATE_DB: _create,
  BOOKSTORE_SQLITE: _file,
  NO_COLOR: _color,
  ...inherited
} = process.env;

function runExport(env: Record<string, string>, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['examples/export/main.ts', ...args], {
      cwd: ROOT,
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// Argument errors: what the first line of stderr must say. Each is refused before the database is opened.
const BAD_ARGUMENTS: readonly { readonly args: readonly string[]; readonly error: string }[] = [
  { args: ['--page-size=abc'], error: "--page-size must be a whole number from 1 to 10000, got 'abc'" },
  { args: ['--page-size', '0'], error: "--page-size must be a whole number from 1 to 10000, got '0'" },
  { args: ['--page-size', '10001'], error: "--page-size must be a whole number from 1 to 10000, got '10001'" },
  { args: ['--page-size', '1e3'], error: "--page-size must be a whole number from 1 to 10000, got '1e3'" },
  { args: ['--foo'], error: "Unknown option '--foo'" },
  { args: ['--tenant=abc'], error: "--tenant must be 1 or 2, got 'abc'" },
  { args: ['--tenant', '3'], error: "--tenant must be 1 or 2, got '3'" },
  { args: ['books.csv'], error: "Unexpected argument 'books.csv'" },
  { args: ['--out'], error: '--out needs a value' },
  { args: ['--out', '--csv'], error: '--out needs a value' },
  { args: ['--filter=year lt 1970', '--sort'], error: '--sort needs a value' },
  { args: ['--csv=yes'], error: "Option '--csv' does not take an argument" },
  {
    args: ['--nested', 'reviews.limt=1'],
    error: "--nested must be <path>.<parameter>=<value>, e.g. reviews.limit=5, got 'reviews.limt=1'",
  },
  {
    args: ['--nested', 'limit=1'],
    error: "--nested must be <path>.<parameter>=<value>, e.g. reviews.limit=5, got 'limit=1'",
  },
  { args: ['--nested'], error: '--nested needs a value' },
];

// `--fields` with related objects, NDJSON: each book's tree as list() gives it, the same bytes on every database.
const NESTED_NDJSON = `${[
  '{"id":8,"title":"Solaris","author":{"id":4,"name":"Stanisław Lem"},"reviews":{"items":[{"id":9,"reviewer":"jo","stars":2}],"page":{"limit":2,"offset":0,"hasMore":false}}}',
  '{"id":3,"title":"A Wizard of Earthsea","author":{"id":1,"name":"Ursula K. Le Guin"},"reviews":{"items":[{"id":4,"reviewer":"dee","stars":5}],"page":{"limit":2,"offset":0,"hasMore":false}}}',
  '{"id":1,"title":"The Left Hand of Darkness","author":{"id":1,"name":"Ursula K. Le Guin"},"reviews":{"items":[{"id":1,"reviewer":"ana","stars":5},{"id":2,"reviewer":"ben","stars":4}],"page":{"limit":2,"offset":0,"hasMore":false}}}',
].join('\n')}\n`;

// The same with --csv and to-one objects only: flattened into columns, a missing publisher as empty cells.
const NESTED_CSV = `${[
  'id,title,author.id,author.name,publisher.id,publisher.name',
  '8,Solaris,4,Stanisław Lem,,',
  '3,A Wizard of Earthsea,1,Ursula K. Le Guin,2,Faber',
  '1,The Left Hand of Darkness,1,Ursula K. Le Guin,1,Penguin',
  '4,Invisible Cities,2,Italo Calvino,1,Penguin',
  '2,The Dispossessed,1,Ursula K. Le Guin,1,Penguin',
].join('\n')}\n`;

// CSV cells as RFC 4180 writes them: quoted only when needed, dates as ISO text (not JSON, so not triple-quoted).
const CSV_CELLS: readonly [unknown, string][] = [
  [null, ''],
  [undefined, ''],
  [12.5, '12.5'],
  [10n, '10'],
  [true, 'true'],
  ['plain', 'plain'],
  ['a,b', '"a,b"'],
  ['say "hi"', '"say ""hi"""'],
  ['two\nlines', '"two\nlines"'],
  [new Date('2024-01-01T00:00:00Z'), '2024-01-01T00:00:00.000Z'],
  [{ id: 1 }, '"{""id"":1}"'],
];

// `--sort -price` for tenant 1, as every database must write it: numbers, nulls and key order alike.
const TENANT_1_BY_PRICE = `${[
  '{"id":6,"title":"Beloved","year":1987,"price":16,"author":3,"publisher":2}',
  '{"id":2,"title":"The Dispossessed","year":1974,"price":15.99,"author":1,"publisher":1}',
  '{"id":7,"title":"Song of Solomon","year":1977,"price":15,"author":3,"publisher":2}',
  '{"id":1,"title":"The Left Hand of Darkness","year":1969,"price":14.99,"author":1,"publisher":1}',
  '{"id":5,"title":"If on a winter\'s night a traveler","year":1979,"price":13,"author":2,"publisher":null}',
  '{"id":4,"title":"Invisible Cities","year":1972,"price":12.5,"author":2,"publisher":1}',
  '{"id":8,"title":"Solaris","year":1961,"price":11,"author":4,"publisher":null}',
  '{"id":3,"title":"A Wizard of Earthsea","year":1968,"price":9.99,"author":1,"publisher":2}',
].join('\n')}\n`;

const cells = suite('export CSV cells');
cells('each value is written as its CSV cell', () => {
  for (const [value, cell] of CSV_CELLS) assert.is(csvCell(value), cell, String(value));
});
cells.run();

const ids = (ndjson: string) =>
  ndjson
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { id: number }).id);

for (const dialect of DIALECTS) {
  const s = suite<{ env: Record<string, string>; dir: string; cleanup: () => Promise<void> }>(
    `export script [${dialect}]`,
  );
  s.before(async (ctx) => {
    ctx.dir = mkdtempSync(join(tmpdir(), 'listql-export-'));
    ({ env: ctx.env, cleanup: ctx.cleanup } = await database(dialect, ctx.dir));
  });
  s.after(async (ctx) => {
    await ctx.cleanup();
    rmSync(ctx.dir, { recursive: true, force: true });
  });

  s('walks every matching book across pages, in sort order, for one tenant only', async ({ env }) => {
    const run = await runExport(env, ['--filter', 'year lt 1970', '--sort', 'year', '--page-size', '2']);
    assert.is(run.code, 0, run.stderr);
    // Tenant 1: Solaris 1961, Earthsea 1968, Left Hand 1969; The Cyberiad (1965) is soft-deleted.
    assert.equal(ids(run.stdout), [8, 3, 1]);
    assert.match(run.stderr, /exported 3 rows/);
  });

  s('a whole tenant, by a decimal key across pages: the same NDJSON bytes on every database', async ({ env }) => {
    const run = await runExport(env, ['--sort', '-price', '--page-size', '3']);
    assert.is(run.code, 0, run.stderr);
    assert.is(run.stdout, TENANT_1_BY_PRICE);
  });

  s('writes CSV with a header to a file', async ({ env, dir }) => {
    const out = join(dir, 'tenant2.csv');
    const run = await runExport(env, ['--tenant', '2', '--csv', '--out', out, '--page-size', '1']);
    assert.is(run.code, 0, run.stderr);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    assert.is(lines[0], 'id,title,year,price,author,publisher');
    assert.equal(
      lines.slice(1).map((l) => Number(l.split(',')[0])),
      [10, 11, 12],
    );
    assert.is(lines[2], '11,The Neverending Story,1979,18,6,3');
  });

  for (const sort of [['--sort', '-year'], ['--sort=-year']])
    s(`a descending sort is read as written: ${sort.join(' ')}`, async ({ env }) => {
      const run = await runExport(env, ['--filter', 'year lt 1970', ...sort]);
      assert.is(run.code, 0, run.stderr);
      assert.equal(ids(run.stdout), [1, 3, 8]);
    });

  s('--search narrows by title, ignoring case, within the tenant', async ({ env }) => {
    const [one, other] = await Promise.all([
      runExport(env, ['--search', 'WIZARD']),
      runExport(env, ['--search', 'story', '--tenant', '2']),
    ]);
    assert.is(one.code, 0, one.stderr);
    assert.equal(ids(one.stdout), [3]);
    // One row is "1 row", not "1 rows".
    assert.match(one.stderr, /exported 1 row in /);
    assert.is(other.code, 0, other.stderr);
    assert.equal(ids(other.stdout), [11]);
  });

  s('a CSV export of no rows is its header line alone', async ({ env }) => {
    const run = await runExport(env, ['--csv', '--filter', 'id eq 999']);
    assert.is(run.code, 0, run.stderr);
    assert.is(run.stdout, 'id,title,year,price,author,publisher\n');
    assert.match(run.stderr, /exported 0 rows in /);
  });

  s("--fields with related objects: NDJSON nests each book's tree, across pages", async ({ env }) => {
    const run = await runExport(env, [
      ...['--fields', 'title,author(name),reviews(reviewer,stars)'],
      ...['--nested', 'reviews.limit=2', '--nested', 'reviews.sort=-stars'],
      ...['--filter', 'year lt 1970', '--sort', 'year', '--page-size', '2'],
    ]);
    assert.is(run.code, 0, run.stderr);
    assert.is(run.stdout, NESTED_NDJSON);
  });

  s('--csv flattens related objects into columns (author.name), an alias under its own key', async ({ env }) => {
    const run = await runExport(env, [
      ...['--csv', '--fields', 'title,author(name),publisher(name)'],
      ...['--filter', 'year lt 1975', '--sort', 'year', '--page-size', '2'],
    ]);
    assert.is(run.code, 0, run.stderr);
    assert.is(run.stdout, NESTED_CSV);
    const aliased = await runExport(env, ['--csv', '--fields', 'writer:author(name)', '--filter', 'id in (1, 5)']);
    assert.is(aliased.code, 0, aliased.stderr);
    assert.is(aliased.stdout, 'id,writer.id,writer.name\n1,1,Ursula K. Le Guin\n5,2,Italo Calvino\n');
  });

  s('--csv refuses a to-many selection in one line, exit code 2, before any row', async ({ env, dir }) => {
    const out = join(dir, 'refused.csv');
    const run = await runExport(env, ['--csv', '--fields', 'title,reviews(stars)', '--out', out]);
    assert.is(run.code, 2, run.stderr);
    assert.is(
      run.stderr,
      "export: --csv cannot write 'reviews(…)': it is a list, and a CSV line has one cell per column. Select to-one " +
        'relations only (author(name) gives author.id and author.name), or write NDJSON (leave out --csv)\n',
    );
    assert.is(readFileSync(out, 'utf8'), '');
    // A nested parameter for a list fields does not select: listql's own refusal, as JSON.
    const unselected = await runExport(env, ['--fields', 'title', '--nested', 'reviews.limit=2']);
    assert.is(unselected.code, 2);
    assert.is(unselected.stdout, '');
    assert.match(unselected.stderr, /"code":"invalid_parameter"/);
    assert.match(unselected.stderr, /"parameter":"reviews.limit"/);
  });

  s('bad arguments: one line and the usage on stderr, exit code 2, no stack trace', async ({ env }) => {
    const runs = await Promise.all(BAD_ARGUMENTS.map((row) => runExport(env, [...row.args])));
    for (const [i, run] of runs.entries()) {
      const { args, error } = BAD_ARGUMENTS[i]!;
      const label = args.join(' ');
      assert.is(run.code, 2, `${label}: ${run.stderr}`);
      assert.is(run.stdout, '', label);
      assert.is(run.stderr.split('\n')[0], `export: ${error}`, label);
      assert.match(run.stderr, '\nUsage: npm run export -- [options]\n', label);
      assert.not.match(run.stderr, /^\s+at /m, label);
    }
  });

  s('--help prints the usage on stdout and exits 0', async ({ env }) => {
    const run = await runExport(env, ['--help']);
    assert.is(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Usage: npm run export -- \[options\]\n/);
    assert.match(run.stdout, '--sort <keys>');
    assert.is(run.stderr, '');
  });

  s('--out into a missing folder is refused in one line, creating nothing', async ({ env, dir }) => {
    const out = join(dir, 'missing', 'books.csv');
    const run = await runExport(env, ['--csv', '--out', out]);
    assert.is(run.code, 2, run.stderr);
    assert.is(run.stderr, `export: cannot write ${out}: folder ${join(dir, 'missing')} does not exist\n`);
    assert.not.ok(existsSync(join(dir, 'missing')));
  });

  s('a bad filter is refused with its ListError and exit code 2, before any row', async ({ env }) => {
    const run = await runExport(env, ['--filter', 'year gt(1970)']);
    assert.is(run.code, 2);
    assert.is(run.stdout, '');
    assert.match(run.stderr, /"code":"invalid_syntax"/);
    assert.match(run.stderr, /"offset":7/);
  });

  s.run();
}

async function database(
  dialect: Dialect,
  dir: string,
): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  if (dialect === 'sqlite')
    return { env: { BOOKSTORE_SQLITE: join(dir, 'bookstore.sqlite') }, cleanup: async () => {} };
  const db = await createDatabase(dialect, 'listql_export');
  return { env: { DATABASE_URL: db.url }, cleanup: db.drop };
}
