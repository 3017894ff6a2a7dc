/**
 * Filters compiled once per shape: a cached compilation gives exactly the SQL and parameters a fresh one gives,
 * for new literals in a known shape (LIKE patterns escaped again for each value), and two tenants whose related
 * rows are filtered by an `em` filter parameter never share a cached condition.
 */
import { type Collection, type Dictionary, type EntityManager, EntitySchema } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import * as assert from 'uvu/assert';
import { resolveQuery } from '../../src/bind/index.ts';
import { dialectFor } from '../../src/dialect/index.ts';
import { createEngine } from '../../src/engine/index.ts';
import { cachedShapeCount } from '../../src/plan/filter-cache.ts';
import { planResolved } from '../../src/plan/index.ts';
import { compileFilter } from '../../src/plan/predicate.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { eachDialect } from '../helpers/db.ts';

class Shelf {
  id!: number;
  name!: string;
  notes?: Collection<Note>;
}
class Note {
  id!: number;
  tenant!: number;
  body!: string;
  shelf!: Shelf;
}

const ShelfSchema = new EntitySchema<Shelf>({
  class: Shelf,
  tableName: 'fc_shelf',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    name: { type: 'string' },
    notes: { kind: '1:m', entity: () => Note, mappedBy: 'shelf' },
  },
});
const NoteSchema = new EntitySchema<Note>({
  class: Note,
  tableName: 'fc_note',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    tenant: { type: 'integer' },
    body: { type: 'string' },
    shelf: { kind: 'm:1', entity: () => Shelf },
  },
});

const policy = schema(ShelfSchema)
  .expose('id', filterable(), sortable())
  .expose('name', filterable('eq', 'startswith', 'contains', 'endswith', 'ieq', 'istartswith', 'icontains'), sortable())
  .relation(
    'notes',
    schema(NoteSchema)
      .expose('body', filterable('eq', 'ne', 'endswith', 'iendswith', 'ine'))
      .expose('id', filterable()),
  );

// Shelf 1 has note 'x' of tenant 1 only; shelf 2 has note 'x' of tenant 2 only; shelf 3 has 'y' of both.
const NOTES = [
  { id: 1, tenant: 1, body: 'x', shelf: 1 },
  { id: 2, tenant: 2, body: 'x', shelf: 2 },
  { id: 3, tenant: 1, body: 'y', shelf: 3 },
  { id: 4, tenant: 2, body: 'y', shelf: 3 },
  { id: 5, tenant: 2, body: 'a%_*?[z', shelf: 1 },
];

async function seed(em: EntityManager): Promise<void> {
  for (const id of [1, 2, 3]) em.create(Shelf, { id, name: `shelf ${id}` });
  for (const n of NOTES) em.create(Note, n);
  await em.flush();
}

function tenantEm(em: EntityManager, tenant: number): SqlEntityManager {
  const fork = em.fork() as SqlEntityManager;
  fork.addFilter({
    name: 'tenant',
    cond: (args: Dictionary) => ({ tenant: args.id as number }),
    entity: [Note],
    default: true,
  });
  fork.setFilterParams('tenant', { id: tenant });
  return fork;
}

const SHAPES: readonly [string, string][] = [
  ["name ieq 'Shelf 1' and id gt 0", "name ieq 'A%_*?[Z' and id gt 2"],
  ["name istartswith 'SH%' or name icontains '_'", "name istartswith 'x\\' or name icontains 'Q*?['"],
  ["notes/any(n: n/body iendswith 'A%' and n/body ine 'X')", "notes/any(n: n/body iendswith '[Z' and n/body ine 'y')"],
  ["notes/any(n: n/body eq 'x') or name startswith 'sh'", "notes/any(n: n/body eq 'y') or name startswith 'zz'"],
  ["name contains '%_' and not (id in (1, 2))", "name contains 'f*?[' and not (id in (3, 1))"],
  ["notes/all(n: n/body endswith 'a%') and id gt 0", "notes/all(n: n/body endswith 'q_') and id gt 2"],
  ["notes/any(n: n/id in (1, 5, 3) and n/body ne 'y')", "notes/any(n: n/id in (2, 4, 4) and n/body ne 'x')"],
];

eachDialect('filters compiled once per shape', { entities: [ShelfSchema, NoteSchema], seed }, (test) => {
  test('a cached compilation equals a fresh one, for every new literal of a known shape', ({ em }) => {
    const bound = policy.bind(em);
    for (const pair of SHAPES) {
      const before = cachedShapeCount(bound);
      for (const filter of [...pair, ...pair]) {
        const resolved = resolveQuery(bound, parseHTTP({ filter }));
        const qb = (em as SqlEntityManager).createQueryBuilder(Shelf, 's');
        const planned = planResolved(qb, bound, resolved, { filters: false });
        const fresh = compileFilter(resolved.filter!, {
          platform: bound.platform,
          dialect: dialectFor(bound.platform),
          alias: 's',
          relations: {
            em,
            platform: bound.platform,
            nextAlias: freshAliases(),
            filterOf: () => undefined,
          },
        });
        assert.ok(planned.qb.getQuery().includes(fresh.sql), filter);
        assert.equal(planned.qb.getParams().slice(0, fresh.params.length), fresh.params, filter);
      }
      // Both filters of a pair have one shape: one entry, whatever their literals.
      assert.is(cachedShapeCount(bound), before + 1);
    }
  });

  test('two tenants through one cached shape never see each other’s related rows', async ({ em }) => {
    const engine = createEngine(em, { policy });
    const list = async (tenant: number, body: string) => {
      const scoped = engine.from(tenantEm(em, tenant).createQueryBuilder(Shelf, 's'));
      const page = await scoped.list({ filter: `notes/any(n: n/body eq '${body}')` });
      return page.items.map((i) => i.id);
    };
    for (let round = 0; round < 2; round++) {
      assert.equal(await list(1, 'x'), [1]);
      assert.equal(await list(2, 'x'), [2]);
      assert.equal(await list(1, 'y'), [3]);
      assert.equal(await list(2, 'y'), [3]);
      assert.equal(await list(1, 'a%_*?[z'), []);
      assert.equal(await list(2, 'a%_*?[z'), [1]);
    }
  });
});

function freshAliases(): () => string {
  // The same sequence the planner's generator gives a base scope aliased `s` on this fixture's tables.
  let n = 0;
  return () => `lq${++n}`;
}
