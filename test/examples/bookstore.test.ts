/**
 * The bookstore example as a newcomer meets it: `examples/bookstore/main.ts` started as a child process on a free
 * port, over a fresh SQLite file and over a fresh PostgreSQL and MariaDB database (DATABASE_URL). The README tour's
 * JSON is the same byte for byte on every database. The requests it prints must
 * return the expected pages, every request of the README's tour (and of docs/selection.md) must return exactly the
 * JSON the page shows, and tenants, soft deletes, hidden fields and search escaping must hold. Nested selections
 * (objects, per-parent pages, their parameters, cursors and errors) hold on every database, over REST and GraphQL,
 * and so do the facets a search page asks for (bookstore-facets.ts).
 * A second start reuses the seeded file.
 * The schema carries an index for every column a relation sub-query correlates on; a query past Node's own 16 KiB
 * header limit still gets listql's JSON `limit_exceeded`; a DATABASE_URL naming a missing database is refused.
 */
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import type mysql from 'mysql2/promise';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ENTITIES } from '../../examples/bookstore/entities.ts';
import { authorPolicy, bookPolicy } from '../../examples/bookstore/policies.ts';
import { createEngine } from '../../src/index.ts';
import { type RunningBookstore, spawnBookstore, startBookstore } from '../helpers/bookstore.ts';
import {
  createDatabase,
  DIALECTS,
  type Dialect,
  mariadbAdmin,
  mysqlAdminUrl,
  postgresAdmin,
  postgresAdminUrl,
} from '../helpers/db.ts';
import { expectSqlIncludes, id, param, sql } from '../helpers/sql.ts';
import { AGGREGATE_ROWS, AGGREGATE_WALKS } from './bookstore-aggregates.ts';
import { FACET_ROWS } from './bookstore-facets.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

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

/** An author with their books as `fields=name,books(title,year)&books.count=true` gives them (five per author). */
function author(id: number, name: string, bookIds: number[]): unknown {
  const items = bookIds.map((book) => ({ id: book, title: BOOKS[book]![0], year: BOOKS[book]![1] }));
  return { id, name, books: { items, page: { limit: 5, offset: 0, hasMore: false, count: bookIds.length } } };
}

/** A nested page of one parent: its items and page info (a nested list of the bookstore's reviews by default). */
function nested(items: unknown[], info: Record<string, unknown> = {}): unknown {
  return { items, page: { limit: 3, offset: 0, hasMore: false, ...info } };
}

function page(items: unknown[], info: Record<string, unknown> = {}): unknown {
  return { items, page: { limit: 20, offset: 0, hasMore: false, ...info } };
}

// The cursor after book 7 (year 1977) in `sort=-year`: deterministic, as the bookstore signs cursors (its
// development secret, no cursorTtl) and a signed cursor carries only the sort keys.
const AFTER_7 = 'ARKFh6xl_XZBno_Gi7wySm8Sc1NbMTk3Nyw3XXoXUYPWt-hYG-a0DePlI9Q';
// The cursors paging back from book 2 (1974) and book 10 (1973) in `sort=-year`: the backward signature, their keys.
const BEFORE_2 = 'ARIv4-NiSpWH0FlW12iMo5E1y4ZbMTk3NCwyXbUuTANo-nD4PCXLpH8HHU8';
const BEFORE_10 = 'ARIv4-NiSpWH0FlW12iMo5E1y4ZbMTk3MywxMF17bubjr-i2_kETuSbqWwUc';

/** What each printed example returns, in the order they are printed (the tenant search last). */
const PRINTED: readonly unknown[] = [
  page(books(5, 4)),
  page(books(3, 1, 2)),
  page(books(3, 6, 4, 1), { count: 4 }),
  page(books(6, 5, 7), { limit: 3, hasMore: true, nextCursor: AFTER_7 }),
  page(books(2, 4, 1), {
    limit: 3,
    hasMore: true,
    nextCursor: 'ARKFh6xl_XZBno_Gi7wySm8Sc1NbMTk2OSwxXe9SWKQq_QnPz-RbE-zXeHU',
    prevCursor: BEFORE_2,
  }),
  page([
    author(2, 'Italo Calvino', [4, 5]),
    author(4, 'Stanisław Lem', [8]),
    author(3, 'Toni Morrison', [7, 6]),
    author(1, 'Ursula K. Le Guin', [3, 1, 2]),
  ]),
  // The tenant search, printed after the examples.
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
    body: page(books(10), { limit: 3, prevCursor: BEFORE_10 }),
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
        nextCursor: 'ARI01J0vC_cXDYijT3tZd7PgQ1tbMTkyOSwxXWhnbpnw2MyjETtQl_nPXJU',
        count: 4,
      },
    },
  },
];

/** Nested selections (docs/selection.md) as a client of the bookstore gets them: objects, pages per parent, filters. */
const NESTED_ROWS: readonly Row[] = [
  {
    name: 'a nullable to-one selection: the publisher object, or null',
    path: '/books?fields=title,publisher(name)&filter=id in (3, 5)&sort=id',
    body: page([
      { id: 3, title: 'A Wizard of Earthsea', publisher: { id: 2, name: 'Faber' } },
      { id: 5, title: "If on a winter's night a traveler", publisher: null },
    ]),
  },
  {
    name: 'a to-many selection: the best three reviews by default, soft-deleted reviews left out',
    path: '/books?fields=reviews(reviewer,stars)&filter=id in (4, 5, 8)&sort=id',
    body: page([
      {
        id: 4,
        reviews: nested([
          { id: 6, reviewer: 'fay', stars: 4 },
          { id: 5, reviewer: 'eli', stars: 2 },
        ]),
      },
      { id: 5, reviews: nested([]) },
      { id: 8, reviews: nested([{ id: 9, reviewer: 'jo', stars: 2 }]) },
    ]),
  },
  {
    name: 'a many-to-many selection, sorted by the relation’s default (name)',
    path: '/books?fields=tags(name)&filter=id in (1, 3)&sort=id',
    body: page([
      {
        id: 1,
        tags: {
          items: [
            { id: 1, name: 'classic' },
            { id: 2, name: 'science-fiction' },
          ],
          page: { limit: 10, offset: 0, hasMore: false },
        },
      },
      {
        id: 3,
        tags: {
          items: [
            { id: 1, name: 'classic' },
            { id: 3, name: 'fantasy' },
          ],
          page: { limit: 10, offset: 0, hasMore: false },
        },
      },
    ]),
  },
  {
    name: "nested filter, sort and count: each book's reviews of 3 stars or more, worst first, with their number",
    path: '/books?fields=title,reviews(stars)&filter=id in (1, 2, 4)&sort=id&reviews.filter=stars gte 3&reviews.sort=stars&reviews.count=true',
    body: page([
      {
        id: 1,
        title: 'The Left Hand of Darkness',
        reviews: nested(
          [
            { id: 2, stars: 4 },
            { id: 1, stars: 5 },
          ],
          { count: 2 },
        ),
      },
      { id: 2, title: 'The Dispossessed', reviews: nested([{ id: 3, stars: 3 }], { count: 1 }) },
      { id: 4, title: 'Invisible Cities', reviews: nested([{ id: 6, stars: 4 }], { count: 1 }) },
    ]),
  },
  {
    name: 'tenant 2: nested lists hold only its own rows',
    path: '/authors?fields=name,books(title)&sort=name',
    headers: { 'x-tenant': '2' },
    body: page([
      { id: 7, name: 'Christa Wolf', books: nestedBooks([12]) },
      { id: 6, name: 'Michael Ende', books: nestedBooks([10, 11]) },
    ]),
  },
];

/** An author's books as `fields=…,books(title)` gives them: oldest first, five at most. */
function nestedBooks(ids: number[]): unknown {
  return { items: ids.map((id) => ({ id, title: BOOKS[id]![0] })), page: { limit: 5, offset: 0, hasMore: false } };
}

/** Run the bookstore until it exits by itself (it should not start): its exit code and stderr. */
async function runToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawnBookstore(env, 'stderr');
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const timer = setTimeout(() => child.kill(), 30_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stderr };
}

/** A table and its index's columns, in order: `book(tenant,id)`. */
type IndexKey = string;

/** Every index of the database at `env`, and the correlation indexes the endpoints' engines advise. */
async function indexesOf(
  dialect: Dialect,
  env: Record<string, string>,
): Promise<{ indexes: IndexKey[]; advised: IndexKey[] }> {
  const { MikroORM } =
    dialect === 'sqlite'
      ? await import('@mikro-orm/sqlite')
      : dialect === 'postgresql'
        ? await import('@mikro-orm/postgresql')
        : await import('@mikro-orm/mariadb');
  const orm = await MikroORM.init({
    entities: ENTITIES,
    ...(dialect === 'sqlite' ? { dbName: env.BOOKSTORE_SQLITE! } : { clientUrl: env.DATABASE_URL! }),
  });
  try {
    const sql =
      dialect === 'sqlite'
        ? `select m.name as "table", group_concat(ii.name, ',' order by ii.seqno) as "columns"
             from sqlite_master m, pragma_index_list(m.name) il, pragma_index_info(il.name) ii
            where m.type = 'table' group by m.name, il.name`
        : dialect === 'mariadb'
          ? `select table_name as \`table\`, group_concat(column_name order by seq_in_index separator ',') as \`columns\`
               from information_schema.statistics where table_schema = database() group by table_name, index_name`
          : `select t.relname as "table", string_agg(a.attname, ',' order by k.ord) as "columns"
             from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
             join pg_namespace n on n.oid = t.relnamespace and n.nspname = 'public'
             cross join lateral unnest(x.indkey) with ordinality k(attnum, ord)
             join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
            group by t.relname, i.relname`;
    const rows = await orm.em.getConnection().execute<{ table: string; columns: string }[]>(sql);
    const advised = [bookPolicy, authorPolicy].flatMap((policy) =>
      createEngine(orm, { policy })
        .indexes()
        .filter((a) => a.reason === 'correlation')
        .map((a) => `${a.table}(${a.columns.map((c) => c.column).join(',')})`),
    );
    return { indexes: rows.map((r) => `${r.table}(${r.columns})`), advised };
  } finally {
    await orm.close(true);
  }
}

/** Whether an index leads with the advised columns: `book(author_id)` is served by `book(author_id)` or `book(author_id,id)`. */
function serves(index: IndexKey, advice: IndexKey): boolean {
  return index === advice || index.startsWith(`${advice.slice(0, -1)},`);
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

/** A page's request/response pairs (the README tour, docs/selection.md): a ```sh block with one curl, then ```json. */
function documentedExamples(file: string): { command: string; status: number; body: unknown }[] {
  const readme = readFileSync(join(ROOT, file), 'utf8');
  const pairs = [...readme.matchAll(/```sh\n(curl [^\n]+)\n```\n+(?:<!-- status (\d+) -->\n)?```json\n([\s\S]*?)```/g)];
  return pairs.map((m) => ({ command: m[1]!, status: Number(m[2] ?? 200), body: JSON.parse(m[3]!) }));
}

for (const dialect of DIALECTS) defineSuite(dialect);

function defineSuite(dialect: Dialect): void {
  const test = suite(`bookstore example [${dialect}]`);
  const state: { started?: RunningBookstore; env: Record<string, string>; cleanup: () => Promise<void> } = {
    env: {},
    cleanup: async () => {},
  };

  test.before(async () => {
    if (dialect === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'listql-bookstore-'));
      state.env = { BOOKSTORE_SQLITE: join(dir, 'data', 'bookstore.sqlite') };
      state.cleanup = async () => rmSync(dir, { recursive: true, force: true });
    } else {
      // MariaDB's URL is mysql://, as MySQL and MariaDB users write it; the bookstore asks the server which it is.
      const db = await createDatabase(dialect, 'listql_bookstore');
      state.env = { DATABASE_URL: db.url };
      state.cleanup = db.drop;
    }
    // /explain (the SQL of a request) is off unless asked for; its routes are tested here, in each dialect.
    state.env.BOOKSTORE_EXPLAIN = '1';
    state.started = await startBookstore(state.env);
  });
  test.after(async () => {
    await state.started?.stop();
    await state.cleanup();
  });

  test('it prints its URL and six example requests, then the tenant search', () => {
    const output = state.started!.stdout();
    const database = {
      sqlite: `SQLite (${state.env.BOOKSTORE_SQLITE})`,
      postgresql: 'PostgreSQL (DATABASE_URL)',
      mariadb: 'MariaDB (DATABASE_URL)',
    }[dialect];
    assert.match(output, `listql bookstore on ${database}, listening on http://`);
    assert.is(output.match(/^ {3}curl /gm)?.length, PRINTED.length);
    assert.match(output, `--data-urlencode "cursor=${AFTER_7}"`);
  });

  test('each printed request returns the expected page', async () => {
    const { stdout, base } = state.started!;
    const commands = stdout()
      .match(/^ {3}(curl .+)$/gm)!
      .map((line) => line.trim());
    for (const [i, command] of commands.entries()) {
      const { url, headers } = curlToRequest(command, base);
      const { status, body } = await getJSON(url, headers);
      assert.is(status, 200, command);
      assert.equal(body, PRINTED[i], command);
    }
  });

  for (const [file, least] of [
    ['README.md', 4],
    ['docs/selection.md', 3],
  ] as const)
    test(`each request of ${file} returns exactly the JSON shown, byte for byte`, async () => {
      const examples = documentedExamples(file);
      assert.ok(examples.length >= least, `${file} has ${examples.length} examples`);
      for (const example of examples) {
        const { url, headers } = curlToRequest(example.command, state.started!.base);
        const res = await fetch(url, { headers });
        assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
        assert.is(res.status, example.status, example.command);
        // The page's block, compacted: the same keys in the same order, the same numbers written the same way.
        assert.is(await res.text(), JSON.stringify(example.body), example.command);
      }
    });

  for (const row of ROWS) {
    test(row.name, async () => {
      const { status, body } = await getJSON(new URL(row.path, state.started!.base).toString(), row.headers);
      assert.is(status, row.status ?? 200);
      assert.equal(body, row.body);
    });
  }

  for (const row of NESTED_ROWS) {
    test(`nested selection: ${row.name}`, async () => {
      const { status, body } = await getJSON(new URL(row.path, state.started!.base).toString(), row.headers);
      assert.is(status, row.status ?? 200, JSON.stringify(body));
      assert.equal(body, row.body);
    });
  }

  for (const row of FACET_ROWS) {
    test(`facets: ${row.name}`, async () => {
      const url = `${state.started!.base}/books?${new URLSearchParams(row.query)}`;
      const { status, body } = await getJSON(url, row.tenant ? { 'x-tenant': row.tenant } : {});
      assert.is(status, row.status ?? 200, JSON.stringify(body));
      assert.equal(body, row.body);
    });
  }

  for (const row of AGGREGATE_ROWS) {
    test(`aggregates: ${row.name}`, async () => {
      const url = new URL(row.path, state.started!.base);
      url.searchParams.set('fields', 'id');
      const { status, body } = await getJSON(url.toString());
      assert.is(status, 200, JSON.stringify(body));
      assert.equal(
        body.items.map((item: any) => item.id),
        row.ids,
      );
    });
  }

  test('aggregates: a sort by each, walked forward by cursor to the end, in the order the seed gives', async () => {
    for (const walk of AGGREGATE_WALKS) {
      const seen: number[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages === 0 || cursor; pages++) {
        assert.ok(pages < 10, `${walk.path}: the walk ends`);
        const url = new URL(walk.path, state.started!.base);
        url.searchParams.set('fields', 'id');
        url.searchParams.set('limit', '3');
        if (cursor) url.searchParams.set('cursor', cursor);
        const { status, body } = await getJSON(url.toString());
        assert.is(status, 200, `${walk.path}: ${JSON.stringify(body)}`);
        seen.push(...body.items.map((item: any) => item.id));
        cursor = body.page.nextCursor;
      }
      assert.equal(seen, walk.order, walk.path);
    }
  });

  test('aggregates: the compared value is bound, and an aggregate the policy does not allow is refused', async () => {
    const { base } = state.started!;
    const explained = await getJSON(
      `${base}/explain/books?${new URLSearchParams({ filter: 'reviews/count() gt 987' })}`,
    );
    assert.is(explained.status, 200, JSON.stringify(explained.body));
    assert.ok(
      explained.body.data.params.some((p: unknown) => String(p) === '987'),
      explained.body.data.params,
    );
    assert.not.match(explained.body.data.sql, '987');
    const refused = await getJSON(`${base}/books?${new URLSearchParams({ filter: 'reviews/sum(stars) gt 3' })}`);
    assert.is(refused.status, 400);
    assert.equal([refused.body.code, refused.body.parameter], ['field_not_filterable', 'filter']);
  });

  test("nested cursors: one parent's list continues (forward and back), the others start again", async () => {
    const get = async (query: string) => {
      const { status, body } = await getJSON(`${state.started!.base}/books?${new URLSearchParams(query)}`);
      assert.is(status, 200, JSON.stringify(body));
      return body;
    };
    const fields = 'fields=title,reviews(reviewer,stars)&reviews.limit=1&reviews.count=true';
    const first = await get(`${fields}&filter=id in (1, 4)&sort=id`);
    const [one, four] = first.items;
    assert.equal(one.reviews.items, [{ id: 1, reviewer: 'ana', stars: 5 }]);
    assert.equal(four.reviews.items, [{ id: 6, reviewer: 'fay', stars: 4 }]);
    for (const { reviews } of [one, four]) {
      assert.equal(
        { ...reviews.page, nextCursor: 'x' },
        { limit: 1, offset: 0, hasMore: true, nextCursor: 'x', count: 2 },
      );
      assert.match(reviews.page.nextCursor, /^[A-Za-z0-9_-]+$/);
    }
    // A nested cursor names its parent: book 1's and book 4's differ although their sort keys are alike.
    assert.is.not(one.reviews.page.nextCursor, four.reviews.page.nextCursor);
    const cursor = encodeURIComponent(one.reviews.page.nextCursor);

    // Narrowed to book 1, its cursor continues its list: the second review, and a cursor back.
    const next = await get(`${fields}&filter=id eq 1&reviews.cursor=${cursor}`);
    assert.equal(next.items[0].reviews.items, [{ id: 2, reviewer: 'ben', stars: 4 }]);
    const { prevCursor, ...rest } = next.items[0].reviews.page;
    assert.equal(rest, { limit: 1, offset: 0, hasMore: false, count: 2 });
    const back = await get(`${fields}&filter=id eq 1&reviews.cursor=${encodeURIComponent(prevCursor)}`);
    assert.equal(back.items[0].reviews.items, [{ id: 1, reviewer: 'ana', stars: 5 }]);

    // Not narrowed: book 1 continues, book 4's list starts from its beginning.
    const both = await get(`${fields}&filter=id in (1, 4)&sort=id&reviews.cursor=${cursor}`);
    assert.equal(
      both.items.map((b: any) => b.reviews.items),
      [[{ id: 2, reviewer: 'ben', stars: 4 }], [{ id: 6, reviewer: 'fay', stars: 4 }]],
    );

    // Aliases: one relation twice, each list with its own parameters and cursors.
    const twice = await get(
      'fields=best:reviews(stars),worst:reviews(stars)&filter=id eq 4&best.limit=1&worst.limit=1&worst.sort=stars',
    );
    assert.equal(twice.items[0].best.items, [{ id: 6, stars: 4 }]);
    assert.equal(twice.items[0].worst.items, [{ id: 5, stars: 2 }]);
    assert.ok(twice.items[0].best.page.hasMore && twice.items[0].worst.page.hasMore);

    // A cursor of another sort, or of another path, is refused before any statement.
    for (const [query, parameter] of [
      [`${fields}&filter=id eq 1&reviews.sort=stars&reviews.cursor=${cursor}`, 'reviews.cursor'],
      [`fields=best:reviews(stars)&filter=id eq 1&best.limit=1&best.cursor=${cursor}`, 'best.cursor'],
    ] as const) {
      const refused = await getJSON(`${state.started!.base}/books?${new URLSearchParams(query)}`);
      assert.is(refused.status, 400, query);
      assert.equal([refused.body.code, refused.body.parameter], ['invalid_cursor', parameter], query);
    }
  });

  test('nested selection errors: a 400 naming the parameter (and the position), before any query', async () => {
    // [query, code, parameter, position offset or undefined, what the message says]
    const cases: readonly [string, string, string, number | undefined, RegExp][] = [
      ['fields=title,reviews', 'field_not_selectable', 'fields', 6, /reviews\(/],
      ['fields=reviews(body)', 'unknown_field', 'fields', 8, /'body'/],
      ['fields=reviews()', 'invalid_parameter', 'fields', undefined, /./],
      ['fields=title&reviews.limit=2', 'invalid_parameter', 'reviews.limit', undefined, /selects no list 'reviews'/],
      ['fields=author(name)&author.limit=2', 'invalid_parameter', 'author.limit', undefined, /to-one relation/],
      [
        'fields=tags(name)&tags.count=true',
        'invalid_parameter',
        'tags.count',
        undefined,
        /count is not enabled for tags/,
      ],
      ['fields=reviews(stars)&reviews.limit=21', 'limit_exceeded', 'reviews.limit', undefined, /20/],
      ['fields=reviews(stars)&reviews.filter=stars gt(3)', 'invalid_syntax', 'reviews.filter', 8, /whitespace before/],
      [
        'fields=reviews(stars)&reviews.fields=stars',
        'invalid_parameter',
        'reviews.fields',
        undefined,
        /fields=reviews\(/,
      ],
    ];
    for (const [query, code, parameter, offset, message] of cases) {
      const { status, body } = await getJSON(`${state.started!.base}/books?${new URLSearchParams(query)}`);
      assert.is(status, 400, query);
      assert.equal([body.code, body.parameter], [code, parameter], `${query}: ${JSON.stringify(body)}`);
      if (offset !== undefined) assert.is(body.position?.offset, offset, query);
      assert.match(body.message, message, query);
    }
  });

  test('every column a relation sub-query correlates on leads an index, and each tenant table leads with tenant', async () => {
    const { indexes, advised } = await indexesOf(dialect, state.env);
    // What the endpoints' engines advise today; the loop below keeps any later advice covered too.
    for (const expected of ['review(book_id)', 'book(author_id)'])
      assert.ok(advised.includes(expected), advised.join(' '));
    for (const advice of advised)
      assert.ok(
        indexes.some((index) => serves(index, advice)),
        `${advice} is advised but not indexed: ${indexes.join(' ')}`,
      );
    // Foreign keys no policy traverses yet (a publisher's books, a tag's books), and the tenant scope of each list.
    for (const declared of ['book(publisher_id)', 'book_tags(tag_id)'])
      assert.ok(indexes.includes(declared), `${declared}: ${indexes.join(' ')}`);
    for (const table of ['book', 'author', 'review', 'publisher'])
      assert.ok(indexes.includes(`${table}(tenant,id)`), `${table}: ${indexes.join(' ')}`);
  });

  // Node answers a request line and headers over 16 KiB with an empty 431 unless the server allows more.
  for (const [name, bytes, message] of [
    [
      "a 20 KB filter gets JSON limit_exceeded from listql, not Node's empty 431",
      20_000,
      'query is longer than 16384 bytes',
    ],
    [
      'a 100 KB request line gets the same JSON limit_exceeded',
      100_000,
      'request line and headers are longer than 65536 bytes',
    ],
  ] as const)
    test(name, async () => {
      const filter = `title in (${Array.from({ length: bytes / 10 }, () => "'abcdefg'").join(',')})`;
      const { status, body } = await getJSON(`${state.started!.base}/books?filter=${encodeURIComponent(filter)}`);
      assert.is(status, 400);
      assert.equal(body, { code: 'limit_exceeded', message });
    });

  if (dialect !== 'sqlite')
    test('a DATABASE_URL naming a missing database is refused, unless BOOKSTORE_CREATE_DB=1', async () => {
      const name = `listql_missing_${process.pid}_${Date.now()}`;
      const server = await missingDatabaseServer(dialect);
      const url = new URL(server.adminUrl);
      // On MariaDB, the mariadb:// scheme (the suite's own start used mysql://).
      if (dialect === 'mariadb') url.protocol = 'mariadb:';
      url.pathname = `/${name}`;
      const refused = await runToExit({ DATABASE_URL: url.toString() });
      assert.is(refused.code, 1);
      const create = dialect === 'postgresql' ? `createdb ${name}` : `create database \`${name}\``;
      assert.match(
        refused.stderr,
        `database "${name}" does not exist: create it (${create}), or set BOOKSTORE_CREATE_DB=1`,
      );
      assert.not.match(refused.stderr, /^\s+at /m);
      try {
        assert.is(await server.exists(name), false);
        const created = await startBookstore({ DATABASE_URL: url.toString(), BOOKSTORE_CREATE_DB: '1' });
        try {
          assert.match(
            created.stdout(),
            `listql bookstore on ${dialect === 'postgresql' ? 'PostgreSQL' : 'MariaDB'} (DATABASE_URL)`,
          );
          assert.is(await server.exists(name), true);
          assert.is((await getJSON(`${created.base}/books?count=true&limit=0`)).body.page.count, 8);
        } finally {
          await created.stop();
        }
      } finally {
        await server.drop(name);
      }
    });

  test('/openapi.json: one valid OpenAPI 3.1 document for /books and /authors, items typed from metadata', async () => {
    const { base } = state.started!;
    const { status, body } = await getJSON(`${base}/openapi.json`);
    assert.is(status, 200);
    const result = await new Validator().validate(structuredClone(body));
    assert.ok(result.valid, JSON.stringify(result.errors));
    assert.equal(Object.keys(body.paths), ['/books', '/authors']);
    const item = body.components.schemas.BooksItem;
    const serialized = ['id', 'title', 'year', 'price', 'author', 'publisher'];
    // Then what nested selections add: the reviews' and tags' pages (author and publisher take their objects).
    assert.equal(Object.keys(item.properties), [...serialized, 'reviews', 'tags']);
    assert.equal(item.properties.price, { type: 'number' });
    assert.equal(item.properties.publisher.anyOf[0].type, ['integer', 'null']);
    assert.equal(item.properties.publisher.anyOf.slice(1), [
      { $ref: '#/components/schemas/BooksPublisherItem' },
      { type: 'null' },
    ]);
    assert.equal(Object.keys(body.components.schemas.AuthorsItem.properties), ['id', 'name', 'born', 'books']);
    assert.equal(Object.keys(body.components.schemas), [
      'BooksItem',
      'BooksAuthorItem',
      'BooksPublisherItem',
      'BooksReviewsPage',
      'BooksReviewsItem',
      'BooksTagsPage',
      'BooksTagsItem',
      'AuthorsItem',
      'AuthorsBooksPage',
      'AuthorsBooksItem',
      'ListError',
      'InternalError',
    ]);
    assert.equal(Object.keys(body.components.schemas.BooksReviewsItem.properties), ['id', 'reviewer', 'stars']);
    const parameters = Object.fromEntries(body.paths['/books'].get.parameters.map((p: any) => [p.name, p.schema]));
    assert.equal(parameters['reviews.limit'], { type: 'integer', minimum: 0, maximum: 20, default: 3 });
    assert.equal(parameters['reviews.sort'], { type: 'string', default: '-stars' });
    assert.equal(parameters['tags.limit'], { type: 'integer', minimum: 0, maximum: 10, default: 10 });
    assert.ok(parameters['reviews.count'] && !parameters['tags.count']);
    assert.ok(new RegExp(parameters.fields.pattern).test('title,author(name),reviews(reviewer,stars)'));
    // Hidden properties (tenant, deletedAt), tables and columns appear nowhere.
    const text = JSON.stringify([body.paths, body.components]);
    for (const hidden of ['"tenant"', 'deletedAt', 'deleted_at', 'author_id'])
      assert.not.ok(text.includes(hidden), hidden);
    const page = await getJSON(`${base}/books?limit=100`);
    for (const row of page.body.items) assert.equal(Object.keys(row), serialized);
  });

  test('/docs: an API reference page rendered from /openapi.json by its own script, no CDN', async () => {
    const { base } = state.started!;
    const html = await fetch(`${base}/docs`);
    assert.is(html.headers.get('content-type'), 'text/html; charset=utf-8');
    const text = await html.text();
    assert.match(text, '<script type="module" src="/docs.js"></script>');
    assert.not.match(text, /https?:\/\//);
    const script = await fetch(`${base}/docs.js`);
    assert.is(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.match(await script.text(), "fetch('/openapi.json')");
  });

  test('/explain: the SQL and bound values of a request in the dialect, in the tenant scope; errors as list() has them', async () => {
    const { base } = state.started!;
    const url = `${base}/explain/books?filter=${encodeURIComponent('price lt 15')}&sort=-year&count=true`;
    const { status, body } = await getJSON(url, { 'x-tenant': '2' });
    assert.is(status, 200);
    const scope = sql`from ${id('book')} as ${id('b')} where ${id('b.tenant')} = ${param} and ${id('b.deleted_at')} is null`;
    expectSqlIncludes(body.data.sql, scope, dialect);
    const rest = sql`(${id('b.price')} < ${param}) order by ${id('b.year')} desc, ${id('b.id')} asc limit ${param}`;
    expectSqlIncludes(body.data.sql, rest, dialect, 2);
    assert.equal(body.data.params, [2, '15', 21]);
    assert.match(body.count.sql, /^select count\(/);
    assert.equal(body.count.params, [2, '15']);
    for (const path of ['/explain/books', '/books']) {
      const refused = await getJSON(`${base}${path}?filter=prce%20lt%201`);
      assert.is(refused.status, 400);
      assert.equal(refused.body, {
        code: 'unknown_field',
        message: "unknown field 'prce'; did you mean 'price'?",
        parameter: 'filter',
        position: { offset: 0, line: 1, column: 1 },
      });
    }
  });

  test('/describe and /playground: the descriptions, the page, and its script bundled with the parser', async () => {
    const { base } = state.started!;
    const { body } = await getJSON(`${base}/describe`);
    assert.equal(
      body.endpoints.map((e: any) => e.path),
      ['/books', '/authors'],
    );
    assert.is(body.endpoints[0].description.fields[0].name, 'id');
    // The facets the playground completes `facets` from: /books opens four, /authors none.
    assert.equal(
      body.endpoints.map((e: any) => e.description.facets.map((f: any) => `${f.name}:${f.of}:${f.label?.name ?? ''}`)),
      [['year:field:', 'author:one:name', 'publisher:one:name', 'tags:many:name'], []],
    );
    // The aggregates each to-many relation allows, as clients write them (the playground completes them).
    assert.equal(
      body.endpoints.map((e: any) =>
        Object.fromEntries(e.description.relations.map((r: any) => [r.name, r.aggregates ?? null])),
      ),
      [
        {
          author: null,
          publisher: null,
          reviews: ['reviews/count()', 'reviews/avg(stars)', 'reviews/max(stars)'],
          tags: null,
        },
        { books: ['books/count()'] },
      ],
    );
    const page = await fetch(`${base}/playground`);
    assert.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(await page.text(), '<script type="module" src="/playground.js"></script>');
    const script = await fetch(`${base}/playground.js`);
    assert.is(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    // listql's own parser, bundled: its messages and the grammar (Ohm's recipe of grammar.ohm) are in the script.
    const js = await script.text();
    assert.match(js, 'expected whitespace before');
    assert.match(js, 'disjunction = conjunction (rsp kwOr rsp conjunction)*');
  });

  test('/graphql: the same engines and tenant scopes as connections, errors with extensions', async () => {
    const { base } = state.started!;
    const ask = async (query: string, tenant?: string) => {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
      if (tenant) headers['x-tenant'] = tenant;
      const res = await fetch(`${base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query }) });
      return (await res.json()) as any;
    };
    const one = await ask('{ books(filter: "year lt 1970", sort: "year") { totalCount nodes { id title } } }');
    assert.equal(one.data.books, {
      totalCount: 3,
      nodes: books(8, 3, 1).map(({ id, title }) => ({ id, title })),
    });
    const two = await ask('{ books(first: 50) { nodes { id } } }', '2');
    assert.equal(
      two.data.books.nodes.map((n: any) => n.id),
      [10, 11, 12],
    );
    const bad = await ask('{ books(filter: "year gt(1970)") { nodes { id } } }');
    assert.equal(bad.errors[0].extensions, {
      code: 'invalid_syntax',
      parameter: 'filter',
      position: { offset: 7, line: 1, column: 8 },
    });
  });

  test('/graphql: nested selections as object and connection fields, one request', async () => {
    const res = await fetch(`${state.started!.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        query:
          '{ books(filter: "id in (1, 5)", sort: "id") { nodes { title author { name } publisher { name } ' +
          'reviews(first: 1) { totalCount nodes { reviewer stars } } } } }',
      }),
    });
    const body = (await res.json()) as any;
    assert.is(body.errors, undefined, JSON.stringify(body.errors));
    assert.equal(body.data.books.nodes, [
      {
        title: 'The Left Hand of Darkness',
        author: { name: 'Ursula K. Le Guin' },
        publisher: { name: 'Penguin' },
        reviews: { totalCount: 2, nodes: [{ reviewer: 'ana', stars: 5 }] },
      },
      {
        title: "If on a winter's night a traveler",
        author: { name: 'Italo Calvino' },
        publisher: null,
        reviews: { totalCount: 0, nodes: [] },
      },
    ]);
  });

  test('/graphql: facets of the books connection, cross-filtered as over REST', async () => {
    const res = await fetch(`${state.started!.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        query:
          '{ books(first: 0, filter: "tags/any(t: t/name eq \'classic\')") { totalCount ' +
          'facets { tags { value label count } year(limit: 2) { value count } } } }',
      }),
    });
    const body = (await res.json()) as any;
    assert.is(body.errors, undefined, JSON.stringify(body.errors));
    assert.equal(body.data.books, {
      totalCount: 4,
      facets: {
        // The tags facet leaves out its own clause: every tag, as without the filter.
        tags: [
          { value: 1, label: 'classic', count: 4 },
          { value: 2, label: 'science-fiction', count: 3 },
          { value: 3, label: 'fantasy', count: 1 },
        ],
        // The classics (books 1, 3, 4, 6): their two lowest years.
        year: [
          { value: 1968, count: 1 },
          { value: 1969, count: 1 },
        ],
      },
    });
  });

  test('SIGTERM stops it cleanly, and a second start reuses the seeded database', async () => {
    assert.is(await state.started!.stop(), 0);
    state.started = await startBookstore(state.env);
    const { body } = await getJSON(`${state.started.base}/books?count=true&limit=1`);
    assert.is(body.page.count, 8);
  });

  test.run();
}

/** A database server as the missing-database test needs it: its admin URL, whether a database exists, a drop. */
async function missingDatabaseServer(dialect: Exclude<Dialect, 'sqlite'>): Promise<{
  adminUrl: string;
  exists(name: string): Promise<boolean>;
  drop(name: string): Promise<void>;
}> {
  if (dialect === 'postgresql') {
    const adminUrl = await postgresAdminUrl();
    const admin = postgresAdmin;
    return {
      adminUrl,
      exists: (name) =>
        admin(async (c) => (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1),
      drop: (name) => admin((c) => c.query(`drop database if exists "${name}" with (force)`)).then(() => undefined),
    };
  }
  const adminUrl = await mysqlAdminUrl();
  const admin = mariadbAdmin;
  return {
    adminUrl,
    exists: (name) =>
      admin(async (c) => {
        const [rows] = await c.query<mysql.RowDataPacket[]>(
          'select 1 from information_schema.schemata where schema_name = ?',
          [name],
        );
        return rows.length === 1;
      }),
    drop: (name) => admin((c) => c.query(`drop database if exists \`${name}\``)).then(() => undefined),
  };
}
