/**
 * Flat pages on PostgreSQL, side by side over the same node:http stack: one hand-written statement, listql REST,
 * listql GraphQL (graphql-http with documentLimits: its document cache and compiled execution; POSTed, the same
 * document sent as a GET, and POSTed to a handler with graphql-js's own execution) and PostGraphile 4 with the
 * connection-filter plugin (bench/peers/postgraphile, installed by `npm run bench:peers`; skipped with a message when
 * absent). The request: a page of 20 books filtered on price and year, sorted by a nullable rating then id: page 1,
 * page 50 (by cursor, each side following its own cursors) and page 1 with the total count. One client, interleaved
 * rounds: each round runs the six sides in a shuffled order (timeSides), and each ratio is the median of the per-round
 * ratios.
 * With the count, a seventh side runs in the same rounds: the hand-written count statement alone, the floor under any
 * answer that includes the count (see countPageTarget).
 * The client is `node:http` with one keep-alive agent, the same way for every side (a GET for the hand-written
 * statement and REST, a POST of a JSON body for the GraphQL sides and PostGraphile): Node's `fetch` spends about
 * 0.1 ms more on a POST with a body than on a GET whatever the server does, which would tilt the comparison against
 * every GraphQL side; `BENCH_CLIENT=fetch` measures with `fetch` instead. The GET line shows listql's GraphQL server
 * work beside REST's with the same method.
 *
 * NULLs: listql sorts NULL ratings last and its cursor predicate continues into them (`… or rating is null`);
 * PostGraphile sorts `rating asc` (NULLs last too) but continues with a row comparison `(rating, id) > (…)`, which is
 * never true for a NULL rating, so a walk past the last rated book silently ends without the unrated ones. Page 50
 * lies well before them, so the answers compared here agree; a full walk would not.
 *
 * Run alone with `npx --no-install node bench/flat-peers.ts` (FLAT_BOOKS, default 100,000; FLAT_ROUNDS, default 200;
 * BENCH_CLIENT, `http` by default or `fetch`), or as part of `npm run bench` (BENCH_ROWS / 10 books).
 */
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { EntitySchema, type MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { createHandler } from 'graphql-http/lib/use/http';
import pg from 'pg';
import { createEngine } from '../src/engine/index.ts';
import { documentLimits, graphqlSchema } from '../src/graphql/index.ts';
import { writeJSONText } from '../src/http/errors.ts';
import { abortOnClose, runList } from '../src/http/handler.ts';
import { filterable, schema, sortable } from '../src/policy/index.ts';
import { openDatabase } from '../test/helpers/db.ts';
import { closeClient, type Reply, send } from './http-client.ts';
import { fmt, noise, type Sample, summarize, type Target, verdict } from './stats.ts';

export class FlatBook {
  id!: number;
  title!: string;
  price!: number;
  year!: number;
  rating?: number | null;
}

/** The table `book`, with the index a user adds for the sort (`rating, id`: NULLs last, as PostgreSQL orders asc). */
export const flatEntities = [
  new EntitySchema<FlatBook>({
    class: FlatBook,
    tableName: 'book',
    indexes: [{ properties: ['rating', 'id'] }],
    properties: {
      id: { type: 'integer', primary: true, autoincrement: false },
      title: { type: 'string' },
      price: { type: 'integer' },
      year: { type: 'integer' },
      rating: { type: 'integer', nullable: true },
    },
  }),
];

const f = filterable();
const s = sortable();
const flatPolicy = schema(FlatBook)
  .expose('id', f, s)
  .expose('title', f, s)
  .expose('price', f, s)
  .expose('year', f, s)
  .expose('rating', f, s);

const PAGE = 20;
const DEEP = 50;
const PRICE = 500;
const YEAR = 2000;
const FIELDS = 'id,title,price,year,rating';
const REST_QUERY = `limit=${PAGE}&filter=${encodeURIComponent(`price lt ${PRICE} and year gte ${YEAR}`)}&sort=rating,id&fields=${FIELDS}`;
const LISTQL_DOCUMENT = `query Books($after: String, $count: Boolean! = false) {
  books(first: ${PAGE}, filter: "price lt ${PRICE} and year gte ${YEAR}", sort: "rating,id", after: $after) {
    nodes { id title price year rating } pageInfo { hasNextPage endCursor } totalCount @include(if: $count) } }`;
const POSTGRAPHILE_DOCUMENT = `query Books($after: Cursor, $count: Boolean! = false) {
  allBooks(first: ${PAGE}, filter: { price: { lessThan: ${PRICE} }, year: { greaterThanOrEqualTo: ${YEAR} } },
    orderBy: [RATING_ASC, ID_ASC], after: $after) {
    nodes { id title price year rating } pageInfo { hasNextPage endCursor } totalCount @include(if: $count) } }`;

/**
 * 100 prices, 75 years and 100 ratings spread over the ids; every 100th book has no rating. The filter keeps about
 * a sixth of the books, so page 1 reads about 120 index entries and page 50 starts about 6,000 entries in.
 * The load ends with `vacuum analyze`, as PostgreSQL's documentation advises after a bulk load and as autovacuum
 * leaves a table that has settled: the pages are marked all-visible, so a sequential scan (the count's) skips the
 * visibility check of each row. A table read straight after its load is a state no production table stays in.
 */
export async function loadFlat(orm: MikroORM, books: number): Promise<void> {
  const run = (sql: string) => orm.em.getConnection().execute(sql);
  await run(
    `insert into book (id, title, price, year, rating)
     select n, concat('title ', n), (n::bigint * 7919) % 1000, 1950 + (n::bigint * 31) % 75,
            case when n % 100 = 0 then null else (n::bigint * 613) % 100 end
     from generate_series(1, ${books}) n`,
  );
  await run('vacuum analyze book');
}

/** One page as every side reports it: its ids, its total when asked, and the cursor after its last row. */
interface Answer {
  readonly ids: readonly number[];
  readonly total?: number;
  readonly next?: string;
}
type Ask = (after: string | undefined, count: boolean) => Promise<Answer>;

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
const origin = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** The `data` of a GraphQL answer; throws its errors. */
function dataOf(reply: Reply): any {
  const json = reply.body as { data?: any; errors?: unknown };
  if (json.errors || !json.data) throw new Error(JSON.stringify(json.errors));
  return json.data;
}

async function postJSON(url: string, body: unknown): Promise<any> {
  return dataOf(await send(url, body));
}

/** listql REST (`/books?…`) and GraphQL (`/graphql`) of one engine on one server, as tree.ts serves them. */
export async function serveListql(
  orm: MikroORM,
): Promise<{ rest: Ask; graph: Ask; graphGet: Ask; graphJs: Ask; server: Server }> {
  const engine = createEngine(orm, { policy: flatPolicy, maxLimit: 100, allowCount: true });
  const scope = () => ({ base: (orm.em.fork() as SqlEntityManager).createQueryBuilder(FlatBook, 'b') });
  const gqlSchema = graphqlSchema({ endpoints: [{ field: 'books', type: 'Book', engine, scope }] });
  const limits = documentLimits({ cache: true });
  const gql = createHandler({
    schema: gqlSchema,
    parse: limits.parse,
    validate: limits.validate,
    validationRules: limits.validationRules,
    execute: limits.execute,
  });
  // The same handler with graphql-js's own execution: what the compiled path saves.
  const gqlJs = createHandler({
    schema: gqlSchema,
    parse: limits.parse,
    validate: limits.validate,
    validationRules: limits.validationRules,
  });
  const server = await listen((req, res) => {
    if (req.url?.startsWith('/graphql-js')) return void gqlJs(req, res);
    if (req.url?.startsWith('/graphql')) return void gql(req, res);
    if (req.url?.startsWith('/books?'))
      return void runList(engine, scope, req, req.url, abortOnClose(res)).then(({ status, json }) =>
        writeJSONText(res, status, json),
      );
    res.writeHead(404).end();
  });
  const base = origin(server);
  const rest: Ask = async (after, count) => {
    const res = await send(
      `${base}/books?${REST_QUERY}${after ? `&cursor=${encodeURIComponent(after)}` : ''}${count ? '&count=true' : ''}`,
    );
    const body = res.body as { items: { id: number }[]; page: { nextCursor?: string; count?: number } };
    if (res.status !== 200) throw new Error(`REST answered ${res.status}: ${JSON.stringify(body)}`);
    return answer(body.items, body.page.count, body.page.nextCursor);
  };
  const post =
    (path: string): Ask =>
    async (after, count) => {
      const { books } = await postJSON(`${base}${path}`, {
        query: LISTQL_DOCUMENT,
        variables: { after: after ?? null, count },
      });
      return answer(books.nodes, books.totalCount, books.pageInfo.endCursor);
    };
  const graph = post('/graphql');
  const graphJs = post('/graphql-js');
  // The same document as a GET (GraphQL over HTTP allows it for queries): the server's work, sent as REST is sent.
  const graphGet: Ask = async (after, count) => {
    const variables = encodeURIComponent(JSON.stringify({ after: after ?? null, count }));
    const { books } = dataOf(
      await send(`${base}/graphql?query=${encodeURIComponent(LISTQL_DOCUMENT)}&variables=${variables}`),
    );
    return answer(books.nodes, books.totalCount, books.pageInfo.endCursor);
  };
  return { rest, graph, graphGet, graphJs, server };
}

function answer(items: readonly { id: number }[], total: number | undefined, next: string | undefined): Answer {
  return { ids: items.map((i) => Number(i.id)), ...(total === undefined ? {} : { total }), ...(next ? { next } : {}) };
}

/**
 * The hand-written endpoint: one statement per page (the count adds one) on one pg pool, its cursor the last row's
 * `rating,id` in plain text. A careful author continues with the row comparison `(rating, id) > (…)`, which the
 * index on `(rating, id)` seeks to (an `or rating is null` beside it would make PostgreSQL filter the whole index
 * from its start), and reads the unrated books with a second statement only when the rated ones run out.
 */
async function serveByHand(url: string): Promise<{ ask: Ask; countOnly: Ask; server: Server; pool: pg.Pool }> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const where = 'price < $1 and year >= $2';
  const cols = 'select id, title, price, year, rating from book';
  const nulls = (after: number, limit: number) =>
    pool.query(`${cols} where ${where} and rating is null and id > $3 order by id limit ${limit}`, [
      PRICE,
      YEAR,
      after,
    ]);
  const page = async (after: string | null) => {
    if (!after)
      return (await pool.query(`${cols} where ${where} order by rating, id limit ${PAGE + 1}`, [PRICE, YEAR])).rows;
    const [rating, id] = after.split(',').map((v) => (v === '' ? null : Number(v)));
    if (rating === null) return (await nulls(id!, PAGE + 1)).rows;
    const sql = `${cols} where ${where} and (rating, id) > ($3, $4) order by rating, id limit ${PAGE + 1}`;
    const { rows } = await pool.query(sql, [PRICE, YEAR, rating, id]);
    return rows.length > PAGE ? rows : [...rows, ...(await nulls(0, PAGE + 1 - rows.length)).rows];
  };
  const countOf = async () =>
    Number((await pool.query(`select count(*) as n from book where ${where}`, [PRICE, YEAR])).rows[0].n);
  const server = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/count') return writeJSONText(res, 200, JSON.stringify({ count: await countOf() }));
    const q = url.searchParams;
    const rows = await page(q.get('after'));
    const count = q.has('count') ? await countOf() : undefined;
    const items = rows.slice(0, PAGE);
    const last = items.at(-1);
    const next = rows.length > PAGE && last ? `${last.rating ?? ''},${last.id}` : undefined;
    writeJSONText(res, 200, JSON.stringify({ items, count, next }));
  });
  const base = origin(server);
  const ask: Ask = async (after, count) => {
    const res = await send(
      `${base}/page?${after ? `after=${encodeURIComponent(after)}&` : ''}${count ? 'count=1' : ''}`,
    );
    const body = res.body as { items: { id: number }[]; count?: number; next?: string };
    return answer(body.items, body.count, body.next);
  };
  /** The count statement alone: the floor under any answer that includes the count. */
  const countOnly: Ask = async () => answer([], (await send(`${base}/count`)).body.count as number, undefined);
  return { ask, countOnly, server, pool };
}

const FOLDER = fileURLToPath(new URL('./peers/postgraphile/', import.meta.url));

/** PostGraphile on its own server, or undefined when bench/peers/postgraphile is not installed. */
async function servePostGraphile(
  url: string,
): Promise<{ ask: Ask; server: Server; release: () => unknown } | undefined> {
  if (!existsSync(`${FOLDER}node_modules/postgraphile`)) return undefined;
  const require = createRequire(`${FOLDER}package.json`);
  const { postgraphile } = require('postgraphile');
  const middleware = postgraphile(url, 'public', {
    appendPlugins: [require('postgraphile-plugin-connection-filter')],
    disableQueryLog: true,
    retryOnInitFail: false,
  });
  const server = await listen(middleware);
  const endpoint = `${origin(server)}/graphql`;
  const ask: Ask = async (after, count) => {
    const { allBooks } = await postJSON(endpoint, {
      query: POSTGRAPHILE_DOCUMENT,
      variables: { after: after ?? null, count },
    });
    return answer(allBooks.nodes, allBooks.totalCount, allBooks.pageInfo.endCursor);
  };
  return { ask, server, release: () => middleware.release?.() };
}

/** The named sides of the comparison, in the order they are printed. */
type Sides = Readonly<Record<'hand' | 'rest' | 'graph' | 'graphGet' | 'graphJs' | 'peer', Ask>>;
type SideName = keyof Sides;

/** Follow each side's own cursors to the page before `page`: the `after` each side sends for it. */
async function cursorsBefore(sides: Sides, page: number): Promise<Record<SideName, string | undefined>> {
  const out = {} as Record<SideName, string | undefined>;
  for (const name of Object.keys(sides) as SideName[]) {
    let after: string | undefined;
    for (let p = 1; p < page; p++) after = (await sides[name](after, false)).next;
    out[name] = after;
  }
  return out;
}

/** Whether every side answers the same ids in the same order (and the same total). */
async function agree(sides: Sides, after: Record<SideName, string | undefined>, count: boolean): Promise<string> {
  const shapes = new Map<SideName, string>();
  for (const name of Object.keys(sides) as SideName[]) {
    const a = await sides[name](after[name], count);
    shapes.set(name, JSON.stringify([a.ids, a.total ?? null]));
  }
  const expected = shapes.get('hand');
  const off = [...shapes].filter(([, shape]) => shape !== expected).map(([name]) => name);
  return off.length === 0 ? 'yes' : `NO (${off.join(', ')} differ from the hand-written statement)`;
}

/**
 * Per-round times of each side (ms) over interleaved rounds, each round in an order of its own: shuffled (from a
 * fixed seed, so every run sends the same orders), not rotated. Under a rotation each side always follows the same
 * side, and a request measured about 2% faster right after one of listql's than after another process's, so the
 * side that always came after listql (PostGraphile's) was favoured.
 */
async function timeSides<N extends string>(
  sides: Readonly<Record<N, Ask>>,
  after: Readonly<Partial<Record<N, string | undefined>>>,
  count: boolean,
  rounds: number,
): Promise<Record<N, number[]>> {
  const names = Object.keys(sides) as N[];
  const times = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<N, number[]>;
  const warmup = Math.max(10, Math.floor(rounds / 4));
  const random = seeded(0x5eed);
  for (let r = 0; r < warmup + rounds; r++) {
    const order = [...names];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const name of order) {
      const t0 = performance.now();
      await sides[name](after[name], count);
      if (r >= warmup) times[name].push(performance.now() - t0);
    }
  }
  return times;
}

/** A seeded generator of numbers in [0, 1) (mulberry32): the same sequence for the same seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function ratioOf(a: readonly number[], b: readonly number[]): Sample {
  return summarize(a.map((x, i) => x / b[i]!));
}

function line(name: string, ratio: Sample, a: readonly number[], b: readonly number[], target: Target): string {
  const detail = `(${fmt(summarize(a).median, 'ms')} vs ${fmt(summarize(b).median, 'ms')})`;
  return `${name.padEnd(60)} ${`${ratio.median.toFixed(2)}x`.padStart(7)}  ${noise(ratio).padStart(7)}  ${detail}  ${verdict(ratio.median, target)}`;
}

/**
 * The target of a page with its count beside PostGraphile: 0.8x, unless the count statement alone, sent by hand over
 * the same HTTP stack, already takes more than 0.75x of PostGraphile's answer. The count is a scan of every matching
 * row on every side, and no answer that includes it can take less time than the statement alone; then the target
 * is that floor plus 0.05, so listql may add at most a twentieth of PostGraphile's time over the scan.
 */
function countPageTarget(floor: number): Target {
  return { max: Math.max(0.8, Math.round((floor + 0.05) * 100) / 100) };
}

/** The flat-page figures beside PostGraphile, `books` books, on a database of their own. */
export async function benchFlatPeers(
  books: number,
  rounds = Number(process.env.FLAT_ROUNDS ?? 200),
): Promise<string[]> {
  const db = await openDatabase('postgresql', flatEntities);
  const closing: (() => unknown)[] = [() => db.dispose()];
  try {
    const t0 = performance.now();
    await loadFlat(db.orm, books);
    const out = [
      `(${books.toLocaleString('en-US')} books, loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    ];
    const peer = await servePostGraphile(db.url!);
    if (!peer) return [...out, 'PostGraphile: skipped (`npm run bench:peers` installs it in bench/peers/postgraphile)'];
    closing.unshift(peer.release, () => close(peer.server));
    const listql = await serveListql(db.orm);
    closing.unshift(() => close(listql.server));
    const hand = await serveByHand(db.url!);
    closing.unshift(
      () => hand.pool.end(),
      () => close(hand.server),
    );
    const sides: Sides = {
      hand: hand.ask,
      rest: listql.rest,
      graph: listql.graph,
      graphGet: listql.graphGet,
      graphJs: listql.graphJs,
      peer: peer.ask,
    };
    const none = {
      hand: undefined,
      rest: undefined,
      graph: undefined,
      graphGet: undefined,
      graphJs: undefined,
      peer: undefined,
    };
    const shapes = [
      { name: 'page 1', after: none, count: false },
      { name: `page ${DEEP} (cursor)`, after: await cursorsBefore(sides, DEEP), count: false },
      { name: 'page 1 + count', after: none, count: true },
    ];
    for (const shape of shapes) {
      const same = await agree(sides, shape.after, shape.count);
      // With the count, the count statement alone (by hand) runs in the same rounds: no answer can be faster.
      const t = await timeSides<SideName | 'floor'>(
        shape.count ? { ...sides, floor: hand.countOnly } : (sides as Sides & { floor: Ask }),
        shape.after,
        shape.count,
        rounds,
      );
      const peerTarget = shape.count ? countPageTarget(ratioOf(t.floor, t.peer).median) : { max: 0.8 };
      out.push(
        `${shape.name}: same ids in the same order on all six: ${same}`,
        line(`  ${shape.name}: listql GraphQL / listql REST`, ratioOf(t.graph, t.rest), t.graph, t.rest, { max: 1.1 }),
        line(
          `  ${shape.name}: listql GraphQL over GET / listql REST`,
          ratioOf(t.graphGet, t.rest),
          t.graphGet,
          t.rest,
          'report',
        ),
        line(
          `  ${shape.name}: compiled / graphql-js execution`,
          ratioOf(t.graph, t.graphJs),
          t.graph,
          t.graphJs,
          'report',
        ),
        line(`  ${shape.name}: listql REST / PostGraphile`, ratioOf(t.rest, t.peer), t.rest, t.peer, peerTarget),
        line(`  ${shape.name}: listql GraphQL / PostGraphile`, ratioOf(t.graph, t.peer), t.graph, t.peer, peerTarget),
        line(
          `  ${shape.name}: listql REST / hand-written statement`,
          ratioOf(t.rest, t.hand),
          t.rest,
          t.hand,
          'report',
        ),
        line(
          `  ${shape.name}: PostGraphile / hand-written statement`,
          ratioOf(t.peer, t.hand),
          t.peer,
          t.hand,
          'report',
        ),
        ...(shape.count
          ? [
              line(
                `  ${shape.name}: the count statement alone (floor) / PostGraphile`,
                ratioOf(t.floor, t.peer),
                t.floor,
                t.peer,
                'report',
              ),
              line(
                `  ${shape.name}: listql REST / the count statement alone`,
                ratioOf(t.rest, t.floor),
                t.rest,
                t.floor,
                'report',
              ),
            ]
          : []),
      );
    }
    return out;
  } finally {
    for (const step of closing) await step();
    closeClient();
  }
}

if (import.meta.main) {
  const lines = await benchFlatPeers(Number(process.env.FLAT_BOOKS ?? 100_000));
  console.log('\n## Flat pages beside PostGraphile, PostgreSQL');
  for (const l of lines) console.log(l);
}
