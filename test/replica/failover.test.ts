/**
 * `replicaFallback` on a real PostgreSQL streaming replica: a primary and two hot standbys, standbys stopped and
 * started again while requests run. Every item carries the port of the server that read it (the entity is a view
 * selecting `inet_server_port()`), so each answer says where it was read. Measured here: how soon a stopped standby
 * leaves rotation, how soon a restarted one returns, and that no connection is left behind on any server.
 */
import { EntitySchema, type MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, type ReplicaHealthEvent } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { type PgServer, type ReplicaCluster, startReplicaCluster } from '../helpers/replica.ts';

/** A note as the server reading it sees it: `port` is that server's. */
class SeenNote {
  id!: number;
  port!: number;
}

const SeenNoteSchema = new EntitySchema<SeenNote>({
  class: SeenNote,
  tableName: 'seen_note',
  properties: { id: { type: 'integer', primary: true }, port: { type: 'integer' } },
});

const policy = schema(SeenNoteSchema).expose('id', filterable(), sortable()).expose('port');
const DATABASE = 'listql';
const NOTES = 40;
const POOL_MAX = 4;
const HEALTH = { interval: 200, maxInterval: 1000 } as const;

interface Context {
  cluster: ReplicaCluster;
  failed?: unknown;
}

const s = suite<Context>('streaming replica failover [postgresql]', {} as Context);

s.before(async (ctx) => {
  try {
    ctx.cluster = await startReplicaCluster({ standbys: 2 });
    const { cluster } = ctx;
    await cluster.sql(cluster.primary, `create database ${DATABASE}`);
    for (const statement of [
      'create table note (id int primary key)',
      `insert into note select generate_series(1, ${NOTES})`,
      'create view seen_note as select id, inet_server_port() as port from note',
    ])
      await cluster.sql(cluster.primary, statement, [], DATABASE);
    await cluster.caughtUp();
  } catch (err) {
    ctx.failed = err;
  }
});
s.after(async (ctx) => {
  await ctx.cluster?.stop();
});
s.before.each((ctx) => {
  if (ctx.failed) throw ctx.failed;
});

interface Setup {
  readonly orm: MikroORM;
  readonly events: (ReplicaHealthEvent & { at: number })[];
  /** One request: its items' ports (one server per request), or its error code. */
  list(query?: Record<string, string>): Promise<number | string>;
  readonly engine: ReturnType<typeof createEngine>;
  base(): ReturnType<typeof baseOf>;
}

function baseOf(orm: MikroORM) {
  return (orm.em.fork() as SqlEntityManager).createQueryBuilder(SeenNote, 's');
}

/** A fresh ORM (replica health belongs to its driver) on the primary and both standbys, with a fallback engine. */
async function setUp(cluster: ReplicaCluster): Promise<Setup> {
  const { MikroORM } = await import('@mikro-orm/postgresql');
  const orm = (await MikroORM.init({
    entities: [SeenNoteSchema],
    clientUrl: cluster.primary.url(DATABASE),
    replicas: cluster.standbys.map((standby) => ({ clientUrl: standby.url(DATABASE) })),
    pool: { min: 0, max: POOL_MAX },
    debug: false,
  } as never)) as unknown as MikroORM;
  const events: (ReplicaHealthEvent & { at: number })[] = [];
  const engine = createEngine(orm, {
    policy,
    maxLimit: 100,
    // The sleep runs once per statement (an uncorrelated sub-query), on the server that reads.
    search: (_ctx, qb, term) => qb.andWhere('(select pg_sleep(?)) is not null', [Number(term)]),
    replicaFallback: { healthCheck: HEALTH, onChange: (event) => events.push({ ...event, at: performance.now() }) },
  });
  const base = () => baseOf(orm);
  return {
    orm,
    events,
    engine,
    base,
    async list(query = {}) {
      try {
        const page = await engine.from(base()).list({ limit: '100', ...query });
        const ports = new Set(page.items.map((item) => item.port as number));
        assert.is(page.items.length, NOTES);
        assert.is(ports.size, 1);
        return [...ports][0]!;
      } catch (err) {
        if (isListError(err)) return err.code;
        throw err;
      }
    },
  };
}

async function until(what: string, timeoutMs: number, done: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Connections to the test database on a server, by state (the helper's own client is in another database). */
async function sessions(cluster: ReplicaCluster, server: PgServer): Promise<Record<string, number>> {
  const rows = await cluster.sql<{ state: string; n: number }>(
    server,
    'select coalesce(state, $2) as state, count(*)::int as n from pg_stat_activity where datname = $1 group by 1',
    [DATABASE, 'none'],
  );
  return Object.fromEntries(rows.map((row) => [row.state, row.n]));
}

/** The pg pools of an ORM: the primary's and each replica's, in the order of `replicas`. */
async function pools(orm: MikroORM): Promise<{ totalCount: number; idleCount: number; waitingCount: number }[]> {
  const driver = orm.em.getDriver() as unknown as {
    getConnection(type: 'write'): { getNativeClient(): Promise<unknown> };
    replicas: { getNativeClient(): Promise<unknown> }[];
  };
  const connections = [driver.getConnection('write'), ...driver.replicas];
  return (await Promise.all(connections.map((c) => c.getNativeClient()))) as never;
}

/** Stop a standby, run `during`, and start it again streaming, whatever happens. */
async function withStopped<T>(cluster: ReplicaCluster, standby: PgServer, during: () => Promise<T>): Promise<T> {
  try {
    return await during();
  } finally {
    if (!standby.running) await cluster.startServer(standby);
    await cluster.caughtUp([standby]);
  }
}

const portsOf = (cluster: ReplicaCluster) => ({
  primary: cluster.primary.port,
  standby1: cluster.standbys[0]!.port,
  standby2: cluster.standbys[1]!.port,
});

s('with both standbys up, requests spread over them and never reach the primary', async ({ cluster }) => {
  const setup = await setUp(cluster);
  try {
    const seen = new Set<number | string>();
    for (let i = 0; i < 20; i++) seen.add(await setup.list());
    const { standby1, standby2 } = portsOf(cluster);
    assert.equal([...seen].sort(), [standby1, standby2].sort());
    assert.equal(setup.events, []);
  } finally {
    await setup.orm.close(true);
  }
});

s('a standby stopped during a statement: the request moves to the other standby and answers', async ({ cluster }) => {
  const setup = await setUp(cluster);
  try {
    const pending = setup.list({ search: '0.4' });
    // Find the standby running the sleeping statement, and stop it under the statement.
    let running: PgServer | undefined;
    await until('the statement to start on a standby', 5000, async () => {
      for (const standby of cluster.standbys) {
        const rows = await cluster.sql(
          standby,
          "select 1 from pg_stat_activity where datname = $1 and state = 'active' and query like '%pg_sleep%'",
          [DATABASE],
        );
        if (rows.length > 0) running = standby;
      }
      return running !== undefined;
    });
    const stopped = running!;
    const other = cluster.standbys.find((standby) => standby !== stopped)!;
    await withStopped(cluster, stopped, async () => {
      await cluster.stopServer(stopped, 'fast');
      assert.is(await pending, other.port);
      assert.equal(
        setup.events.map((e) => [e.replica, e.state, (e.cause as { code?: string }).code]),
        [[cluster.standbys.indexOf(stopped), 'down', '57P01']],
      );
    });
  } finally {
    await setup.orm.close(true);
  }
});

s(
  'a standby stopped between requests leaves rotation at the first request that reaches it; it returns after its health check',
  async ({ cluster }) => {
    const setup = await setUp(cluster);
    const { primary, standby1, standby2 } = portsOf(cluster);
    const standby = cluster.standbys[0]!;
    try {
      for (let i = 0; i < 4; i++) await setup.list(); // every pool holds connections now
      await withStopped(cluster, standby, async () => {
        await cluster.stopServer(standby, 'fast');
        const stoppedAt = performance.now();
        const answers: (number | string)[] = [];
        const slowest = { ms: 0 };
        for (let i = 0; i < 30; i++) {
          const started = performance.now();
          answers.push(await setup.list());
          slowest.ms = Math.max(slowest.ms, performance.now() - started);
        }
        // Every request answered, from the standby still up: a move goes to another replica before the primary.
        assert.equal([...new Set(answers)], [standby2]);
        const down = setup.events.filter((e) => e.state === 'down');
        assert.equal(
          down.map((e) => e.replica),
          [0],
        );
        const detected = down[0]!.at - stoppedAt;
        assert.ok(detected < 1000, `detected after ${Math.round(detected)} ms`);
        assert.ok(slowest.ms < 1000, `slowest request ${Math.round(slowest.ms)} ms`);

        await cluster.startServer(standby);
        const startedAt = performance.now();
        await until('the standby to return to rotation', HEALTH.maxInterval + 5000, async () => {
          await setup.list();
          return setup.events.some((e) => e.state === 'up');
        });
        const recovered = setup.events.find((e) => e.state === 'up')!.at - startedAt;
        assert.ok(recovered < HEALTH.maxInterval + 2000, `back after ${Math.round(recovered)} ms`);
        const after = new Set<number | string>();
        for (let i = 0; i < 20; i++) after.add(await setup.list());
        assert.equal([...after].sort(), [standby1, standby2].sort());
        assert.not.ok(after.has(primary));
        if (process.env.LISTQL_REPLICA_TIMINGS)
          console.log(
            `failover: detected ${Math.round(detected)} ms after the stop, slowest request ${Math.round(slowest.ms)} ms, ` +
              `back in rotation ${Math.round(recovered)} ms after the restart`,
          );
      });

      // No connection left behind: every pooled connection is idle and is one server session, on every server.
      const [primaryPool, ...replicaPools] = await pools(setup.orm);
      const servers = [cluster.primary, ...cluster.standbys];
      for (const [i, pool] of [primaryPool!, ...replicaPools].entries()) {
        assert.is(pool.waitingCount, 0);
        assert.is(pool.idleCount, pool.totalCount, `${servers[i]!.name}: connections still checked out`);
        assert.ok(pool.totalCount <= POOL_MAX);
        const open = await sessions(cluster, servers[i]!);
        assert.equal(open, pool.totalCount === 0 ? {} : { idle: pool.totalCount }, servers[i]!.name);
      }
    } finally {
      await setup.orm.close(true);
    }
  },
);

s('a walk whose standby stops after its first page fails with replica_lost', async ({ cluster }) => {
  const setup = await setUp(cluster);
  try {
    const walk = setup.engine.from(setup.base()).pages({ sort: 'id' }, {}, { pageSize: 10 });
    const first = await walk.next();
    assert.ok(!first.done);
    const port = first.value.items[0]!.port as number;
    const standby = cluster.standbys.find((st) => st.port === port);
    assert.ok(standby, `the first page came from port ${port}, not a standby`);
    await withStopped(cluster, standby!, async () => {
      await cluster.stopServer(standby!, 'fast');
      try {
        await walk.next();
        assert.unreachable('the walk went on after its standby stopped');
      } catch (err) {
        assert.ok(isListError(err), String(err));
        assert.is(err.code, 'replica_lost');
        assert.is(err.status, 503);
        assert.not.ok(JSON.stringify(err).includes('57P01'));
      }
      // The next request moves: the standby is out of rotation.
      const other = cluster.standbys.find((st) => st !== standby)!;
      assert.is(await setup.list(), other.port);
    });
  } finally {
    await setup.orm.close(true);
  }
});

s(
  'with both standbys stopped, one request answers replica_lost, then the primary takes the reads until one returns',
  async ({ cluster }) => {
    const setup = await setUp(cluster);
    const [standby1, standby2] = cluster.standbys as [PgServer, PgServer];
    try {
      await withStopped(cluster, standby1, () =>
        withStopped(cluster, standby2, async () => {
          await cluster.stopServer(standby1, 'immediate');
          await cluster.stopServer(standby2, 'immediate');
          // The first request finds its standby down and moves once, to the other standby, down too: it answers
          // replica_lost. Both are out of rotation then, and the next requests read the primary.
          assert.is(await setup.list(), 'replica_lost');
          for (let i = 0; i < 6; i++) assert.is(await setup.list(), cluster.primary.port);
          assert.equal(
            setup.events.map((e) => e.state),
            ['down', 'down'],
          );
          await cluster.startServer(standby2);
          await until('standby2 to return to rotation', HEALTH.maxInterval + 5000, async () => {
            await setup.list();
            return setup.events.some((e) => e.state === 'up');
          });
          for (let i = 0; i < 6; i++) assert.is(await setup.list(), standby2.port);
        }),
      );
    } finally {
      await setup.orm.close(true);
    }
  },
);

s('once every ORM is closed, no server holds a session of the test database', async ({ cluster }) => {
  for (const server of [cluster.primary, ...cluster.standbys])
    await until(`${server.name} to have no sessions`, 3000, async () => {
      const open = await sessions(cluster, server);
      return Object.keys(open).length === 0;
    });
});

s.run();
