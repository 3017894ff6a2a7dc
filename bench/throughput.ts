/**
 * Throughput of the bookstore's `/books` against a hand-written Express + MikroORM endpoint serving the same page
 * (same tenant, filter, sort and limit; items and a next cursor), over the same database: requests per second under
 * 32 concurrent keep-alive clients, in interleaved rounds, and their ratio (target ≥ 1.0x).
 *
 * Each server runs in a process of its own (this file, `serve <kind>`), so neither shares an event loop with the
 * load generator or with the other; only one is driven at a time. On SQLite both open one bookstore file, as
 * `npm start` does; on PostgreSQL (BENCH_DIALECTS including postgresql) both open one fresh database through
 * DATABASE_URL. `node bench/throughput.ts` runs it alone; THROUGHPUT_SECONDS sets a round's length (default 3).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serialize } from '@mikro-orm/core';
import express from 'express';
import { createApp } from '../examples/bookstore/app.ts';
import { databaseOptionsFromEnv, openBookstore } from '../examples/bookstore/database.ts';
import { Book } from '../examples/bookstore/entities.ts';
import { createBookstoreServer } from '../examples/bookstore/server.ts';
import { createPostgresDatabase } from '../test/helpers/db.ts';
import { summarize, verdict } from './stats.ts';

/** The page both servers answer: tenant 1's books after 1960 by title, five to a page. */
const PATH = `/books?filter=${encodeURIComponent('year gt 1960')}&sort=title&limit=5`;
const CLIENTS = 32;
const SECONDS = Number(process.env.THROUGHPUT_SECONDS ?? 3);
const ROUNDS = 4;

/**
 * The endpoint a MikroORM user would write by hand for PATH: a fresh fork, the tenant and filter, the order with
 * its primary-key tie-breaker, `limit + 1` rows to know whether a next page exists, and the same body shape.
 */
function handWritten(orm: Awaited<ReturnType<typeof openBookstore>>): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/books', async (req, res) => {
    const limit = Math.min(Number(req.query.limit ?? 20) || 20, 100);
    const em = orm.em.fork();
    const rows = await em.find(
      Book,
      { tenant: Number(req.get('x-tenant') ?? 1), year: { $gt: 1960 } },
      { orderBy: { title: 'asc', id: 'asc' }, limit: limit + 1 },
    );
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    const nextCursor =
      rows.length > limit && last ? Buffer.from(JSON.stringify([last.title, last.id])).toString('base64url') : null;
    res.json({ items: serialize(items), page: { limit, nextCursor } });
  });
  return app;
}

/** A server process: open the database named by the environment, listen on a free port, print it. */
async function serve(kind: 'bookstore' | 'hand'): Promise<void> {
  const orm = await openBookstore(databaseOptionsFromEnv());
  const server = kind === 'bookstore' ? createBookstoreServer(createApp(orm)) : createBookstoreServer(handWritten(orm));
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  console.log(JSON.stringify({ port: (server.address() as AddressInfo).port }));
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void orm.close().then(() => process.exit(0));
  });
}

/** Start one server process and wait for its port. */
async function start(
  kind: 'bookstore' | 'hand',
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'serve', kind], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let text = '';
  for await (const chunk of child.stdout!) {
    text += String(chunk);
    const line = text.split('\n').find((l) => l.startsWith('{'));
    if (line) return { child, port: (JSON.parse(line) as { port: number }).port };
  }
  throw new Error(`throughput: the ${kind} server exited before listening`);
}

/** One GET on a keep-alive agent; resolves with the status once the body is read. */
function get(agent: Agent, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ agent, host: '127.0.0.1', port, path: PATH, headers: { 'x-tenant': '1' } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end();
  });
}

/** Requests per second of `CLIENTS` clients each sending GETs back to back for `seconds`; a non-200 throws. */
async function drive(port: number, seconds: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const end = performance.now() + seconds * 1000;
  let done = 0;
  const client = async () => {
    while (performance.now() < end) {
      const status = await get(agent, port);
      if (status !== 200) throw new Error(`throughput: status ${status} from port ${port}`);
      done++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const elapsed = (performance.now() - t0) / 1000;
  agent.destroy();
  return done / elapsed;
}

/** Fetch the page once from each server, to show both answer the same items. */
async function firstItems(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}${PATH}`, { headers: { 'x-tenant': '1' } });
  const body = (await res.json()) as { items: { id: number }[]; page: { nextCursor?: string | null } };
  return `${body.items.map((i) => i.id).join(',')}${body.page.nextCursor ? ' +next' : ''}`;
}

/** Drive both servers in interleaved rounds (ABBA…) after a warm-up each, and print both rates and the ratio. */
async function compare(label: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const bookstore = await start('bookstore', env);
  const hand = await start('hand', env);
  try {
    const [a, b] = [await firstItems(bookstore.port), await firstItems(hand.port)];
    if (a !== b) throw new Error(`throughput: the pages differ (bookstore ${a}, hand-written ${b})`);
    await drive(bookstore.port, 1);
    await drive(hand.port, 1);
    const ours: number[] = [];
    const theirs: number[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const first = r % 2 === 0;
      const x = await drive(first ? bookstore.port : hand.port, SECONDS);
      const y = await drive(first ? hand.port : bookstore.port, SECONDS);
      const [o, t] = first ? [x, y] : [y, x];
      ours.push(o);
      theirs.push(t);
      ratios.push(o / t);
    }
    const ratio = summarize(ratios).median;
    const rate = (v: number[]) => `${summarize(v).median.toFixed(0)} req/s`;
    return [
      `${`/books (listql bookstore) / hand-written Express + MikroORM, ${CLIENTS} clients, ${label}`.padEnd(80)} ${`${ratio.toFixed(2)}x`.padStart(8)}  (${rate(ours)} vs ${rate(theirs)})  ${verdict(ratio, { min: 1 })}`,
      `  page: GET ${decodeURIComponent(PATH)}, items ${a}; ${ROUNDS} rounds of ${SECONDS} s each, alternating`,
    ];
  } finally {
    for (const s of [bookstore, hand]) {
      s.child.kill('SIGTERM');
      await once(s.child, 'exit');
    }
  }
}

/** The throughput comparison on SQLite (a fresh bookstore file) and, when asked, on a fresh PostgreSQL database. */
export async function benchThroughput(dialects: readonly string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  if (dialects.includes('sqlite')) {
    const dir = mkdtempSync(join(tmpdir(), 'listql-throughput-'));
    try {
      out.sqlite = await compare('SQLite', { BOOKSTORE_SQLITE: join(dir, 'bookstore.sqlite'), DATABASE_URL: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (dialects.includes('postgresql')) {
    const db = await createPostgresDatabase('listql_bench');
    try {
      out.postgresql = await compare('PostgreSQL', { DATABASE_URL: db.url });
    } finally {
      await db.drop();
    }
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv[2] === 'serve') await serve(process.argv[3] === 'hand' ? 'hand' : 'bookstore');
  else {
    const named = (process.env.BENCH_DIALECTS ?? 'sqlite,postgresql').split(',');
    for (const lines of Object.values(await benchThroughput(named))) for (const l of lines) console.log(l);
  }
}
