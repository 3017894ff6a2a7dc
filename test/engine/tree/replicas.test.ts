/**
 * Nested levels read from the connection the top page used: with MikroORM's `replicas`, a page and its nested levels
 * come from one replica (MikroORM would pick one at random per statement), and from the primary inside a
 * transaction. Databases posing as primary and replicas hold rows naming themselves, so each row shows its origin.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Collection, EntitySchema, type MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine } from '../../../src/engine/index.ts';
import { filterable, schema, selectable, sortable } from '../../../src/policy/index.ts';
import { createDatabase, DIALECTS, type Dialect } from '../../helpers/db.ts';

class Shelf {
  id!: number;
  origin!: string;
  notes?: Collection<ShelfNote>;
}

class ShelfNote {
  id!: number;
  origin!: string;
  shelf!: Shelf;
}

const pk = { type: 'integer', primary: true, autoincrement: false } as const;
const ShelfSchema = new EntitySchema<Shelf>({
  class: Shelf,
  tableName: 'tree_replica_shelf',
  properties: {
    id: pk,
    origin: { type: 'string' },
    notes: { kind: '1:m', entity: () => ShelfNote, mappedBy: 'shelf' },
  },
});
const ShelfNoteSchema = new EntitySchema<ShelfNote>({
  class: ShelfNote,
  tableName: 'tree_replica_note',
  properties: { id: pk, origin: { type: 'string' }, shelf: { kind: 'm:1', entity: () => Shelf } },
});
const entities = [ShelfSchema, ShelfNoteSchema];

const note = schema(ShelfNote).expose('id', filterable(), sortable()).expose('origin', filterable(), sortable());
const policy = schema(Shelf)
  .expose('id', filterable(), sortable())
  .expose('origin', filterable(), sortable())
  .relation('notes', note, selectable());

const DATABASES = ['primary', 'replica-a', 'replica-b'] as const;

interface Setup {
  orm: MikroORM;
  cleanup(): Promise<void>;
}

async function open(dialect: Dialect): Promise<Setup> {
  const cleanups: (() => Promise<void>)[] = [];
  const locations: Record<string, unknown>[] = [];
  let init: (options: Record<string, unknown>) => Promise<MikroORM>;
  if (dialect !== 'sqlite') {
    const { MikroORM } =
      dialect === 'postgresql' ? await import('@mikro-orm/postgresql') : await import('@mikro-orm/mariadb');
    init = (options) => MikroORM.init(options as never);
    for (const _ of DATABASES) {
      const db = await createDatabase(dialect, 'listql_tree_replica');
      cleanups.push(db.drop);
      locations.push({ clientUrl: db.url });
    }
  } else {
    const { MikroORM } = await import('@mikro-orm/sqlite');
    init = (options) => MikroORM.init(options as never);
    const dir = mkdtempSync(join(tmpdir(), 'listql-tree-replica-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    for (const name of DATABASES) locations.push({ dbName: join(dir, `${name}.sqlite`) });
  }
  for (const [i, origin] of DATABASES.entries()) {
    const single = await init({ entities, ...locations[i] });
    await single.schema.create();
    const em = single.em.fork();
    for (const id of [1, 2]) {
      const shelf = em.create(Shelf, { id, origin });
      for (const n of [1, 2]) em.create(ShelfNote, { id: id * 10 + n, origin, shelf });
    }
    await em.flush();
    await single.close(true);
  }
  const orm = await init({ entities, ...locations[0], replicas: locations.slice(1) });
  return {
    orm,
    async cleanup() {
      await orm.close(true);
      for (const c of cleanups.reverse()) await c();
    },
  };
}

/** Every origin an answer shows: its shelves' and their notes'. */
function origins(items: readonly Record<string, unknown>[]): Set<unknown> {
  const out = new Set<unknown>();
  for (const item of items) {
    out.add(item.origin);
    for (const n of (item.notes as { items: { origin: unknown }[] }).items) out.add(n.origin);
  }
  return out;
}

for (const dialect of DIALECTS) {
  const s = suite<{ setup: Setup }>(`nested selections: read replicas [${dialect}]`, {} as { setup: Setup });
  s.before(async (ctx) => {
    ctx.setup = await open(dialect);
  });
  s.after(async (ctx) => {
    await ctx.setup?.cleanup();
  });

  s('a page and its nested levels read from the same replica', async ({ setup }) => {
    const engine = createEngine(setup.orm, { policy });
    // Were each level to pick a replica at random, eight answers would mix them almost always.
    for (let run = 0; run < 8; run++) {
      const em = setup.orm.em.fork() as SqlEntityManager;
      const answer = await engine.from(em.createQueryBuilder(Shelf, 's')).list('fields=id,origin,notes(origin)');
      const seen = origins(answer.items);
      assert.is(seen.size, 1, [...seen].join(','));
      assert.is(answer.items.length, 2);
      // MikroORM's SQLite connection opens the primary's file for replicas too.
      if (dialect !== 'sqlite') assert.ok(String([...seen][0]).startsWith('replica'));
    }
  });

  s('inside a transaction, every level reads from the primary', async ({ setup }) => {
    const engine = createEngine(setup.orm, { policy });
    const answer = await (setup.orm.em.fork() as SqlEntityManager).transactional((em) =>
      engine.from((em as SqlEntityManager).createQueryBuilder(Shelf, 's')).list('fields=id,origin,notes(origin)'),
    );
    assert.equal([...origins(answer.items)], ['primary']);
  });

  s.run();
}
