/**
 * The export script as a user runs it: a child process over a fresh bookstore database (a temporary SQLite file, and
 * a fresh PostgreSQL database through DATABASE_URL), walking cursors with items() and writing NDJSON or CSV.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPostgresDatabase, DIALECTS, type Dialect } from './helpers/db.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runExport(env: Record<string, string>, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['examples/export/main.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
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
  const db = await createPostgresDatabase('listql_export');
  return { env: { DATABASE_URL: db.url }, cleanup: db.drop };
}
