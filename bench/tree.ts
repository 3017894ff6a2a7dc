/**
 * Nested trees: a page of 20 books, each with its author, publisher, three newest reviews and every tag, in one
 * request (`fields=…,author(…),reviews(…)&reviews.limit=3…`), against the same tree built by hand, by
 * DataLoader-style batching and by MikroORM's populate, and GraphQL over HTTP against REST over HTTP; then the time
 * the budget takes to refuse a tree that asks for every level at its maximum. See docs/performance.md#nested-trees.
 *
 * Run alone with `npx node bench/tree.ts` (TREE_BOOKS, default 100,000), or as part of `npm run bench`, where the
 * book count is BENCH_ROWS / 10.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { graphql } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/http';
import { createEngine, type Engine } from '../src/engine/index.ts';
import { isListError } from '../src/errors.ts';
import { documentLimits, graphqlSchema } from '../src/graphql/index.ts';
import { writeJSONText } from '../src/http/errors.ts';
import { abortOnClose, runList } from '../src/http/handler.ts';
import { captureDriver } from '../test/helpers/capture.ts';
import { openDatabase } from '../test/helpers/db.ts';
import { send } from './http-client.ts';
import { fmt, noise, type Sample, sideBySide, summarize, type Target, verdict } from './stats.ts';
import { dataLoaderStyle, handWritten, mikroPopulate, rawDriver, treeStatements } from './tree-baselines.ts';
import { Book, GREEDY_MAX, greedyBookPolicy, loadTree, MAX_TAGS, treeBookPolicy, treeEntities } from './tree-model.ts';
import { benchPostGraphile } from './tree-peers.ts';

type Dialect = 'sqlite' | 'postgresql' | 'mariadb';
const NAMES = { sqlite: 'SQLite', postgresql: 'PostgreSQL', mariadb: 'MariaDB' } as const;

const PAGE = 20;
const REVIEWS = 3;
/** The tree in REST: the same on every dialect and over HTTP. */
export const TREE_QUERY =
  `limit=${PAGE}&fields=id,title,author(id,name),publisher(id,name),reviews(id,stars,createdAt),tags(id,name)` +
  `&reviews.sort=-createdAt&reviews.limit=${REVIEWS}&tags.limit=${MAX_TAGS}`;
/** The same tree in GraphQL. */
export const TREE_DOCUMENT = `{ books(first: ${PAGE}) { nodes { id title author { id name } publisher { id name }
  reviews(first: ${REVIEWS}, sort: "-createdAt") { nodes { id stars createdAt } }
  tags(first: ${MAX_TAGS}) { nodes { id name } } } } }`;

const ROUNDS = 30;
/** Warm-up rounds before the measured ones: the first nested trees a process plans are compiled by V8 as they run. */
const WARMUP = 20;
/**
 * Warm-up trees of each side before the target's rounds: by then V8 has optimized both sides' code, as in a server
 * that has answered a few hundred requests. The figure after WARMUP trees is printed beneath it.
 */
const WARM = 1000;

/** A request's base scope: every book, on a fresh fork (what a handler builds per request). */
function allBooks(orm: MikroORM) {
  return (orm.em.fork() as SqlEntityManager).createQueryBuilder(Book, 'b');
}

/** One printed line, as the other sections print them: a figure, its ratio and noise, its target. */
function line(name: string, ratio: Sample, detail: string, target: Target): string {
  return `${name.padEnd(72)} ${`${ratio.median.toFixed(2)}x`.padStart(8)}  ${noise(ratio).padStart(7)}  ${detail}  ${verdict(ratio.median, target)}`;
}

/** A side-by-side measurement with each side's 95th percentile (per-call milliseconds). */
interface Measured {
  readonly a: Sample;
  readonly b: Sample;
  readonly ratio: Sample;
  readonly p95: { readonly a: number; readonly b: number };
}

function versus(r: Measured): string {
  return `(${fmt(r.a.median, 'ms')} vs ${fmt(r.b.median, 'ms')}; p95 ${fmt(r.p95.a, 'ms')} vs ${fmt(r.p95.b, 'ms')})`;
}

/** sideBySide (interleaved rounds, median of the per-round ratios), also keeping each side's 95th percentile. */
async function measured(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  rounds = ROUNDS,
  warmup = WARMUP,
): Promise<Measured> {
  const ta: number[] = [];
  const tb: number[] = [];
  const timed = (fn: () => Promise<unknown>, into: number[]) => async () => {
    const t0 = performance.now();
    await fn();
    into.push(performance.now() - t0);
  };
  const r = await sideBySide(timed(a, ta), timed(b, tb), rounds, warmup);
  const tail = (xs: number[]) => {
    const sorted = xs.slice(warmup).sort((x, y) => x - y);
    return sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)] ?? Number.NaN;
  };
  return { ...r, p95: { a: tail(ta), b: tail(tb) } };
}

/** The shape both sides must agree on: each book's id, author, publisher, review ids and tag ids. */
function shape(items: readonly any[]): string {
  return JSON.stringify(
    items.map((b) => [
      b.id,
      b.author?.id ?? null,
      b.publisher?.id ?? null,
      b.reviews.items.map((r: any) => r.id),
      b.reviews.hasMore ?? b.reviews.page.hasMore,
      b.tags.items.map((t: any) => t.id),
    ]),
  );
}

/** Statements that reached the driver while `fn` ran once (the statement guard's own left out). */
async function statements(fn: () => Promise<unknown>): Promise<string> {
  const data = (await captureDriver(fn)).calls.length;
  const all = (await captureDriver(fn, { guards: true })).calls.length;
  return all === data ? String(data) : `${data} (+${all - data} of the statement guard)`;
}

/** Serve REST (`/books?…`) and GraphQL (`/graphql`) of one engine on one local node:http server. */
async function serve(orm: MikroORM, engine: Engine<any, any, any, any>) {
  const scope = () => ({ base: allBooks(orm) });
  const schema = graphqlSchema({ endpoints: [{ field: 'books', type: 'Book', engine, scope }] });
  // Wired as docs/graphql.md wires it: documentLimits() keeps the document and executes it by its compiled writer.
  const limits = documentLimits();
  const gql = createHandler({
    schema,
    parse: limits.parse,
    validate: limits.validate,
    validationRules: limits.validationRules,
    execute: limits.execute,
  });
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/graphql')) return void gql(req, res);
    if (req.url?.startsWith('/books?'))
      return void runList(engine, scope, req, req.url, abortOnClose(res)).then(({ status, json }) =>
        writeJSONText(res, status, json),
      );
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Both asked by the same client the same way (bench/http-client.ts): REST with a GET, GraphQL with a POST.
  const rest = async () => {
    const res = await send(`${base}/books?${TREE_QUERY}`);
    const body = res.body as { items: unknown[] };
    if (res.status !== 200 || body.items.length !== PAGE) throw new Error(`REST answered ${res.status}`);
    return body;
  };
  const graph = async () => {
    const res = await send(`${base}/graphql`, { query: TREE_DOCUMENT });
    const body = res.body as { data?: { books: { nodes: unknown[] } }; errors?: unknown };
    if (body.errors || body.data?.books.nodes.length !== PAGE) throw new Error(JSON.stringify(body.errors));
    return body;
  };
  return { rest, graph, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The refused tree: books → tags → books → reviews, each level at its maximum (GREEDY_MAX), the top page at 100. */
const GREEDY_QUERY =
  `limit=100&fields=id,tags(id,books(id,reviews(id)))` +
  `&tags.limit=${GREEDY_MAX}&tags.books.limit=${GREEDY_MAX}&tags.books.reviews.limit=${GREEDY_MAX}`;
const GREEDY_DOCUMENT = `{ books(first: 100) { nodes { id tags(first: ${GREEDY_MAX}) { nodes { id books(first: ${GREEDY_MAX}) { nodes { id reviews(first: ${GREEDY_MAX}) { nodes { id } } } } } } } } }`;

/** Time the refusal of the greedy tree, REST and GraphQL, and count the statements it ran (the guard's included). */
async function benchRefusal(orm: MikroORM): Promise<string[]> {
  const engine = createEngine(orm, { policy: greedyBookPolicy, maxLimit: 100 });
  const scope = () => ({ base: allBooks(orm) });
  const schema = graphqlSchema({ endpoints: [{ field: 'books', type: 'Book', engine, scope }] });
  let code = '';
  const rest = async () => {
    try {
      await engine.from(scope().base).list(GREEDY_QUERY);
    } catch (err) {
      if (!isListError(err)) throw err;
      code = `${err.code} (${err.message})`;
      return;
    }
    throw new Error('the greedy tree was accepted');
  };
  let graphCode = '';
  const graph = async () => {
    const answer = await graphql({ schema, source: GREEDY_DOCUMENT });
    graphCode = String(answer.errors?.[0]?.extensions?.['code'] ?? 'accepted');
  };
  const time = async (fn: () => Promise<void>) => {
    for (let i = 0; i < 20; i++) await fn();
    const runs: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      await fn();
      runs.push((performance.now() - t0) * 1000);
    }
    return summarize(runs);
  };
  const restTime = await time(rest);
  const graphTime = await time(graph);
  const both = async () => {
    await rest();
    await graph();
  };
  const ran = (await captureDriver(both, { guards: true })).calls.length;
  const rows = 100 + 100 * GREEDY_MAX + 100 * GREEDY_MAX ** 2 + 100 * GREEDY_MAX ** 3;
  return [
    `refuse books(100) → tags(${GREEDY_MAX}) → books(${GREEDY_MAX}) → reviews(${GREEDY_MAX}), up to ${rows.toLocaleString('en-US')} rows:`,
    `  REST  (${GREEDY_QUERY.length} bytes): ${code} in ${fmt(restTime.median, 'µs')} (p75 ${fmt(restTime.p75, 'µs')})`,
    `  GraphQL (${GREEDY_DOCUMENT.length}-byte document): ${graphCode} in ${fmt(graphTime.median, 'µs')} (p75 ${fmt(graphTime.p75, 'µs')}); statements run: ${ran}  ${ran === 0 ? 'none, as required' : 'MISSED'}`,
  ];
}

/** The tree figures on one dialect, with `books` books and three times as many reviews. */
async function benchDialect(dialect: Dialect, books: number): Promise<string[]> {
  const label = NAMES[dialect];
  const db = await openDatabase(dialect, treeEntities);
  try {
    const t0 = performance.now();
    await loadTree(db.orm, dialect, books);
    const [{ n: reviews }] = await db.orm.em.getConnection().execute('select count(*) as n from review');
    const out = [
      `(${books.toLocaleString('en-US')} books, ${Number(reviews).toLocaleString('en-US')} reviews, loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    ];
    const orm = db.orm;
    const engine = createEngine(orm, { policy: treeBookPolicy, maxLimit: 100 });
    const viaList = () => engine.from(allBooks(orm)).list(TREE_QUERY);
    const st = treeStatements(await rawDriver(orm, dialect), dialect);
    const byHand = handWritten(st, PAGE, REVIEWS, MAX_TAGS);
    const loaders = dataLoaderStyle(st, PAGE, REVIEWS, MAX_TAGS);
    const populate = mikroPopulate(orm, PAGE, REVIEWS, MAX_TAGS);
    let ours: { items: any[] };
    try {
      ours = (await viaList()) as { items: any[] };
    } catch (err) {
      // Until nested selection runs on this dialect, its rows say so instead of failing the whole bench.
      const why = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
      return [...out, `tree list() and GraphQL rows, ${label}: n/a (not implemented: ${why.slice(0, 100)})`];
    }
    const expected = shape((await byHand()).items);
    for (const [name, fn] of [
      ['listql', async () => ours],
      ['DataLoader-style', loaders],
      ['populate', populate],
    ] as const)
      if (shape((await fn()).items) !== expected) out.push(`  WARNING: ${name} does not answer the hand-written tree`);
    out.push(
      `statements per tree: listql ${await statements(viaList)}, by hand ${await statements(byHand)}, ` +
        `DataLoader-style ${await statements(loaders)}, populate ${await statements(populate)}`,
    );
    const hand = await measured(viaList, byHand);
    const targetAt = out.length;
    out.push(
      line(`  early: after ${WARMUP} trees each (V8 still compiling), ${label}`, hand.ratio, versus(hand), 'report'),
    );
    if (dialect === 'postgresql') {
      const untimed = createEngine(orm, { policy: treeBookPolicy, maxLimit: 100, statementTimeout: false });
      const bare = () => untimed.from(allBooks(orm)).list(TREE_QUERY);
      const r = await measured(bare, byHand);
      out.push(line(`tree list() without its statement timeout / by hand, ${label}`, r.ratio, versus(r), 'report'));
    }
    const dl = await measured(viaList, loaders);
    out.push(line(`tree list() / DataLoader-style batching, ${label}`, dl.ratio, versus(dl), 'report'));
    const pop = await measured(viaList, populate);
    out.push(
      line(
        `tree list() / em.find populate (all reviews: no per-parent limit), ${label}`,
        pop.ratio,
        versus(pop),
        'report',
      ),
    );
    const http = await serve(orm, engine);
    try {
      // As for list() above: the target is judged once V8 has optimized both sides (the GraphQL side's own code,
      // its handler and compiled execution, first runs here), the figure after WARMUP requests printed beneath it.
      // PostGraphile is measured before that warm-up, so that both GraphQL servers are met in the same state.
      const early = await measured(http.graph, http.rest);
      const peers =
        dialect === 'postgresql'
          ? await benchPostGraphile({ url: db.url!, listqlGraph: http.graph, measure: measured, line, versus })
          : [];
      const r = await measured(http.graph, http.rest, ROUNDS, WARM);
      out.push(
        line(`tree GraphQL over HTTP / REST over HTTP (graphql-http), ${label}`, r.ratio, versus(r), { max: 1.1 }),
        line(`  early: after ${WARMUP} requests each, ${label}`, early.ratio, versus(early), 'report'),
        ...peers,
      );
    } finally {
      await http.close();
    }
    out.push(...(await benchRefusal(orm)));
    // The target: both sides as a running server runs them, after WARM trees each, once V8 has optimized both (listql's
    // tree code takes a few hundred trees; the hand-written loop, a few). Measured last so that its warm-up reaches
    // none of the lines above; printed first, above the early figure.
    const warm = await measured(viaList, byHand, ROUNDS, WARM);
    const warmLabel = `tree list() / same statements by hand, raw driver, ${label}`;
    out.splice(targetAt, 0, line(warmLabel, warm.ratio, versus(warm), { max: 1.2 }));
    return out;
  } finally {
    await db.dispose();
  }
}

/** The nested-tree figures on each named dialect, `books` books each. */
export async function benchTrees(
  dialects: readonly Dialect[],
  books: number,
): Promise<Partial<Record<Dialect, string[]>>> {
  const out: Partial<Record<Dialect, string[]>> = {};
  for (const dialect of dialects) out[dialect] = await benchDialect(dialect, books);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const books = Number(process.env.TREE_BOOKS ?? 100_000);
  const all = (process.env.BENCH_DIALECTS ?? 'sqlite,postgresql,mariadb').split(',') as Dialect[];
  const figures = await benchTrees(all, books);
  for (const dialect of all) {
    console.log(`\n## Nested trees, ${NAMES[dialect]}`);
    for (const l of figures[dialect] ?? []) console.log(l);
  }
}
