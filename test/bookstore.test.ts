/**
 * The bookstore example as a newcomer meets it: `examples/bookstore/main.ts` started as a child process on a free
 * port, over a fresh SQLite file and over a fresh PostgreSQL database (DATABASE_URL). The requests it prints must
 * return the expected pages, every request of the README's tour must return exactly the JSON the README shows,
 * and tenants, soft deletes, hidden fields and search escaping must hold. A second start reuses the seeded file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPostgresDatabase, DIALECTS, type Dialect } from './helpers/db.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

// The seed, restated as the oracle: [title, year, price, author, publisher].
const BOOKS: Record<number, [string, number, number, number, number | null]> = {
  1: ['The Left Hand of Darkness', 1969, 14.99, 1, 1],
  2: ['The Dispossessed', 1974, 15.99, 1, 1],
  3: ['A Wizard of Earthsea', 1968, 9.99, 1, 2],
  4: ['Invisible Cities', 1972, 12.5, 2, 1],
  5: ["If on a winter's night a traveler", 1979, 13, 2, null],
  6: ['Beloved', 1987, 16, 3, 2],
  7: ['Song of Solomon', 1977, 15, 3, 2],
  8: ['Solaris', 1961, 11, 4, null],
  10: ['Momo', 1973, 12, 6, 3],
  11: ['The Neverending Story', 1979, 18, 6, 3],
  12: ['Cassandra', 1983, 14, 7, 3],
};

function books(...ids: number[]): Record<string, unknown>[] {
  return ids.map((id) => {
    const [title, year, price, author, publisher] = BOOKS[id]!;
    return { id, title, year, price, author, publisher };
  });
}

function page(items: unknown[], info: Record<string, unknown> = {}): unknown {
  return { items, page: { limit: 20, offset: 0, hasMore: false, ...info } };
}

// The cursor after book 7 (year 1977) in `sort=-year`: deterministic, as cursors carry only the sort keys.
const AFTER_7 = 'eyJ2IjoxLCJzIjoiaFllc1pmMTJRWjZQeG91OE1rcHZFbk5UIiwiayI6WzE5NzcsN119';

/** What each printed example returns, in the order they are printed. */
const PRINTED: readonly unknown[] = [
  page(books(5, 4)),
  page(books(3, 1, 2)),
  page(books(3, 6, 4, 1), { count: 4 }),
  page(books(6, 5, 7), { limit: 3, hasMore: true, nextCursor: AFTER_7 }),
  page(books(2, 4, 1), {
    limit: 3,
    hasMore: true,
    nextCursor: 'eyJ2IjoxLCJzIjoiaFllc1pmMTJRWjZQeG91OE1rcHZFbk5UIiwiayI6WzE5NjksMV19',
  }),
  page(books(11)),
];

interface Row {
  readonly name: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly status?: number;
  readonly body: unknown;
}

const ROWS: readonly Row[] = [
  { name: 'a soft-deleted book is invisible', path: '/books?filter=id eq 9', body: page([]) },
  {
    name: 'tenant 2 sees only its own books, whatever the filter asks',
    path: '/books?filter=id in (1, 10)',
    headers: { 'x-tenant': '2' },
    body: page(books(10)),
  },
  {
    name: "a cursor from tenant 1's walk yields only tenant 2's rows",
    path: `/books?sort=-year&limit=3&cursor=${AFTER_7}`,
    headers: { 'x-tenant': '2' },
    body: page(books(10), { limit: 3 }),
  },
  {
    name: 'an unknown tenant is refused before any query',
    path: '/books',
    headers: { 'x-tenant': '3' },
    status: 400,
    body: { code: 'invalid_tenant', message: 'x-tenant must be 1 or 2' },
  },
  {
    name: 'the hidden tenant column does not exist for clients',
    path: '/books?filter=tenant eq 2',
    status: 400,
    body: {
      code: 'unknown_field',
      message: "unknown field 'tenant'",
      parameter: 'filter',
      position: { offset: 0, line: 1, column: 1 },
    },
  },
  {
    name: 'a syntax error names its position',
    path: '/books?filter=price gt(10)',
    status: 400,
    body: {
      code: 'invalid_syntax',
      message: "expected whitespace before '('",
      parameter: 'filter',
      position: { offset: 8, line: 1, column: 9 },
    },
  },
  { name: 'search is case-insensitive', path: '/books?search=WIZARD', body: page(books(3)) },
  { name: 'search escapes %', path: '/books?search=%25', body: page([]) },
  { name: 'search escapes _', path: '/books?search=o_', body: page([]) },
  { name: 'a nullable to-one relation', path: "/books?filter=publisher/name eq 'Faber'", body: page(books(3, 6, 7)) },
  {
    name: 'many-to-many with all (vacuously true without tags)',
    path: "/books?filter=tags/all(t: t/name ne 'classic')&sort=id",
    body: page(books(2, 5, 7, 8)),
  },
  {
    name: 'authors: a to-many filter over books, sorted by name',
    path: '/authors?filter=books/any(b: b/year lt 1970)&sort=name',
    body: page([
      { id: 4, name: 'Stanisław Lem', born: 1921 },
      { id: 1, name: 'Ursula K. Le Guin', born: 1929 },
    ]),
  },
  {
    name: 'authors: the soft-deleted author is neither listed nor counted',
    path: '/authors?sort=-born&count=true&limit=2',
    body: {
      items: [
        { id: 3, name: 'Toni Morrison', born: 1931 },
        { id: 1, name: 'Ursula K. Le Guin', born: 1929 },
      ],
      page: {
        limit: 2,
        offset: 0,
        hasMore: true,
        nextCursor: 'eyJ2IjoxLCJzIjoiTk5TZEx3djNGdzJJbzA5N1dYZXo0RU5iIiwiayI6WzE5MjksMV19',
        count: 4,
      },
    },
  },
];

/** A started bookstore: what it printed, its base URL, and the process. */
interface Started {
  readonly child: ChildProcess;
  readonly output: string;
  readonly base: string;
}

async function start(env: Record<string, string>): Promise<Started> {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, ['examples/bookstore/main.ts'], {
    cwd: ROOT,
    env: { ...inherited, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (output += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (errors += s));
  const deadline = Date.now() + 30_000;
  while (!output.includes('Press Ctrl+C')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`the bookstore did not start:\n${output}\n${errors}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const base = /listening on (http:\/\/\S+)/.exec(output)?.[1];
  assert.ok(base, output);
  return { child, output, base: base.replace('localhost', '127.0.0.1') };
}

async function stop(started: Started | undefined): Promise<number | null> {
  if (!started || started.child.exitCode !== null) return started?.child.exitCode ?? null;
  started.child.kill('SIGTERM');
  const [code] = await once(started.child, 'exit');
  return code as number | null;
}

/** Turn a printed or documented curl command into a fetch against `base`. */
function curlToRequest(command: string, base: string): { url: string; headers: Record<string, string> } {
  const tokens = (command.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((t) => t.replace(/^(['"])(.*)\1$/, '$2'));
  const headers: Record<string, string> = {};
  let url: URL | undefined;
  const data: [string, string][] = [];
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === '-H') {
      const [name, ...value] = tokens[++i]!.split(':');
      headers[name!.trim()] = value.join(':').trim();
    } else if (token === '--data-urlencode') {
      const pair = tokens[++i]!;
      const eq = pair.indexOf('=');
      data.push([pair.slice(0, eq), pair.slice(eq + 1)]);
    } else if (!token.startsWith('-')) {
      const target = new URL(token.startsWith('http') ? token : `http://${token}`);
      url = new URL(target.pathname + target.search, base);
    }
  }
  assert.ok(url, `no URL in: ${command}`);
  for (const [name, value] of data) url.searchParams.append(name, value);
  return { url: url.toString(), headers };
}

async function getJSON(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { headers });
  assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  return { status: res.status, body: await res.json() };
}

/** The README tour's request/response pairs: a ```sh block with one curl, followed by a ```json block. */
function readmeExamples(): { command: string; status: number; body: unknown }[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const pairs = [...readme.matchAll(/```sh\n(curl [^\n]+)\n```\n+(?:<!-- status (\d+) -->\n)?```json\n([\s\S]*?)```/g)];
  return pairs.map((m) => ({ command: m[1]!, status: Number(m[2] ?? 200), body: JSON.parse(m[3]!) }));
}

for (const dialect of DIALECTS) defineSuite(dialect);

function defineSuite(dialect: Dialect): void {
  const test = suite(`bookstore example [${dialect}]`);
  const state: { started?: Started; env: Record<string, string>; cleanup: () => Promise<void> } = {
    env: {},
    cleanup: async () => {},
  };

  test.before(async () => {
    if (dialect === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'listql-bookstore-'));
      state.env = { BOOKSTORE_SQLITE: join(dir, 'data', 'bookstore.sqlite') };
      state.cleanup = async () => rmSync(dir, { recursive: true, force: true });
    } else {
      const db = await createPostgresDatabase('listql_bookstore');
      state.env = { DATABASE_URL: db.url };
      state.cleanup = db.drop;
    }
    state.started = await start(state.env);
  });
  test.after(async () => {
    await stop(state.started);
    await state.cleanup();
  });

  test('it prints its URL and five example requests, then the tenant search', () => {
    const { output } = state.started!;
    assert.match(output, dialect === 'sqlite' ? 'on SQLite' : 'on PostgreSQL (DATABASE_URL)');
    assert.is(output.match(/^ {3}curl /gm)?.length, PRINTED.length);
    assert.match(output, `--data-urlencode "cursor=${AFTER_7}"`);
  });

  test('each printed request returns the expected page', async () => {
    const { output, base } = state.started!;
    const commands = output.match(/^ {3}(curl .+)$/gm)!.map((line) => line.trim());
    for (const [i, command] of commands.entries()) {
      const { url, headers } = curlToRequest(command, base);
      const { status, body } = await getJSON(url, headers);
      assert.is(status, 200, command);
      assert.equal(body, PRINTED[i], command);
    }
  });

  test("each request of the README's tour returns exactly the JSON shown", async () => {
    const examples = readmeExamples();
    assert.ok(examples.length >= 3, `README tour has ${examples.length} examples`);
    for (const example of examples) {
      const { url, headers } = curlToRequest(example.command, state.started!.base);
      const { status, body } = await getJSON(url, headers);
      assert.is(status, example.status, example.command);
      assert.equal(body, example.body, example.command);
    }
  });

  for (const row of ROWS) {
    test(row.name, async () => {
      const { status, body } = await getJSON(new URL(row.path, state.started!.base).toString(), row.headers);
      assert.is(status, row.status ?? 200);
      assert.equal(body, row.body);
    });
  }

  test('SIGTERM stops it cleanly, and a second start reuses the seeded database', async () => {
    assert.is(await stop(state.started), 0);
    state.started = await start(state.env);
    const { body } = await getJSON(`${state.started.base}/books?count=true&limit=1`);
    assert.is(body.page.count, 8);
  });

  test.run();
}
