/**
 * The serialization fast path: items written straight from the data query's rows must equal, row by row and key by
 * key (order included), what MikroORM's serialize() gives for the same rows hydrated with em.map(). Checked over
 * every fixture entity list() serves (catalog, library, walk) plus a local fixture of the harder cases (JSON, a
 * custom type, a custom serializer, `_`-prefixed and hidden properties, a composite key with a hidden part, a
 * self-reference with a serializedName), on SQLite and PostgreSQL; and entities the fast path must decline.
 */
import {
  type EntityManager,
  type EntityMetadata,
  EntitySchema,
  type EntitySchema as Schema,
  Type,
} from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { execute } from '../../src/engine/execute.ts';
import { createEngine } from '../../src/engine/index.ts';
import { type Item, serializeRows } from '../../src/engine/serialize.ts';
import { compileItemWriter } from '../../src/orm/item-writer.ts';
import { schema, sortable } from '../../src/policy/index.ts';
import { catalogEntities, seedCatalog } from '../fixtures/catalog.ts';
import { libraryEntities, libraryOptions, seedLibrary } from '../fixtures/library.ts';
import { seedWalk, walkEntities } from '../fixtures/walk.ts';
import { eachDialect } from '../helpers/db.ts';

/** Money in cents in the database, a `12.34` string in JavaScript, a number in JSON: three different forms. */
class CentsType extends Type<string | null, number | null> {
  override convertToDatabaseValue(value: string | null): number | null {
    return value === null ? null : Math.round(Number(value) * 100);
  }
  override convertToJSValue(value: number | string | null): string | null {
    return value === null ? null : (Number(value) / 100).toFixed(2);
  }
  override toJSON(value: string | null): number | null {
    return value === null ? null : Number(value);
  }
  override getColumnType(): string {
    return 'integer';
  }
}

class Shelf {
  zone!: string; // hidden part of the key
  num!: number;
  label?: string | null;
}

class Gadget {
  id!: number;
  label!: string; // custom serializer
  spec?: Record<string, unknown> | null; // json
  price?: string | null; // CentsType
  _note?: string | null; // left out by serialize()
  shelf?: Shelf | null; // composite FK, one visible key part
  parent?: Gadget | null; // self-reference, serialized as parentId
  on!: boolean;
}

const ShelfSchema = new EntitySchema<Shelf>({
  class: Shelf,
  tableName: 'ser_shelf',
  properties: {
    zone: { type: 'string', primary: true, hidden: true },
    num: { type: 'integer', primary: true, autoincrement: false },
    label: { type: 'string', nullable: true },
  },
});

const GadgetSchema = new EntitySchema<Gadget>({
  class: Gadget,
  tableName: 'ser_gadget',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    label: { type: 'string', serializer: (v: string) => `<${v.toUpperCase()}>` },
    spec: { type: 'json', nullable: true },
    price: { type: CentsType, nullable: true },
    _note: { type: 'string', nullable: true },
    shelf: { kind: 'm:1', entity: () => Shelf, nullable: true },
    parent: { kind: 'm:1', entity: () => Gadget, nullable: true, serializedName: 'parentId' },
    on: { type: 'boolean' },
  },
});

/** Entities the fast path must decline: an embeddable, and a property with a getter. */
class Address {
  city!: string;
}
class Place {
  id!: number;
  address!: Address;
}
class Counter {
  id!: number;
  n!: number;
  get double(): number {
    return this.n * 2;
  }
}
const AddressSchema = new EntitySchema<Address>({
  class: Address,
  embeddable: true,
  properties: { city: { type: 'string' } },
});
const PlaceSchema = new EntitySchema<Place>({
  class: Place,
  tableName: 'ser_place',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    address: { kind: 'embedded', entity: () => Address },
  },
});
const CounterSchema = new EntitySchema<Counter>({
  class: Counter,
  tableName: 'ser_counter',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    n: { type: 'integer' },
    double: { type: 'integer', persist: false, getter: true },
  },
});

const localEntities = [ShelfSchema, GadgetSchema, AddressSchema, PlaceSchema, CounterSchema];

async function seedLocal(em: EntityManager): Promise<void> {
  const a = em.create(Shelf, { zone: 'z', num: 1, label: 'one' });
  em.create(Shelf, { zone: 'z', num: 2, label: null });
  const g = (id: number, extra: Partial<Gadget>) =>
    em.create(Gadget, { id, label: `g${id}`, on: id % 2 === 0, ...extra } as Gadget);
  const g1 = g(1, { spec: { a: [1, 'x'], b: null }, price: '12.34', _note: 'n', shelf: a });
  g(2, { spec: null, price: null, parent: g1 });
  g(3, { spec: { n: 1.5 }, price: '0.05', shelf: a, parent: g1 });
  em.create(Place, { id: 1, address: { city: 'Oslo' } });
  em.create(Counter, { id: 1, n: 2 } as never);
  await em.flush();
  em.clear();
}

interface Fixture {
  readonly name: string;
  readonly entities: readonly Schema<any>[];
  readonly seed: (em: EntityManager) => Promise<void>;
  readonly options?: Record<string, unknown>;
  /** Entities the fast path must serve; every other entity of the fixture must be declined. */
  readonly fast: readonly Schema<any>[];
}

const FIXTURES: readonly Fixture[] = [
  { name: 'catalog', entities: catalogEntities, seed: seedCatalog, fast: catalogEntities },
  { name: 'library', entities: libraryEntities, seed: seedLibrary, options: libraryOptions, fast: libraryEntities },
  { name: 'walk', entities: walkEntities, seed: seedWalk, fast: walkEntities },
  { name: 'local', entities: localEntities, seed: seedLocal, fast: [ShelfSchema, GadgetSchema] },
];

const metaOf = (em: EntityManager, entity: Schema<any>): EntityMetadata => em.getMetadata().get(entity.meta.class);

/** Read rows as the engine does (bound execution, mapped rows), every row, soft-deleted ones included. */
async function rowsOf(em: EntityManager, meta: EntityMetadata, order: 'asc' | 'desc', fields?: string[]) {
  const qb = (em as any).createQueryBuilder(meta.class, 'x');
  if (fields) qb.select(fields);
  qb.orderBy(meta.primaryKeys.map((pk) => ({ [pk]: order })));
  return execute<Item>(qb);
}

/** Compare key order too: a client sees JSON, where order is visible. */
function assertSame(fast: readonly Item[] | undefined, slow: readonly Item[], label: string): void {
  assert.ok(fast, `${label}: the fast path declined`);
  assert.is(fast.length, slow.length, label);
  fast.forEach((item, i) => {
    assert.equal(Object.keys(item), Object.keys(slow[i]!), `${label}, row ${i}: keys`);
    assert.equal(item, slow[i], `${label}, row ${i}`);
  });
}

/** Partial selections (what a base scope may select): [entity class name, fields]. */
const SELECTIONS: readonly (readonly [string, readonly string[]])[] = [
  ['Book', ['id', 'title', 'publisher']],
  ['Entry', ['id', 'label', 'tenant', 'team', 'at']],
  ['Product', ['id', 'sku', 'views', 'secret']],
  ['Gadget', ['id', 'price', 'shelf']],
];

for (const fixture of FIXTURES) {
  eachDialect(
    `engine serialize: ${fixture.name}`,
    { entities: fixture.entities, seed: fixture.seed, ...(fixture.options ? { options: fixture.options } : {}) },
    (test) => {
      for (const entity of fixture.entities) {
        const name = entity.meta.className;
        const fast = fixture.fast.includes(entity);
        test(`${name}: ${fast ? 'items equal serialize(), row by row, in pages and whole' : 'declined'}`, async ({
          em,
        }) => {
          const meta = metaOf(em, entity);
          const writer = compileItemWriter(em, meta);
          if (!fast) {
            assert.is(writer, undefined);
            return;
          }
          if (meta.embeddable) return;
          assert.type(writer, 'function');
          for (const order of ['asc', 'desc'] as const) {
            const rows = await rowsOf(em, meta, order);
            assert.ok(rows.length > 0, 'the fixture has rows');
            // Whole result, then pages of 2 (references to rows outside the page, self-references inside it).
            const pages = [
              rows,
              ...Array.from({ length: Math.ceil(rows.length / 2) }, (_, i) => rows.slice(2 * i, 2 * i + 2)),
            ];
            for (const page of pages) {
              const slow = serializeRows(
                em,
                meta.class,
                page.map((r) => ({ ...r })),
              );
              assertSame(writer!(page.map((r) => ({ ...r }))), slow, `${name} ${order}`);
            }
          }
        });
      }

      for (const [className, fields] of SELECTIONS) {
        const entity = fixture.entities.find((e) => e.meta.className === className);
        if (!entity) continue;
        test(`${className}: a partial selection (${fields.join(', ')}) serializes the same`, async ({ em }) => {
          const meta = metaOf(em, entity);
          const rows = await rowsOf(em, meta, 'asc', [...fields]);
          const slow = serializeRows(
            em,
            meta.class,
            rows.map((r) => ({ ...r })),
          );
          assertSame(compileItemWriter(em, meta)!(rows), slow, className);
        });
      }

      test('list() serves the same items as serialize() for every entity', async ({ em }) => {
        for (const entity of fixture.entities) {
          const meta = metaOf(em, entity);
          if (meta.embeddable) continue;
          const keys = meta.primaryKeys.filter((pk) => !meta.properties[pk]!.hidden);
          const policy = keys.reduce((p, pk) => p.expose(pk, sortable()), schema<any>(meta.class));
          const engine = createEngine(em, { policy, maxLimit: 100 });
          const base = (em as any).createQueryBuilder(meta.class, 'x');
          const page = await engine.from(base).list({ limit: '100' });
          const scoped = (em as any).createQueryBuilder(meta.class, 'x');
          await scoped.applyFilters({});
          scoped.orderBy(meta.primaryKeys.map((pk) => ({ [pk]: 'asc' })));
          const slow = serializeRows(em, meta.class, await execute<Item>(scoped));
          assert.equal(page.items, slow, meta.className);
          page.items.forEach((item, i) => {
            assert.equal(Object.keys(item), Object.keys(slow[i]!), `${meta.className} row ${i}: keys`);
          });
        }
      });
    },
  );
}
