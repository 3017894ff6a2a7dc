/**
 * Read replicas: with MikroORM's `replicas` configured, list and count read from a replica as em.find does (the
 * primary inside a transaction), and every page of one walk reads from the same connection. Databases posing as
 * primary and replicas hold different rows, so each answer shows which one it came from.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EntitySchema, type MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { createDatabase, DIALECTS, type Dialect } from '../helpers/db.ts';

class Note {
  id!: number;
  origin!: string;
}

const NoteSchema = new EntitySchema<Note>({
  class: Note,
  tableName: 'replica_note',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    origin: { type: 'string' },
  },
});

const policy = schema(NoteSchema).expose('id', filterable(), sortable()).expose('origin', filterable(), sortable());

/** Rows per database: the primary has 3, each replica 7, so counts and contents tell them apart. */
const DATABASES = [
  { name: 'primary', rows: 3 },
  { name: 'replica-a', rows: 7 },
  { name: 'replica-b', rows: 7 },
] as const;

interface Setup {
  orm: MikroORM;
  cleanup(): Promise<void>;
}

async function open(dialect: Dialect): Promise<Setup> {
  const cleanups: (() => Promise<void>)[] = [];
  const locations: Record<string, unknown>[] = [];
  let init: (options: Record<string, unknown>) => Promise<MikroORM>;
  if (dialect !== 'sqlite') {
    // Each MariaDB connection runs listql's statements on its own mysql2 pool: the replica's, not the primary's.
    const { MikroORM } =
      dialect === 'postgresql' ? await import('@mikro-orm/postgresql') : await import('@mikro-orm/mariadb');
    init = (options) => MikroORM.init(options as never);
    for (const _ of DATABASES) {
      const db = await createDatabase(dialect, 'listql_replica');
      cleanups.push(db.drop);
      locations.push({ clientUrl: db.url });
    }
  } else {
    const { MikroORM } = await import('@mikro-orm/sqlite');
    init = (options) => MikroORM.init(options as never);
    const dir = mkdtempSync(join(tmpdir(), 'listql-replica-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    for (const d of DATABASES) locations.push({ dbName: join(dir, `${d.name}.sqlite`) });
  }
  // Fill each database through an ORM of its own, then open the one ORM under test with replicas.
  for (const [i, d] of DATABASES.entries()) {
    const single = await init({ entities: [NoteSchema], ...locations[i] });
    await single.schema.create();
    const em = single.em.fork();
    for (let id = 1; id <= d.rows; id++) em.create(Note, { id, origin: d.name });
    await em.flush();
    await single.close(true);
  }
  const orm = await init({ entities: [NoteSchema], ...locations[0], replicas: locations.slice(1) });
  return {
    orm,
    async cleanup() {
      await orm.close(true);
      for (const c of cleanups.reverse()) await c();
    },
  };
}

function scopeOf(em: SqlEntityManager) {
  return em.createQueryBuilder(Note, 'n');
}

for (const dialect of DIALECTS) {
  const s = suite<{ setup: Setup }>(`engine read replicas [${dialect}]`, {} as { setup: Setup });
  s.before(async (ctx) => {
    ctx.setup = await open(dialect);
  });
  s.after(async (ctx) => {
    await ctx.setup?.cleanup();
  });

  s('list() and count read from a replica, as em.find does', async ({ setup }) => {
    const engine = createEngine(setup.orm, { policy, allowCount: true });
    const em = setup.orm.em.fork() as SqlEntityManager;
    const page = await engine.from(scopeOf(em)).list({ count: 'true' });
    const found = await em.find(Note, {});
    assert.is(page.page.count, found.length);
    assert.is(page.items.length, found.length);
    assert.ok(found.every((n) => n.origin.startsWith(page.items[0]?.origin === 'primary' ? 'primary' : 'replica')));
    // MikroORM's SQLite connection opens the primary's file for replicas too; PostgreSQL and MariaDB really read a
    // replica.
    if (dialect !== 'sqlite') {
      assert.is(page.page.count, 7);
      assert.ok(String(page.items[0]?.origin).startsWith('replica'), String(page.items[0]?.origin));
    }
  });

  s('inside a transaction, list() and count read from the primary', async ({ setup }) => {
    const engine = createEngine(setup.orm, { policy, allowCount: true });
    const page = await (setup.orm.em.fork() as SqlEntityManager).transactional((em) =>
      engine.from(scopeOf(em as SqlEntityManager)).list({ count: 'true' }),
    );
    assert.is(page.page.count, 3);
    assert.equal(
      page.items.map((i) => i.origin),
      ['primary', 'primary', 'primary'],
    );
  });

  s('every page of one walk reads from the same replica', async ({ setup }) => {
    const engine = createEngine(setup.orm, { policy });
    // Seven one-row pages: were each page to pick a replica at random, a walk would mix them almost always.
    for (let walk = 0; walk < 4; walk++) {
      const origins: unknown[] = [];
      const em = setup.orm.em.fork() as SqlEntityManager;
      for await (const item of engine.from(scopeOf(em)).items({ sort: 'id' }, {}, { pageSize: 1 }))
        origins.push(item.origin);
      assert.is(origins.length, dialect === 'sqlite' ? 3 : 7);
      assert.is(new Set(origins).size, 1, origins.join(','));
    }
  });

  s.run();
}
