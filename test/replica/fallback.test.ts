/**
 * The engine's `replicaFallback` on every dialect, with replicas that fail on demand: a port nothing listens on (a
 * replica that refuses connections) and a TCP switch in front of a real database (taken down mid-walk, hung, brought
 * back). The primary's database holds 3 rows and the replica's 7 (each row names its origin), so every answer shows
 * which server it came from. test/replica/failover.test.ts does the same with a real streaming standby.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EntitySchema, type MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, type EngineConfig, type ReplicaHealthEvent } from '../../src/engine/index.ts';
import { isListError, replicaLost } from '../../src/errors.ts';
import { errorResponse } from '../../src/http/errors.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { createDatabase, DIALECTS, type Dialect } from '../helpers/db.ts';
import { type TcpSwitch, tcpSwitch } from '../helpers/replica.ts';

class Note {
  id!: number;
  origin!: string;
}

const NoteSchema = new EntitySchema<Note>({
  class: Note,
  tableName: 'fallback_note',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    origin: { type: 'string' },
  },
});

const policy = schema(NoteSchema).expose('id', filterable(), sortable()).expose('origin', filterable());
/** The dialects whose replicas are servers that can stop answering. */
type ServerDialect = Exclude<Dialect, 'sqlite'>;

const quick = { healthCheck: { interval: 100, maxInterval: 400 } } as const;

interface Setup {
  readonly primaryUrl: string;
  readonly replicaUrl: string;
  /** A URL of the replica's database on a port nothing listens on. */
  readonly deadUrl: string;
  readonly gate: TcpSwitch;
  readonly orms: MikroORM[];
  cleanup(): Promise<void>;
}

async function initOrm(dialect: ServerDialect, clientUrl: string, replicas: readonly string[] = []): Promise<MikroORM> {
  const { MikroORM } =
    dialect === 'postgresql' ? await import('@mikro-orm/postgresql') : await import('@mikro-orm/mariadb');
  return MikroORM.init({
    entities: [NoteSchema],
    clientUrl,
    debug: false,
    replicas: replicas.map((url) => ({ clientUrl: url })),
  } as never) as Promise<MikroORM>;
}

async function setUp(dialect: ServerDialect): Promise<Setup> {
  const drops: (() => Promise<void>)[] = [];
  const urls: string[] = [];
  for (const [origin, rows] of [
    ['primary', 3],
    ['replica', 7],
  ] as const) {
    const db = await createDatabase(dialect, 'listql_fallback');
    drops.push(db.drop);
    urls.push(db.url);
    const single = await initOrm(dialect, db.url);
    await single.schema.create();
    const em = single.em.fork();
    for (let id = 1; id <= rows; id++) em.create(Note, { id, origin });
    await em.flush();
    await single.close(true);
  }
  const [primaryUrl, replicaUrl] = urls as [string, string];
  const replicaPort = Number(new URL(replicaUrl).port || (dialect === 'postgresql' ? 5432 : 3306));
  const gate = await tcpSwitch(replicaPort);
  const dead = await tcpSwitch(replicaPort);
  await dead.close();
  const orms: MikroORM[] = [];
  return {
    primaryUrl,
    replicaUrl,
    deadUrl: dead.via(replicaUrl),
    gate,
    orms,
    async cleanup() {
      for (const orm of orms) await orm.close(true);
      await gate.close();
      for (const drop of drops) await drop();
    },
  };
}

/** One engine on a fresh ORM (the health of replicas belongs to the ORM's driver), and the events it hears. */
async function engineOn(
  setup: Setup,
  dialect: ServerDialect,
  replicas: readonly string[],
  config: Partial<EngineConfig>,
) {
  const orm = await initOrm(dialect, setup.primaryUrl, replicas);
  setup.orms.push(orm);
  const events: ReplicaHealthEvent[] = [];
  const fallback = config.replicaFallback && {
    ...config.replicaFallback,
    onChange: (e: ReplicaHealthEvent) => events.push(e),
  };
  const engine = createEngine(orm, { policy, allowCount: true, ...config, replicaFallback: fallback });
  const scoped = () => engine.from((orm.em.fork() as SqlEntityManager).createQueryBuilder(Note, 'n'));
  return { orm, engine, scoped, events };
}

async function failure(run: () => Promise<unknown>): Promise<{ code: string; status: number }> {
  try {
    await run();
  } catch (err) {
    assert.ok(isListError(err), String(err));
    return { code: err.code, status: err.status };
  }
  assert.unreachable('expected the request to fail');
  throw new Error('unreachable');
}

const origins = (items: readonly Record<string, unknown>[]) => [...new Set(items.map((i) => i.origin))];

async function waitFor(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

for (const dialect of DIALECTS) {
  const s = suite<{ setup: Setup }>(`replica fallback [${dialect}]`, {} as { setup: Setup });

  if (dialect === 'sqlite') {
    // MikroORM's SQLite driver opens the primary's file for replicas: nothing can stop answering, and the option
    // must change nothing.
    s('replicaFallback reads exactly as without it', async () => {
      const { MikroORM } = await import('@mikro-orm/sqlite');
      const dir = mkdtempSync(join(tmpdir(), 'listql-fallback-'));
      const orm = await MikroORM.init({
        entities: [NoteSchema],
        dbName: join(dir, 'notes.sqlite'),
        replicas: [{ name: 'r' }],
      });
      try {
        await orm.schema.create();
        const em = orm.em.fork();
        for (let id = 1; id <= 4; id++) em.create(Note, { id, origin: 'primary' });
        await em.flush();
        const base = () => (orm.em.fork() as SqlEntityManager).createQueryBuilder(Note, 'n');
        const plain = await createEngine(orm, { policy, allowCount: true }).from(base()).list({ count: 'true' });
        const withFallback = await createEngine(orm, { policy, allowCount: true, replicaFallback: {} })
          .from(base())
          .list({ count: 'true' });
        assert.equal(withFallback, plain);
        assert.is(withFallback.page.count, 4);
      } finally {
        await orm.close(true);
        rmSync(dir, { recursive: true, force: true });
      }
    });
    s.run();
    continue;
  }

  s.before(async (ctx) => {
    try {
      ctx.setup = await setUp(dialect);
    } catch (err) {
      console.error(`replica fallback [${dialect}]: setup failed:`, err);
      throw err;
    }
  });
  s.after(async (ctx) => {
    await ctx.setup?.cleanup();
  });

  s(
    'without replicaFallback, a replica that refuses connections fails the request (execution_failed)',
    async ({ setup }) => {
      const { scoped } = await engineOn(setup, dialect, [setup.deadUrl], {});
      for (let i = 0; i < 3; i++)
        assert.equal(await failure(() => scoped().list({})), { code: 'execution_failed', status: 500 });
    },
  );

  s('a replica that refuses connections is left for the other replica, and leaves rotation once', async ({ setup }) => {
    const { scoped, events } = await engineOn(setup, dialect, [setup.deadUrl, setup.replicaUrl], {
      replicaFallback: quick,
    });
    for (let i = 0; i < 12; i++) {
      const page = await scoped().list({ count: 'true' });
      // The move goes to the replica in rotation, not to the primary, and the count comes from the same server.
      assert.equal(origins(page.items), ['replica']);
      assert.is(page.page.count, 7);
    }
    assert.equal(
      events.map((e) => [e.replica, e.state, (e.cause as { code?: string }).code]),
      [[0, 'down', 'ECONNREFUSED']],
    );
  });

  s(
    'with no replica in rotation the primary takes the read; toPrimary: false answers replica_lost',
    async ({ setup }) => {
      const toPrimary = await engineOn(setup, dialect, [setup.deadUrl], { replicaFallback: quick });
      for (let i = 0; i < 3; i++) assert.equal(origins((await toPrimary.scoped().list({})).items), ['primary']);
      assert.is(toPrimary.events.length, 1);

      const notPrimary = await engineOn(setup, dialect, [setup.deadUrl], { replicaFallback: { toPrimary: false } });
      // The first request finds the replica down; the next ones find nothing in rotation and send nothing.
      for (let i = 0; i < 3; i++)
        assert.equal(await failure(() => notPrimary.scoped().list({})), { code: 'replica_lost', status: 503 });
      assert.is(notPrimary.events.length, 1);
    },
  );

  s(
    'retry: false answers replica_lost for the request that found the replica down, then reads elsewhere',
    async ({ setup }) => {
      const { scoped, events } = await engineOn(setup, dialect, [setup.deadUrl], {
        replicaFallback: { ...quick, retry: false },
      });
      assert.equal(await failure(() => scoped().list({})), { code: 'replica_lost', status: 503 });
      assert.equal(origins((await scoped().list({})).items), ['primary']);
      assert.equal(
        events.map((e) => e.state),
        ['down'],
      );
    },
  );

  s(
    'a walk that has read a page fails with replica_lost; the replica comes back after its health check',
    async ({ setup }) => {
      const { gate } = setup;
      await gate.up();
      const { scoped, events } = await engineOn(setup, dialect, [gate.via(setup.replicaUrl)], {
        replicaFallback: quick,
      });
      const walk = scoped().items({ sort: 'id' }, {}, { pageSize: 2 });
      const seen: unknown[] = [];
      const lost = await failure(async () => {
        for await (const item of walk) {
          seen.push(item.origin);
          if (seen.length === 2) await gate.down();
        }
      });
      assert.equal(lost, { code: 'replica_lost', status: 503 });
      // The HTTP adapters answer it as a public 503, never as internal_error.
      const response = errorResponse(replicaLost('the read replica stopped answering'));
      assert.equal([response.status, response.body.code], [503, 'replica_lost']);
      // The first page came from the replica; nothing came from anywhere else.
      assert.equal(seen, ['replica', 'replica']);
      assert.equal(origins((await scoped().list({})).items), ['primary']);

      await gate.up();
      const back = performance.now();
      // Checks run beside requests: keep asking until the replica is in rotation again.
      await waitFor('the replica to come back', async () => {
        await scoped().list({});
        return events.some((e) => e.state === 'up');
      });
      assert.ok(performance.now() - back < 2000, `back after ${Math.round(performance.now() - back)} ms`);
      assert.equal(origins((await scoped().list({})).items), ['replica']);
      assert.equal(
        events.map((e) => [e.replica, e.state]),
        [
          [0, 'down'],
          [0, 'up'],
        ],
      );
    },
  );

  s('a replica that stops answering moves the request only within its statement timeout', async ({ setup }) => {
    const { gate } = setup;
    // Connections are accepted and dropped after 300 ms without a byte.
    await gate.hang(300);
    try {
      const late = await engineOn(setup, dialect, [gate.via(setup.replicaUrl)], { replicaFallback: quick });
      const started = performance.now();
      assert.equal(await failure(() => late.scoped().list({}, { statementTimeout: 200 })), {
        code: 'replica_lost',
        status: 503,
      });
      assert.ok(performance.now() - started < 2000);

      const inTime = await engineOn(setup, dialect, [gate.via(setup.replicaUrl)], { replicaFallback: quick });
      assert.equal(origins((await inTime.scoped().list({}, { statementTimeout: 5000 })).items), ['primary']);
      assert.equal(
        inTime.events.map((e) => e.state),
        ['down'],
      );
    } finally {
      await gate.up();
    }
  });

  s('a request aborted while its replica hangs is never moved to another server', async ({ setup }) => {
    const { gate } = setup;
    await gate.hang(300);
    try {
      const { orm, scoped, events } = await engineOn(setup, dialect, [gate.via(setup.replicaUrl)], {
        replicaFallback: quick,
      });
      // Count what reaches the primary's connection.
      const primary = orm.em.getDriver().getConnection('write') as unknown as Record<string, unknown>;
      const executeQuery = primary.executeQuery as (...args: unknown[]) => Promise<unknown>;
      let onPrimary = 0;
      primary.executeQuery = (...args: unknown[]) => {
        onPrimary++;
        return executeQuery.apply(primary, args);
      };
      const aborted = failure(() => scoped().list({}, { signal: AbortSignal.timeout(100) }));
      assert.equal(await aborted, { code: 'execution_failed', status: 500 });
      // The replica drops the connection at 300 ms, long after the request answered its caller: nothing moves.
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.is(onPrimary, 0);
      // The next request, not aborted, finds the replica not answering and moves to the primary.
      assert.equal(origins((await scoped().list({})).items), ['primary']);
      assert.ok(onPrimary > 0);
      assert.equal(
        events.map((e) => e.state),
        ['down'],
      );
    } finally {
      await gate.up();
    }
  });

  s.run();
}

const configs = suite('replicaFallback config');

configs('a bad replicaFallback is invalid_schema naming the setting', async () => {
  const { MikroORM } = await import('@mikro-orm/sqlite');
  const orm = await MikroORM.init({ entities: [NoteSchema], dbName: ':memory:' });
  try {
    const rows: readonly [unknown, string][] = [
      [true, 'replicaFallback must be an object ({} for the defaults)'],
      [{ retry: 'yes' }, 'replicaFallback.retry must be true or false'],
      [{ toPrimary: 1 }, 'replicaFallback.toPrimary must be true or false'],
      [{ every: 5 }, 'replicaFallback.every is not a known setting'],
      [{ onChange: 'log' }, 'replicaFallback.onChange must be a function'],
      [{ healthCheck: 5 }, 'replicaFallback.healthCheck must be an object'],
      [
        { healthCheck: { interval: 0 } },
        'replicaFallback.healthCheck.interval must be a positive integer (milliseconds)',
      ],
      [
        { healthCheck: { maxInterval: 1.5 } },
        'replicaFallback.healthCheck.maxInterval must be a positive integer (milliseconds)',
      ],
      [
        { healthCheck: { interval: 5000, maxInterval: 1000 } },
        'replicaFallback.healthCheck.maxInterval must not be below interval',
      ],
      [{ healthCheck: { backoff: 2 } }, 'replicaFallback.healthCheck.backoff is not a known setting'],
    ];
    for (const [replicaFallback, message] of rows) {
      try {
        createEngine(orm, { policy, replicaFallback: replicaFallback as never });
        assert.unreachable(`accepted ${JSON.stringify(replicaFallback)}`);
      } catch (err) {
        assert.ok(isListError(err), String(err));
        assert.is(err.code, 'invalid_schema');
        assert.is(err.message, `engine config: ${message}`);
      }
    }
    // The defaults: {} turns it on; an interval above the default maxInterval raises it.
    createEngine(orm, { policy, replicaFallback: {} });
    createEngine(orm, { policy, replicaFallback: { healthCheck: { interval: 60_000 } } });
  } finally {
    await orm.close(true);
  }
});

configs.run();
