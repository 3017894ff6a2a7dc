/**
 * `npm run soak`: drive the bookstore API on PostgreSQL (or MariaDB with SOAK_DIALECT=mariadb) for SOAK_SECONDS
 * (default 60) with SOAK_CONNECTIONS (default 50) concurrent clients sending a mix of valid, malformed and abandoned
 * requests, while the database connections of the bookstore that are running a statement are terminated every few
 * seconds. Prints requests/s, p50/p99 latency, the status counts (5xx should come only from killed queries), and the
 * database connections left once the clients stop (no more than the pool).
 *
 * `npm run soak -- --adversarial` (or SOAK_ADVERSARIAL=1) runs the fair-share soak of bench/soak-adversarial.ts
 * instead: the worst accepted shapes back to back beside a few cheap clients, with the cheap requests' latency
 * percentiles, the refusals, and no admission slot or pooled connection left held afterwards.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { ENTITIES } from '../examples/bookstore/entities.ts';
import { createDatabase } from '../test/helpers/db.ts';
import { loadBookstore } from './worst.ts';

const DIALECT = (process.env.SOAK_DIALECT ?? 'postgresql') as 'postgresql' | 'mariadb';
if (DIALECT !== 'postgresql' && DIALECT !== 'mariadb') throw new Error('SOAK_DIALECT: postgresql or mariadb');
const SERVER = DIALECT === 'postgresql' ? 'PostgreSQL' : 'MariaDB';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 50);
const BOOKS = Number(process.env.SOAK_BOOKS ?? 20_000);
const KILL_EVERY_MS = 3000;

/** The request mix: [weight, path and query]; malformed ones must answer 400 without reaching the database. */
const REQUESTS: readonly (readonly [number, string])[] = [
  [6, `/books?filter=${q("author/name eq 'Author 7'")}&sort=year`],
  [6, `/books?filter=${q('reviews/any(r: r/stars gte 4)')}&sort=-price&limit=10&count=true`],
  [4, `/books?filter=${q("tags/all(t: t/name ne 'tag3') and year gt 1950")}&sort=author/name,-publisher/name`],
  [4, `/books?search=book%201&count=true`],
  [3, '/authors?filter=' + q('books/any(b: b/year lt 1950)') + '&sort=-born'],
  [3, '/books?sort=-price&limit=100&offset=5000'],
  [3, `/books?filter=${q('price gt(10)')}`],
  [3, `/books?filter=${q('nope eq 1')}`],
  [2, '/books?cursor=eyJ2IjoxLCJzIjoiQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBIiwiayI6WzEsMV19'],
  [2, `/books?filter=${q('title eq ' + "'x".repeat(3))}`],
  [2, '/books?limit=1000'],
  [2, `/books?filter=${q(Array.from({ length: 20 }, () => 'reviews/any(r: r/stars gt 2)').join(' or '))}&count=true`],
];
const TOTAL_WEIGHT = REQUESTS.reduce((s, [w]) => s + w, 0);

function q(s: string): string {
  return encodeURIComponent(s);
}

function pick(): string {
  let r = Math.random() * TOTAL_WEIGHT;
  for (const [w, path] of REQUESTS) {
    r -= w;
    if (r < 0) return path;
  }
  return REQUESTS[0]![1];
}

async function startBookstore(url: string): Promise<{ child: ChildProcess; base: string }> {
  const { DATABASE_URL: _ignored, ...env } = process.env;
  const child = spawn(process.execPath, ['examples/bookstore/main.ts'], {
    cwd: ROOT,
    env: { ...env, PORT: '0', DATABASE_URL: url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (output += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (serverErrors += s));
  const deadline = Date.now() + 60_000;
  while (!/listening on (http:\/\/\S+)/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the bookstore did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const base = /listening on (http:\/\/\S+)/.exec(output)![1]!.replace('localhost', '127.0.0.1');
  return { child, base };
}

let serverErrors = '';

/** The server-side view the soak needs: kill the bookstore's running statements, and count its connections. */
interface Admin {
  killRunning(): Promise<number>;
  connections(): Promise<number>;
  end(): Promise<void>;
}

async function adminOf(url: string): Promise<Admin> {
  const dbName = new URL(url).pathname.slice(1);
  if (DIALECT === 'postgresql') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return {
      async killRunning() {
        const res = await client.query(
          `select count(pg_terminate_backend(pid)) as n from pg_stat_activity
           where datname = $1 and pid <> pg_backend_pid() and state = 'active'`,
          [dbName],
        );
        return Number(res.rows[0]?.n ?? 0);
      },
      async connections() {
        const res = await client.query(
          'select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [dbName],
        );
        return Number(res.rows[0]?.n ?? 0);
      },
      end: () => client.end(),
    };
  }
  const client = await mysql.createConnection({ uri: url });
  return {
    async killRunning() {
      // Prepared statements run as `Execute`; KILL CONNECTION ends the connection, as pg_terminate_backend does.
      const [rows] = await client.query<mysql.RowDataPacket[]>(
        `select id from information_schema.processlist
         where db = ? and id <> connection_id() and command in ('Query', 'Execute')`,
        [dbName],
      );
      let n = 0;
      for (const row of rows) {
        // A thread id the server listed; no client value reaches this text.
        await client.query(`kill connection ${Number(row.id)}`).then(
          () => n++,
          () => {},
        );
      }
      return n;
    },
    async connections() {
      const [rows] = await client.query<mysql.RowDataPacket[]>(
        'select count(*) as n from information_schema.processlist where db = ? and id <> connection_id()',
        [dbName],
      );
      return Number(rows[0]?.n ?? 0);
    },
    end: () => client.end(),
  };
}

if (process.argv.includes('--adversarial') || process.env.SOAK_ADVERSARIAL === '1') {
  const { adversarialSoak } = await import('./soak-adversarial.ts');
  await adversarialSoak();
} else await chaosSoak();

/** The soak of the bookstore's own server under killed connections and abandoned requests. */
async function chaosSoak(): Promise<void> {
  const database = await createDatabase(DIALECT, 'listql_soak');
  let admin: Admin | undefined;
  let server: { child: ChildProcess; base: string } | undefined;
  try {
    const { MikroORM } =
      DIALECT === 'postgresql' ? await import('@mikro-orm/postgresql') : await import('@mikro-orm/mariadb');
    const orm = await MikroORM.init({ entities: ENTITIES, clientUrl: database.url });
    await orm.schema.create();
    await loadBookstore(orm, DIALECT, BOOKS);
    await orm.close(true);
    server = await startBookstore(database.url);
    admin = await adminOf(database.url);
    const control = admin;

    const latencies: number[] = [];
    const statuses = new Map<string, number>();
    let aborted = 0;
    let killed = 0;
    const deadline = Date.now() + SECONDS * 1000;
    const killer = setInterval(async () => {
      killed += await control.killRunning().catch(() => 0);
    }, KILL_EVERY_MS);

    const client = async () => {
      while (Date.now() < deadline) {
        const path = pick();
        // One request in ten is abandoned by its client after 0–20 ms.
        const abandon = Math.random() < 0.1;
        const signal = abandon ? AbortSignal.timeout(Math.floor(Math.random() * 20)) : undefined;
        const t0 = performance.now();
        try {
          const res = await fetch(server!.base + path, { headers: { 'x-tenant': '1' }, ...(signal ? { signal } : {}) });
          await res.arrayBuffer();
          latencies.push(performance.now() - t0);
          const key = String(res.status);
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
        } catch {
          aborted++;
        }
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: CONNECTIONS }, client));
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(killer);
    await new Promise((r) => setTimeout(r, 1000));
    const left = await control.connections();
    latencies.sort((a, b) => a - b);
    const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
    // 503 is query_timeout: the request was too expensive, not a fault; faults are the 500s.
    const fivexx = [...statuses].filter(([s]) => s.startsWith('5') && s !== '503').reduce((n, [, c]) => n + c, 0);
    console.log(
      `listql soak: bookstore on ${SERVER} (${BOOKS.toLocaleString('en-US')} books), ${CONNECTIONS} clients, ${SECONDS} s`,
    );
    console.log(
      `requests answered: ${latencies.length} (${(latencies.length / elapsed).toFixed(0)} req/s); abandoned by clients: ${aborted}`,
    );
    console.log(`latency p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms`);
    console.log(
      `statuses: ${[...statuses]
        .sort()
        .map(([s, c]) => `${s}×${c}`)
        .join(', ')}`,
    );
    console.log(
      `5xx other than 503 (query_timeout): ${fivexx}; ${SERVER} connections terminated while running a query: ${killed}   target: 5xx ≤ terminated   ${fivexx <= killed ? 'met' : 'MISSED'}`,
    );
    console.log(
      `database connections left after the run: ${left} (the bookstore's pool keeps at most 10)   ${left <= 10 ? 'met' : 'MISSED'}`,
    );
    // What the server logged: internal errors it reports (killed queries are real faults), and noise that a client
    // going away must never cause (the query library's background failures, TypeErrors, unhandled rejections).
    const lines = serverErrors.split('\n');
    const reported = lines.filter((l) => l.startsWith('listql: internal error')).length;
    const noise = lines.filter((l) => /failed in the background|TypeError|nhandled/.test(l));
    console.log(
      `server log: ${reported} internal errors reported (one per terminated query); ${noise.length} lines of abort noise   ${noise.length === 0 ? 'met' : `MISSED (first: ${noise[0]!.slice(0, 120)})`}`,
    );
  } finally {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
    await admin?.end().catch(() => {});
    await database.drop();
  }
}
