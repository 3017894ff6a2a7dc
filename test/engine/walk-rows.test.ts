/**
 * Items straight from driver rows (orm/row-writer.ts): for every entity of the fixtures that has an item writer, the
 * row writer's items, from the rows as the driver gives them (`execute('all', false)`: column names, driver values),
 * equal, value for value and key for key, what the mapped path gives for the same statement (MikroORM's result
 * mapper, then em.map() and serialize()), with generated and with interpreted row loops, for whole results, pages of
 * two and partial selections; on every dialect. The widest fixtures are here: every scalar type of the key fixture,
 * the remaining types (narrow integers, float, char, enum, timestamp, blob, string array, time), and a local entity
 * with the mapper's own conversions (nullable booleans and dates, a composite foreign key, JSON, a custom type, a
 * custom serializer, hidden, `_`-prefixed and renamed columns).
 */
import type { EntityManager, EntityMetadata, EntitySchema as Schema } from '@mikro-orm/core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { executeOwned } from '../../src/engine/execute.ts';
import { type Item, serializeRows } from '../../src/engine/serialize.ts';
import { utcDateText } from '../../src/orm/date-text.ts';
import { compileItemWriter } from '../../src/orm/item-writer.ts';
import { compileRowWriter, mapDriverRows } from '../../src/orm/row-writer.ts';
import { catalogEntities, seedCatalog } from '../fixtures/catalog.ts';
import { KeyedSchema, seedKeyed } from '../fixtures/keys.ts';
import { libraryEntities, libraryOptions, seedLibrary } from '../fixtures/library.ts';
import { relationEntities, Sample, seedRelations } from '../fixtures/relations.ts';
import { rowEntities, seedRows } from '../fixtures/rows.ts';
import { seedWalk, walkEntities } from '../fixtures/walk.ts';
import { eachDialect } from '../helpers/db.ts';

/** The relations fixture, with rows of its entity of remaining scalar types (one of them all NULL where it may be). */
async function seedRelationsAndSamples(em: EntityManager): Promise<void> {
  await seedRelations(em);
  const at = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));
  const base = { small: 1, tiny: 2, medium: 3, ratio: 0.5, initials: 'ab', level: 2, localAt: at };
  em.create(Sample, {
    id: 1,
    ...base,
    blob: Buffer.from([1, 2, 3]),
    labels: ['x', 'y'],
    at: '10:11:12',
    direction: 'up',
  } as never);
  em.create(Sample, {
    id: 2,
    ...base,
    level: 3,
    blob: null,
    labels: null,
    at: null,
    direction: null,
    dashed: 'd-2',
  } as never);
  await em.flush();
  em.clear();
}

interface Fixture {
  readonly name: string;
  readonly entities: readonly Schema<any>[];
  readonly seed: (em: EntityManager) => Promise<void>;
  readonly options?: Record<string, unknown>;
}

const FIXTURES: readonly Fixture[] = [
  { name: 'keys', entities: [KeyedSchema], seed: seedKeyed },
  { name: 'relations', entities: relationEntities as Schema<any>[], seed: seedRelationsAndSamples },
  { name: 'rows', entities: rowEntities, seed: seedRows },
  { name: 'walk', entities: walkEntities, seed: seedWalk },
  { name: 'catalog', entities: catalogEntities, seed: seedCatalog },
  { name: 'library', entities: libraryEntities, seed: seedLibrary, options: libraryOptions },
];

/** Partial selections (what a base scope may select), by entity: property names. */
const SELECTIONS: Readonly<Record<string, readonly string[]>> = {
  Device: ['id', 'price', 'rack', 'on'],
  Entry: ['id', 'label', 'at', 'team'],
  Keyed: ['id', 'flag', 'at', 'big'],
  Sample: ['id', 'blob', 'labels'],
};

/** The same statement read twice: as the driver gives its rows, and mapped by MikroORM (bound execution both). */
async function readBoth(em: EntityManager, meta: EntityMetadata, fields?: readonly string[]) {
  const build = () => {
    const qb = (em as any).createQueryBuilder(meta.class, 'x');
    if (fields) qb.select([...fields]);
    return qb.orderBy(meta.primaryKeys.map((pk) => ({ [pk]: 'asc' })));
  };
  const raw = await executeOwned<Item>(build(), undefined, false);
  const mapped = await executeOwned<Item>(build());
  return { raw, mapped };
}

/** Key order too: a client sees JSON, where order is visible. */
function assertSame(fast: readonly Item[] | undefined, slow: readonly Item[], label: string): void {
  assert.ok(fast, `${label}: the row writer declined`);
  assert.is(fast.length, slow.length, label);
  fast.forEach((item, i) => {
    assert.equal(Object.keys(item), Object.keys(slow[i]!), `${label}, row ${i}: keys`);
    assert.equal(item, slow[i], `${label}, row ${i}`);
  });
}

/** Check the row writer's items against the mapped path's over whole results and pages of two. */
function compare(
  em: EntityManager,
  meta: EntityMetadata,
  raw: readonly Item[],
  mapped: readonly Item[],
  label: string,
) {
  for (const generate of [true, false]) {
    const writer = compileRowWriter(em, meta, { generate });
    assert.ok(writer, `${label}: a row writer`);
    const pages = [[0, raw.length], ...Array.from({ length: Math.ceil(raw.length / 2) }, (_, i) => [2 * i, 2 * i + 2])];
    for (const [from, to] of pages) {
      const page = raw.slice(from, to).map((r) => ({ ...r }));
      const expected = serializeRows(
        em,
        meta.class,
        mapped.slice(from, to).map((r) => ({ ...r })),
      );
      const layout = writer.layout(page[0]!);
      assertSame(layout?.write(page), expected, `${label} ${generate ? 'generated' : 'interpreted'} [${from}, ${to})`);
    }
  }
}

for (const fixture of FIXTURES) {
  eachDialect(
    `walk rows: ${fixture.name}`,
    { entities: fixture.entities, seed: fixture.seed, ...(fixture.options ? { options: fixture.options } : {}) },
    (test) => {
      test('every entity with an item writer has a row writer whose items equal the mapped path', async ({ em }) => {
        let compared = 0;
        for (const entity of fixture.entities) {
          const meta = em.getMetadata().get(entity.meta.class);
          const writer = compileItemWriter(em, meta);
          assert.is(compileRowWriter(em, meta) === undefined, writer === undefined, meta.className);
          if (!writer || meta.embeddable) continue;
          const { raw, mapped } = await readBoth(em, meta);
          if (raw.length === 0) continue;
          // The driver's rows are not what the mapped path hands the writer: this compares two different inputs.
          assert.equal(mapDriverRows(em, meta, raw), mapped, `${meta.className}: MikroORM maps the driver's rows so`);
          compare(em, meta, raw, mapped, meta.className);
          compared++;
        }
        assert.ok(compared > 0, 'the fixture has rows to compare');
      });

      for (const [className, fields] of Object.entries(SELECTIONS)) {
        const entity = fixture.entities.find((e) => e.meta.className === className);
        if (!entity) continue;
        test(`${className}: a partial selection (${fields.join(', ')}) gives the same items`, async ({ em }) => {
          const meta = em.getMetadata().get(entity.meta.class);
          const { raw, mapped } = await readBoth(em, meta, fields);
          assert.ok(raw.length > 0);
          compare(em, meta, raw, mapped, className);
        });
      }
    },
  );
}

/** MySQL's and MariaDB's datetime text, read as UTC: the fast reading equals the general parser's wherever it answers. */
const dates = suite('walk rows: datetime text');
dates('utcDateText() gives what new Date(text + "Z") gives, and leaves unusual text to it', () => {
  const plain = [
    '2020-01-01 00:00:00',
    '2020-01-01 00:00:01.5',
    '2020-01-01 00:00:01.12',
    '2020-01-01 00:00:01.123',
    '2020-01-01 00:00:01.123999',
    '1000-01-01 00:00:00',
    '1969-12-31 23:59:59.999999',
    '2024-02-29 12:34:56.000001',
    '9999-12-31 23:59:59.999999',
  ];
  for (const text of plain) assert.is(utcDateText(text)?.getTime(), new Date(`${text}Z`).getTime(), text);
  const unusual = [
    '0099-01-01 00:00:00', // the general parser reads 1999
    '2021-02-29 10:00:00', // rolls over to March 1st
    '2020-01-01 24:00:00',
    '2020-13-01 00:00:00',
    '2020-01-01 00:00:60',
    '0000-00-00 00:00:00',
    '2020-01-01 00:00:01.',
    '2020-01-01 00:00:01.1234567',
    '2020-01-01T00:00:00',
    '2020-01-01 00:00:0x',
    '2020-01-01 00:00:01.12a',
  ];
  for (const text of unusual) assert.is(utcDateText(text), undefined, text);
  // Every second of a few years' worth of spread instants, with 0 to 6 fraction digits.
  for (let i = 0, t = Date.UTC(1000, 0, 1); t < Date.UTC(9999, 0, 1); i++, t += 86_400_000 * 97 + 3_600_123 * i) {
    const iso = new Date(t).toISOString().replace('T', ' ');
    const text = `${iso.slice(0, 19)}${i % 7 === 0 ? '' : `.${`${iso.slice(20, 23)}${i}`.slice(0, i % 7)}`}`;
    const fast = utcDateText(text);
    const general = new Date(`${text}Z`);
    if (Number.isNaN(general.getTime())) assert.is(fast, undefined, text);
    else assert.is(fast?.getTime(), general.getTime(), text);
  }
});
dates.run();
