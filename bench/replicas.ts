/**
 * `npm run bench:replicas`: the bookstore's request mix (the valid requests of `npm run soak`) through listql's
 * engines on PostgreSQL, on a primary alone, then with one and with two streaming replicas (MikroORM's `replicas`).
 * It starts its own primary and standbys (test/helpers/replica.ts: the PostgreSQL server binaries are needed), loads
 * the bookstore, and prints requests per second, latency and where the transactions ran.
 *
 * Every server runs on this one machine: with few cores, a replica adds no CPU, and the figures are a sanity check
 * of the routing and its cost, not a measure of scale. BENCH_REPLICA_SECONDS (default 10 per configuration),
 * BENCH_REPLICA_CLIENTS (default 8 concurrent requests, the size of each pool) and BENCH_REPLICA_BOOKS (default 20,000) change the run.
 */
import { availableParallelism } from 'node:os';
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { Author, Book, ENTITIES } from '../examples/bookstore/entities.ts';
import { authorPolicy, bookPolicy } from '../examples/bookstore/policies.ts';
import { titleSearch } from '../examples/bookstore/search.ts';
import { createEngine } from '../src/index.ts';
import { type PgServer, type ReplicaCluster, startReplicaCluster } from '../test/helpers/replica.ts';
import { loadBookstore } from './worst.ts';

const SECONDS = Number(process.env.BENCH_REPLICA_SECONDS ?? 10);
const CLIENTS = Number(process.env.BENCH_REPLICA_CLIENTS ?? 8);
const BOOKS = Number(process.env.BENCH_REPLICA_BOOKS ?? 20_000);
const DATABASE = 'bench';
const POOL = 8;

/** The soak's valid requests, with their weights: [weight, endpoint, query]. */
const MIX: readonly (readonly [number, 'books' | 'authors', Record<string, string>])[] = [
  [6, 'books', { filter: "author/name eq 'Author 7'", sort: 'year' }],
  [6, 'books', { filter: 'reviews/any(r: r/stars gte 4)', sort: '-price', limit: '10', count: 'true' }],
  [4, 'books', { filter: "tags/all(t: t/name ne 'tag3') and year gt 1950", sort: 'author/name,-publisher/name' }],
  [4, 'books', { search: 'book 1', count: 'true' }],
  [3, 'authors', { filter: 'books/any(b: b/year lt 1950)', sort: '-born' }],
  [3, 'books', { sort: '-price', limit: '100', offset: '5000' }],
];
const TOTAL = MIX.reduce((n, [weight]) => n + weight, 0);

function pick(): (typeof MIX)[number] {
  let r = Math.random() * TOTAL;
  for (const entry of MIX) {
    r -= entry[0];
    if (r < 0) return entry;
  }
  return MIX[0]!;
}

interface Result {
  readonly requests: number;
  readonly seconds: number;
  readonly p50: number;
  readonly p99: number;
  /** Requests the engine's admission refused with `overloaded` before any statement (docs/security.md). */
  readonly refused: number;
  readonly failures: number;
  readonly firstFailure?: string | undefined;
}

/** Send the mix with CLIENTS concurrent requests for `seconds`; the ORM's replicas decide where reads go. */
async function drive(orm: MikroORM, seconds: number): Promise<Result> {
  const books = createEngine(orm, { policy: bookPolicy, maxLimit: 100, allowCount: true, search: titleSearch });
  const authors = createEngine(orm, { policy: authorPolicy, allowCount: true });
  const em = () => orm.em.fork() as SqlEntityManager;
  const latencies: number[] = [];
  let refused = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  const deadline = performance.now() + seconds * 1000;
  const client = async () => {
    while (performance.now() < deadline) {
      const [, endpoint, query] = pick();
      const started = performance.now();
      try {
        if (endpoint === 'books') await books.from(em().createQueryBuilder(Book, 'b').where({ tenant: 1 })).list(query);
        else await authors.from(em().createQueryBuilder(Author, 'a').where({ tenant: 1 })).list(query);
        latencies.push(performance.now() - started);
      } catch (err) {
        if ((err as { code?: unknown }).code === 'overloaded') {
          refused++;
          continue;
        }
        failures++;
        firstFailure ??=
          err instanceof Error ? `${(err as { code?: string }).code ?? err.name}: ${err.message}` : String(err);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests: latencies.length, seconds: elapsed, p50: at(0.5), p99: at(0.99), refused, failures, firstFailure };
}

/** Transactions (committed and rolled back) each server has run in the bench database so far. */
async function transactions(cluster: ReplicaCluster, servers: readonly PgServer[]): Promise<number[]> {
  return Promise.all(
    servers.map(async (server) => {
      const [row] = await cluster.sql<{ n: string }>(
        server,
        'select xact_commit + xact_rollback as n from pg_stat_database where datname = $1',
        [DATABASE],
      );
      return Number(row?.n ?? 0);
    }),
  );
}

async function ormWith(cluster: ReplicaCluster, replicas: readonly PgServer[]): Promise<MikroORM> {
  const { MikroORM } = await import('@mikro-orm/postgresql');
  return (await MikroORM.init({
    entities: ENTITIES,
    clientUrl: cluster.primary.url(DATABASE),
    replicas: replicas.map((server) => ({ clientUrl: server.url(DATABASE) })),
    pool: { min: 0, max: POOL },
    debug: false,
  })) as unknown as MikroORM;
}

const cluster = await startReplicaCluster({ standbys: 2, logStatements: false });
try {
  console.log(
    `listql bench:replicas: the soak's request mix, ${CLIENTS} concurrent requests, ${SECONDS} s per configuration, ` +
      `${BOOKS.toLocaleString('en-US')} books; node ${process.version}, ${availableParallelism()} cores shared by ` +
      `every server (cluster started in ${(cluster.startedIn / 1000).toFixed(1)} s)`,
  );
  await cluster.sql(cluster.primary, `create database ${DATABASE}`);
  const loader = await ormWith(cluster, []);
  await loader.schema.create();
  await loadBookstore(loader, 'postgresql', BOOKS);
  await loader.em.getConnection().execute('analyze');
  await loader.close(true);
  await cluster.caughtUp(cluster.standbys, 120_000);

  const servers = [cluster.primary, ...cluster.standbys];
  const names = ['primary', 'standby1', 'standby2'];
  for (const count of [0, 1, 2]) {
    const orm = await ormWith(cluster, cluster.standbys.slice(0, count));
    try {
      await drive(orm, Math.min(2, SECONDS)); // warm up pools, plans and caches
      const before = await transactions(cluster, servers);
      const result = await drive(orm, SECONDS);
      const after = await transactions(cluster, servers);
      const spent = after.map((n, i) => n - before[i]!);
      const all = spent.reduce((a, b) => a + b, 0) || 1;
      const where = spent
        .map((n, i) => `${names[i]} ${Math.round((100 * n) / all)}%`)
        .slice(0, count + 1)
        .join(', ');
      const label = count === 0 ? 'primary alone' : `primary + ${count} replica${count > 1 ? 's' : ''}`;
      console.log(
        `${label.padEnd(22)} ${(result.requests / result.seconds).toFixed(0).padStart(5)} req/s, ` +
          `p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, refused ${result.refused}, ` +
          `failed ${result.failures}; ` +
          `transactions: ${where}`,
      );
      if (result.firstFailure) console.log(`  first failure: ${result.firstFailure}`);
    } finally {
      await orm.close(true);
    }
  }
} finally {
  await cluster.stop();
}
