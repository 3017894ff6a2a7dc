/**
 * The keyset predicate of DESIGN §5.7: its SQL for each shape of effective sort, and, on every database, proof that
 * the row-value form, the plain expansion and the split branches (PostgreSQL's, and MySQL's: always split, no row
 * values) select exactly the rows after the cursor row, for every row of the fixture taken as the cursor.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execute } from '../../src/engine/execute.ts';
import { branchOrder } from '../../src/keyset/seek-page.ts';
import {
  type KeysetColumn,
  keysetBranches,
  keysetPredicate,
  leadingGroupBranches,
} from '../../src/keyset/seek-predicate.ts';
import type { SortKey } from '../../src/plan/order.ts';
import { Entry, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { eachDialect } from '../helpers/db.ts';
import { type Comparable, orderBy } from '../helpers/walk.ts';

const col = (name: string, direction: 'asc' | 'desc', nullable = false): KeysetColumn => ({
  sql: `"${name}"`,
  direction,
  nullable,
});

interface ShapeRow {
  readonly name: string;
  readonly columns: readonly KeysetColumn[];
  readonly values: readonly unknown[];
  readonly sql: string;
  readonly params: readonly unknown[];
  /** The plain expansion, when it differs from the row-value form. */
  readonly plain?: string;
}

const SHAPES: readonly ShapeRow[] = [
  { name: 'one NOT NULL key', columns: [col('id', 'asc')], values: [7], sql: '("id" > ?)', params: [7] },
  { name: 'one key descending', columns: [col('id', 'desc')], values: [7], sql: '("id" < ?)', params: [7] },
  {
    name: 'a run of NOT NULL keys, one direction: one row value',
    columns: [col('at', 'asc'), col('id', 'asc')],
    values: ['t', 7],
    sql: '(("at", "id") > (?, ?))',
    params: ['t', 7],
    plain: '("at" >= ? and (("at" > ?) or ("at" = ? and "id" > ?)))',
  },
  {
    name: 'a descending run',
    columns: [col('at', 'desc'), col('id', 'desc')],
    values: ['t', 7],
    sql: '(("at", "id") < (?, ?))',
    params: ['t', 7],
  },
  {
    name: 'mixed directions: a leading bound, then branches',
    columns: [col('score', 'desc'), col('id', 'asc')],
    values: [3, 7],
    sql: '("score" <= ? and (("score" < ?) or ("score" = ? and "id" > ?)))',
    params: [3, 3, 3, 7],
  },
  {
    name: 'a nullable key with a value: NULLs come after it',
    columns: [col('score', 'asc', true), col('id', 'asc')],
    values: [3, 7],
    sql: '((("score" > ? or "score" is null)) or ("score" = ? and "id" > ?))',
    params: [3, 3, 7],
  },
  {
    name: 'a nullable key at NULL: no branch for it, equality is IS NULL',
    columns: [col('score', 'desc', true), col('id', 'asc')],
    values: [null, 7],
    sql: '("score" is null and "id" > ?)',
    params: [7],
  },
  {
    name: 'a nullable key between two runs',
    columns: [col('a', 'asc'), col('b', 'asc'), col('n', 'desc', true), col('c', 'asc'), col('id', 'asc')],
    values: [1, 2, 5, 3, 9],
    sql:
      '(("a", "b") >= (?, ?) and ((("a", "b") > (?, ?)) or ("a" = ? and "b" = ? and ("n" < ? or "n" is null)) or ' +
      '("a" = ? and "b" = ? and "n" = ? and ("c", "id") > (?, ?))))',
    params: [1, 2, 1, 2, 1, 2, 5, 1, 2, 5, 3, 9],
  },
  {
    name: 'nothing comes after the last NULL of a NOT NULL-free sort',
    columns: [col('n', 'asc', true)],
    values: [null],
    sql: '(1 = 0)',
    params: [],
  },
];

for (const row of SHAPES) {
  test(`keyset SQL: ${row.name}`, () => {
    const out = keysetPredicate(row.columns, row.values);
    assert.is(out.sql, row.sql);
    assert.equal(out.params, row.params);
    if (row.plain) assert.is(keysetPredicate(row.columns, row.values, { rowValues: false }).sql, row.plain);
  });
}

test('keyset branches: a nullable key with a value splits into range and IS NULL branches', () => {
  const out = keysetBranches([col('score', 'desc', true), col('id', 'asc')], [5, 9]);
  // Each branch says which keys it holds constant (settled) and which it compares (nonNull): see branchOrder.
  assert.equal(out, [
    { sql: '("score" < ?)', params: [5], settled: 0, nonNull: 1 },
    { sql: '("score" is null)', params: [], settled: 1, nonNull: 0 },
    { sql: '("score" = ? and "id" > ?)', params: [5, 9], settled: 1, nonNull: 1 },
  ]);
  assert.is(keysetBranches([col('score', 'desc', true), col('id', 'asc')], [null, 9]), undefined);
  assert.is(keysetBranches([col('created', 'desc'), col('id', 'asc')], ['x', 9]), undefined);
});

test('keyset branches, always (MySQL): a single branch too, and no row values when asked', () => {
  const always = { always: true, rowValues: false } as const;
  assert.equal(keysetBranches([col('score', 'desc', true), col('id', 'asc')], [null, 9], always), [
    { sql: '("score" is null and "id" > ?)', params: [9], settled: 1, nonNull: 1 },
  ]);
  assert.equal(
    keysetBranches([col('a', 'asc'), col('b', 'asc'), col('n', 'asc', true), col('id', 'asc')], [1, 2, 3, 4], always),
    [
      { sql: '("a" > ?)', params: [1], settled: 0, nonNull: 1 },
      { sql: '("a" = ? and "b" > ?)', params: [1, 2], settled: 1, nonNull: 1 },
      { sql: '("a" = ? and "b" = ? and "n" > ?)', params: [1, 2, 3], settled: 2, nonNull: 1 },
      { sql: '("a" = ? and "b" = ? and "n" is null)', params: [1, 2], settled: 3, nonNull: 0 },
      { sql: '("a" = ? and "b" = ? and "n" = ? and "id" > ?)', params: [1, 2, 3, 4], settled: 3, nonNull: 1 },
    ],
  );
  // With row values, a NOT NULL run is one unit: the branch compares both of its keys.
  assert.equal(
    keysetBranches([col('a', 'asc'), col('b', 'asc'), col('n', 'asc', true)], [1, 2, 3], { always: true })?.[0],
    {
      sql: '(("a", "b") > (?, ?))',
      params: [1, 2],
      settled: 0,
      nonNull: 2,
    },
  );
  assert.is(keysetBranches([col('n', 'asc', true)], [null], always), undefined, 'nothing after the last NULL');
});

test('branchOrder: constant keys left out, compared keys without NULL placement, the rest as they are', () => {
  const keys: SortKey[] = [
    { column: 'n', direction: 'asc', nullable: true },
    { column: 'm', direction: 'desc', nullable: true, nullsFirst: true },
    { column: 'id', direction: 'asc', nullable: false },
  ];
  assert.equal(branchOrder(keys, { sql: '', params: [], settled: 0, nonNull: 1 }), [
    { column: 'n', direction: 'asc', nullable: false },
    keys[1],
    keys[2],
  ]);
  assert.equal(branchOrder(keys, { sql: '', params: [], settled: 1, nonNull: 1 }), [
    { column: 'm', direction: 'desc', nullable: false },
    keys[2],
  ]);
  assert.equal(branchOrder(keys, { sql: '', params: [], settled: 2, nonNull: 1 }), [keys[2]]);
});

/** A column of a backward page's mirrored order: the other direction, NULLs first. */
const mirror = (c: KeysetColumn): KeysetColumn => ({
  ...c,
  direction: c.direction === 'asc' ? 'desc' : 'asc',
  nullsFirst: true,
});

const MIRRORED: readonly ShapeRow[] = [
  {
    name: 'before a value of a nullable key: no NULL precedes it, so the key bounds every branch',
    columns: [mirror(col('score', 'asc', true)), mirror(col('id', 'asc'))],
    values: [3, 7],
    sql: '("score" <= ? and (("score" < ?) or ("score" = ? and "id" < ?)))',
    params: [3, 3, 3, 7],
  },
  {
    name: 'before a NULL of a nullable key: every value precedes it, then the NULLs before it',
    columns: [mirror(col('score', 'desc', true)), mirror(col('id', 'asc'))],
    values: [null, 7],
    sql: '(("score" is not null) or ("score" is null and "id" < ?))',
    params: [7],
  },
  {
    name: 'before, over a NOT NULL run: the mirrored row value',
    columns: [mirror(col('at', 'asc')), mirror(col('id', 'asc'))],
    values: ['t', 7],
    sql: '(("at", "id") < (?, ?))',
    params: ['t', 7],
  },
];

for (const row of MIRRORED) {
  test(`keyset SQL, mirrored for a backward page: ${row.name}`, () => {
    const out = keysetPredicate(row.columns, row.values);
    assert.is(out.sql, row.sql);
    assert.equal(out.params, row.params);
  });
}

test('keyset branches, mirrored: a NULL cursor value splits into IS NOT NULL and the NULLs before it', () => {
  const columns = [mirror(col('score', 'desc', true)), mirror(col('id', 'asc'))];
  assert.equal(keysetBranches(columns, [null, 9]), [
    { sql: '("score" is not null)', params: [], settled: 0, nonNull: 1 },
    { sql: '("score" is null and "id" < ?)', params: [9], settled: 1, nonNull: 1 },
  ]);
  assert.is(keysetBranches(columns, [5, 9]), undefined, 'before a value: one comparison per key, nothing to split');
});

test('keyset SQL: columns and values must pair up', () => {
  assert.throws(() => keysetPredicate([col('id', 'asc')], []));
});

test.run();

/** Sorts over raw columns whose values the drivers return exactly; every row of the fixture serves as cursor. */
interface EquivalenceRow {
  readonly sort: string;
  readonly keys: readonly { name: string; column: string; nullable: boolean }[];
}

const KEY = {
  id: { name: 'id', column: 'entry_id', nullable: false },
  score: { name: 'score', column: 'score_value', nullable: true },
  title: { name: 'title', column: 'label_text', nullable: false },
  flag: { name: 'flag', column: 'flag_value', nullable: true },
  ratio: { name: 'ratio', column: 'ratio_value', nullable: true },
  tenant: { name: 'tenant', column: 'tenant_key', nullable: false },
} as const;

const EQUIVALENCE: readonly EquivalenceRow[] = [
  { sort: 'title', keys: [KEY.title, KEY.id] },
  { sort: '-title,-id', keys: [KEY.title, KEY.id] },
  { sort: 'score', keys: [KEY.score, KEY.id] },
  { sort: '-score,title', keys: [KEY.score, KEY.title, KEY.id] },
  { sort: 'title,-score,-id', keys: [KEY.title, KEY.score, KEY.id] },
  { sort: 'flag,ratio,-title', keys: [KEY.flag, KEY.ratio, KEY.title, KEY.id] },
  { sort: 'title,-flag', keys: [KEY.title, KEY.flag, KEY.id] },
  // NOT NULL keys of mixed directions: split at their leading group on PostgreSQL and SQLite.
  { sort: 'tenant,-title', keys: [KEY.tenant, KEY.title, KEY.id] },
  { sort: '-title,tenant,-id', keys: [KEY.title, KEY.tenant, KEY.id] },
];

type Raw = Record<string, unknown>;

/** The branches MySQL and MariaDB pages use: always split, no row values. */
const MYSQL_BRANCHES = { always: true, rowValues: false } as const;

eachDialect('keyset forms select the same rows', { entities: walkEntities, seed: seedWalk }, (dialectTest) => {
  for (const row of EQUIVALENCE) {
    dialectTest(
      `sort=${row.sort}: row values ≡ expansion ≡ the rows after (mirrored: before) the cursor`,
      async ({ em }) => {
        const platform = em.getPlatform();
        const select = row.keys.map((k) => `${k.column} as ${k.name}`).join(', ');
        const rows = (await em.getConnection().execute(`select ${select} from walk_entry`)) as Raw[];
        const getters = Object.fromEntries(row.keys.map((k) => [k.name, (r: Raw) => normalize(r[k.name])]));
        const ordered = orderBy(rows, row.sort, getters, ['id']).map((r) => r.id as number);
        const directions = new Map(
          row.sort
            .split(',')
            .map((t) => (t.startsWith('-') ? [t.slice(1), 'desc'] : [t, 'asc']) as [string, 'asc' | 'desc']),
        );
        const columns = row.keys.map((k) => ({
          sql: platform.quoteIdentifier(`e.${k.column}`),
          direction: directions.get(k.name) ?? 'asc',
          nullable: k.nullable,
        }));
        const mirrored = columns.map(mirror);
        for (const cursor of rows) {
          const values = row.keys.map((k) => cursor[k.name]);
          // Mirrored (a backward page): exactly the rows before the cursor, in both forms and as branches.
          const before = ordered.slice(0, ordered.indexOf(cursor.id as number)).sort((a, b) => a - b);
          const mirroredForms = [true, false].map((rowValues) => keysetPredicate(mirrored, values, { rowValues }));
          const mirroredBranches = [
            ...[{}, MYSQL_BRANCHES].map((options) => keysetBranches(mirrored, values, options)),
            leadingGroupBranches(mirrored, values),
          ];
          for (const [i, fragments] of [...mirroredForms.map((f) => [f]), ...mirroredBranches].entries()) {
            if (!fragments) continue;
            const got: number[] = [];
            for (const f of fragments) {
              const qb = (em as any)
                .createQueryBuilder(Entry, 'e')
                .select(['id'])
                .where(f.sql, [...f.params]);
              got.push(...(await execute<{ id: number }>(qb)).map((r) => r.id));
            }
            assert.equal(
              got.sort((a, b) => a - b),
              before,
              `before the cursor at id ${String(cursor.id)}, form ${i}`,
            );
          }
          const expected = ordered.slice(ordered.indexOf(cursor.id as number) + 1).sort((a, b) => a - b);
          for (const rowValues of [true, false]) {
            const predicate = keysetPredicate(columns, values, { rowValues });
            const qb = (em as any)
              .createQueryBuilder(Entry, 'e')
              .select(['id'])
              .where(predicate.sql, [...predicate.params])
              .orderBy({ id: 'asc' });
            const ids = (await execute<{ id: number }>(qb)).map((r) => r.id);
            assert.equal(ids, expected, `cursor at id ${String(cursor.id)}, rowValues ${rowValues}`);
          }
          // The seekable branches of a UNION ALL page: disjoint (no id twice), together exactly the rows after. Also
          // the two of a sort of mixed directions (its leading group, and after it), where the sort has three units.
          for (const options of [{}, MYSQL_BRANCHES, 'leading group'] as const) {
            const branches =
              options === 'leading group'
                ? leadingGroupBranches(columns, values)
                : keysetBranches(columns, values, options);
            if (
              options !== 'leading group' &&
              row.keys.some((k) => k.nullable) &&
              cursor[row.keys.find((k) => k.nullable)!.name] !== null
            )
              assert.ok(branches, `cursor at id ${String(cursor.id)}: a nullable key with a value splits`);
            if (!branches) continue;
            const union: number[] = [];
            for (const branch of branches) {
              const qb = (em as any)
                .createQueryBuilder(Entry, 'e')
                .select(['id'])
                .where(branch.sql, [...branch.params]);
              union.push(...(await execute<{ id: number }>(qb)).map((r) => r.id));
            }
            assert.equal(
              union.sort((a, b) => a - b),
              expected,
              `branches ${JSON.stringify(options)}, cursor at id ${String(cursor.id)}`,
            );
          }
        }
      },
    );
  }
});

/** Booleans come back as 0/1 on SQLite and true/false on PostgreSQL; both order false first. */
function normalize(value: unknown): Comparable {
  if (typeof value === 'boolean') return Number(value);
  return value as Comparable;
}
