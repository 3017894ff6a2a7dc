/**
 * `npm run soak -- --adversarial` (or SOAK_ADVERSARIAL=1): fair share under sustained hostile load. The bookstore of
 * bench/worst.ts (SOAK_BOOKS, default 100,000 books) on PostgreSQL (or MariaDB with SOAK_DIALECT=mariadb) is served
 * over HTTP in this process (listql's shared request path on node:http, so refusals carry Retry-After), while
 * SOAK_ADVERSARIES (default 20) clients send the worst accepted shapes back to back, ignoring Retry-After, one in
 * five abandoned after 0–500 ms, and SOAK_CHEAP (default 4) clients send cheap pages, for SOAK_SECONDS (default 60).
 * Prints the cheap requests' latency percentiles beside the 1.5 s target, what the expensive ones got (answered,
 * refused with overloaded, stopped by the statement timeout), and, once the clients stop, that no admission slot
 * and no pooled connection was left held, nothing still runs on the server, and a full set is admitted again.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { Author, Book } from '../examples/bookstore/entities.ts';
import { admissionOf } from '../src/engine/admission-weight.ts';
import { writeJSONText } from '../src/http/errors.ts';
import { abortOnClose, runList } from '../src/http/handler.ts';
import type { TestDatabase } from '../test/helpers/db.ts';
import { type Bookstore, CHEAP_SHAPES, CHEAP_TARGET_MS, openBookstore, type Shape, WORST_SHAPES } from './burst.ts';
import { fmt, verdict } from './stats.ts';

const DIALECT = (process.env.SOAK_DIALECT ?? 'postgresql') as 'postgresql' | 'mariadb';
const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const BOOKS = Number(process.env.SOAK_BOOKS ?? 100_000);
const ADVERSARIES = Number(process.env.SOAK_ADVERSARIES ?? 20);
const CHEAP_CLIENTS = Number(process.env.SOAK_CHEAP ?? 4);

/** Serve `/books` and `/authors` of the bookstore through listql's shared request path, as every adapter does. */
async function serve(store: Bookstore, internal: unknown[]): Promise<{ base: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const endpoint: Shape['endpoint'] = url.startsWith('/authors') ? 'authors' : 'books';
    const scope = () => {
      const em = store.db.orm.em.fork() as SqlEntityManager;
      const entity = endpoint === 'books' ? Book : Author;
      return { base: em.createQueryBuilder(entity as typeof Book, 'x').where({ tenant: 1 }) as never };
    };
    void runList(store.engines[endpoint] as never, scope, req, url, abortOnClose(res), {
      onInternalError: (err) => internal.push(err),
    }).then(({ status, json, headers }) => writeJSONText(res, status, json, headers));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function pathOf(shape: Shape): string {
  return `/${shape.endpoint}?${new URLSearchParams(shape.query as Record<string, string>).toString()}`;
}

/** The connections of the ORM's pool lent out, and the statements of its database still running on the server. */
async function leftovers(db: TestDatabase): Promise<{ lent: number; running: number }> {
  const conn = db.orm.em.getConnection();
  const pool = (await (conn as any).getNativeClient()) as any;
  // Read before the query below borrows a connection of its own.
  if (DIALECT === 'postgresql') {
    const lent = pool.totalCount - pool.idleCount;
    const [row] = await conn.execute<{ n: string }[]>(
      `select count(*) as n from pg_stat_activity
       where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`,
    );
    return { lent, running: Number(row?.n ?? 0) };
  }
  const lent = pool._allConnections.length - pool._freeConnections.length;
  const [row] = await conn.execute<{ n: string }[]>(
    `select count(*) as n from information_schema.processlist
     where db = database() and id <> connection_id() and command in ('Query', 'Execute')`,
  );
  return { lent, running: Number(row?.n ?? 0) };
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

/** Run the adversarial soak and print its figures. */
export async function adversarialSoak(): Promise<void> {
  const store = await openBookstore(BOOKS, DIALECT);
  const internal: unknown[] = [];
  const { base, server } = await serve(store, internal);
  try {
    const admission = admissionOf(store.engines.books)!;
    const { maxExpensive, queue, queueTimeout } = admission.settings;
    const cheapMs: number[] = [];
    const cheapStatuses = new Map<string, number>();
    const expensive = new Map<string, number>();
    let withoutRetryAfter = 0;
    let abandoned = 0;
    const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
    const deadline = Date.now() + SECONDS * 1000;

    const adversary = async () => {
      while (Date.now() < deadline) {
        const shape = WORST_SHAPES[Math.floor(Math.random() * WORST_SHAPES.length)]!;
        const abandon = Math.random() < 0.2;
        try {
          const res = await fetch(base + pathOf(shape), {
            ...(abandon ? { signal: AbortSignal.timeout(Math.floor(Math.random() * 500)) } : {}),
          });
          const body = (await res.json()) as { code?: string };
          count(expensive, res.status === 200 ? '200' : `${res.status} ${body.code}`);
          if (body.code === 'overloaded' && res.headers.get('retry-after') === null) withoutRetryAfter++;
        } catch {
          abandoned++;
        }
      }
    };
    const cheapClient = async () => {
      while (Date.now() < deadline) {
        const shape = CHEAP_SHAPES[Math.floor(Math.random() * CHEAP_SHAPES.length)]!;
        const t0 = performance.now();
        const res = await fetch(base + pathOf(shape));
        await res.arrayBuffer();
        cheapMs.push(performance.now() - t0);
        count(cheapStatuses, String(res.status));
      }
    };
    const started = performance.now();
    await Promise.all([
      ...Array.from({ length: ADVERSARIES }, adversary),
      ...Array.from({ length: CHEAP_CLIENTS }, cheapClient),
    ]);
    const elapsed = (performance.now() - started) / 1000;

    // Abandoned requests end on the server a moment after their clients: wait for the engine to be idle.
    let stats = admission.stats();
    for (let i = 0; i < 100 && stats.expensive.running + stats.expensive.queued + stats.cheap.running > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      stats = admission.stats();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const left = await leftovers(store.db);
    // A full set again: maxExpensive requests take a slot at once and the queue's worth wait (placed before any
    // statement, so this shows what is free); those still waiting after queueTimeout are refused as usual.
    const quick = WORST_SHAPES.find((s) => s.label.startsWith('or of 4 to-one paths'))!;
    const again = Array.from({ length: maxExpensive + queue }, () =>
      store.send(quick).then(
        () => 'answered',
        (err: unknown) => String((err as { code?: string }).code),
      ),
    );
    const placed = admission.stats().expensive;
    const full = placed.running === maxExpensive && placed.queued === queue;
    const settledAgain = await Promise.all(again);
    const answeredAgain = settledAgain.filter((o) => o === 'answered').length;

    cheapMs.sort((a, b) => a - b);
    const p99 = percentile(cheapMs, 0.99);
    const statuses = (map: Map<string, number>) =>
      [...map]
        .sort()
        .map(([s, n]) => `${s}×${n}`)
        .join(', ');
    const idle = stats.expensive.running + stats.expensive.queued + stats.cheap.running + stats.cheap.queued === 0;
    const lines = [
      `listql adversarial soak: bookstore on ${DIALECT} (${BOOKS.toLocaleString('en-US')} books), ${ADVERSARIES} adversarial clients (worst shapes, Retry-After ignored, 1 in 5 abandoned) + ${CHEAP_CLIENTS} cheap clients, ${SECONDS} s; admission: ${maxExpensive} expensive at once, queue ${queue}, ${queueTimeout} ms`,
      `cheap requests: ${cheapMs.length} answered (${(cheapMs.length / elapsed).toFixed(0)} req/s), ${statuses(cheapStatuses)}; latency p50 ${fmt(percentile(cheapMs, 0.5), 'ms')}, p90 ${fmt(percentile(cheapMs, 0.9), 'ms')}, p99 ${fmt(p99, 'ms')}, max ${fmt(cheapMs.at(-1) ?? 0, 'ms')}   p99 ${verdict(p99, { max: CHEAP_TARGET_MS }, ' ms')}`,
      `expensive requests: ${statuses(expensive)}; abandoned by clients: ${abandoned}; refusals without Retry-After: ${withoutRetryAfter}   ${withoutRetryAfter === 0 ? 'met' : 'MISSED'}`,
      `after the run: admission slots held ${idle ? 'none' : JSON.stringify(stats)}   ${idle ? 'met' : 'MISSED'}; pooled connections lent ${left.lent}   ${left.lent === 0 ? 'met' : 'MISSED'}; statements still running ${left.running}   ${left.running === 0 ? 'met' : 'MISSED'}`,
      `a full set admitted again: ${placed.running} running + ${placed.queued} queued of ${maxExpensive} + ${queue}   ${full ? 'met' : 'MISSED'} (then ${answeredAgain} answered, ${again.length - answeredAgain} refused after waiting); internal errors reported: ${internal.length}`,
    ];
    for (const line of lines) console.log(line);
  } finally {
    server.closeAllConnections();
    server.close();
    await store.db.dispose();
  }
}
