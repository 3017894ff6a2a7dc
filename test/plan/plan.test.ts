/**
 * The plan stage on both dialects: the SQL applyResolved() builds for every operator (values only as `?`),
 * LIKE/GLOB escaping checked against real rows, NULLS LAST vs plain asc/desc, primary-key tie-breakers, the base
 * scope kept (where, select, distinct) or replaced (order), and the errors raised before any SQL exists.
 */
import type { EntityManager } from '@mikro-orm/core';
import type { QueryBuilder } from '@mikro-orm/sql';
import * as assert from 'uvu/assert';
import type { BoundRelation, BoundSchema, ResolvedFilter, ResolvedQuery } from '../../src/bind/types.ts';
import { execute } from '../../src/engine/execute.ts';
import { isListError } from '../../src/errors.ts';
import { bindStatement } from '../../src/orm/bound-sql.ts';
import { type ApplyOptions, applyResolved } from '../../src/plan/index.ts';
import { catalogEntities, Product, Stock, seedCatalog } from '../fixtures/catalog.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';
import { explainPlan } from '../helpers/explain.ts';
import { boundFor, query, resolver, spanAt } from '../helpers/resolved.ts';
import {
  expectSql,
  expectSqlIncludes,
  id,
  nullsLast,
  type PerDialectSql,
  type Sql,
  selectFrom,
  sql,
} from '../helpers/sql.ts';

type R = ReturnType<typeof resolver>;
type PerDialect<T> = T | Readonly<Record<Dialect, T>>;

function pick<T>(value: PerDialect<T>, dialect: Dialect): T {
  return typeof value === 'object' && value !== null && 'sqlite' in value && 'postgresql' in value && 'mariadb' in value
    ? (value as Record<Dialect, T>)[dialect]
    : (value as T);
}

function products(em: EntityManager, alias = 'p'): QueryBuilder<Product> {
  return (em as any).createQueryBuilder(Product, alias);
}

interface ShapeRow {
  readonly name: string;
  readonly filter: (r: R) => ResolvedFilter;
  /** The where clause as compiled (andWhere wraps it in one pair of parentheses). */
  readonly where: Sql | PerDialectSql;
  readonly params: PerDialect<readonly unknown[]>;
}

/**
 * A substring test of a column: PostgreSQL's LIKE with a backslash escape, SQLite's GLOB, and MariaDB's LIKE on the
 * column's bytes (`binary`), so case and accents count.
 */
const substringTest = (column: string) => ({
  postgresql: sql`(${id(column)} like ? escape '\\')`,
  sqlite: sql`(${id(column)} glob ?)`,
  mariadb: sql`(binary ${id(column)} like ? escape '!')`,
});

/** startswith: on MariaDB the same test under the collation first, so an index on the column serves a range. */
const prefixTest = (column: string) => ({
  ...substringTest(column),
  mariadb: sql`((${id(column)} like ? escape '!' and binary ${id(column)} like ? escape '!'))`,
});

const SHAPES: readonly ShapeRow[] = [
  { name: 'eq', filter: (r) => r.eq('stock', 7), where: sql`(${id('p.stock')} = ?)`, params: [7] },
  { name: 'ne', filter: (r) => r.ne('stock', 0), where: sql`(${id('p.stock')} <> ?)`, params: [0] },
  { name: 'gt', filter: (r) => r.gt('stock', 0), where: sql`(${id('p.stock')} > ?)`, params: [0] },
  { name: 'gte', filter: (r) => r.gte('rating', 3.25), where: sql`(${id('p.rating')} >= ?)`, params: [3.25] },
  { name: 'lt', filter: (r) => r.lt('price', '10.5'), where: sql`(${id('p.price')} < ?)`, params: ['10.5'] },
  {
    name: 'lte',
    filter: (r) => r.lte('releasedOn', '2024-01-15'),
    where: sql`(${id('p.released_on')} <= ?)`,
    params: ['2024-01-15'],
  },
  {
    name: 'eq on a serialized name uses the column',
    filter: (r) => r.eq('code', 'A-1'),
    where: sql`(${id('p.sku')} = ?)`,
    params: ['A-1'],
  },
  {
    name: 'bigint is bound as its database value',
    filter: (r) => r.eq('views', 9007199254740993n),
    where: sql`(${id('p.views')} = ?)`,
    params: ['9007199254740993'],
  },
  {
    name: 'datetime is bound as its database value',
    filter: (r) => r.gt('createdAt', new Date('2024-01-15T10:00:00.000Z')),
    where: sql`(${id('p.created_at')} > ?)`,
    params: [new Date('2024-01-15T10:00:00.000Z')],
  },
  { name: 'boolean', filter: (r) => r.eq('active', true), where: sql`(${id('p.active')} = ?)`, params: [true] },
  { name: 'in', filter: (r) => r.in('id', [1, 3, 5]), where: sql`(${id('p.id')} in (?, ?, ?))`, params: [1, 3, 5] },
  {
    name: 'not in',
    filter: (r) => r.nin('status', ['draft', 'retired']),
    where: sql`(${id('p.status')} not in (?, ?))`,
    params: ['draft', 'retired'],
  },
  { name: 'is null', filter: (r) => r.isNull('stock'), where: sql`(${id('p.stock')} is null)`, params: [] },
  { name: 'is not null', filter: (r) => r.notNull('stock'), where: sql`(${id('p.stock')} is not null)`, params: [] },
  { name: 'not', filter: (r) => r.not(r.gt('stock', 0)), where: sql`(not (${id('p.stock')} > ?))`, params: [0] },
  {
    name: 'and chain is one parenthesized list',
    filter: (r) => r.and(r.and(r.gt('stock', 0), r.eq('active', true)), r.eq('name', 'Alpha')),
    where: sql`((${id('p.stock')} > ? and ${id('p.active')} = ? and ${id('p.name')} = ?))`,
    params: [0, true, 'Alpha'],
  },
  {
    name: 'or under and keeps its parentheses',
    filter: (r) => r.and(r.gt('stock', 0), r.or(r.eq('name', 'Alpha'), r.eq('name', 'Gamma'))),
    where: sql`((${id('p.stock')} > ? and (${id('p.name')} = ? or ${id('p.name')} = ?)))`,
    params: [0, 'Alpha', 'Gamma'],
  },
  {
    name: 'not over or',
    filter: (r) => r.not(r.or(r.isNull('stock'), r.lt('stock', 1))),
    where: sql`(not ((${id('p.stock')} is null or ${id('p.stock')} < ?)))`,
    params: [1],
  },
  {
    name: 'contains',
    filter: (r) => r.contains('name', 'lph'),
    where: substringTest('p.name'),
    params: { postgresql: ['%lph%'], sqlite: ['*lph*'], mariadb: ['%lph%'] },
  },
  {
    name: 'startswith',
    filter: (r) => r.startswith('name', 'Al'),
    where: prefixTest('p.name'),
    params: { postgresql: ['Al%'], sqlite: ['Al*'], mariadb: ['Al%', 'Al%'] },
  },
  {
    name: 'endswith',
    filter: (r) => r.endswith('description', 'ta'),
    where: substringTest('p.description'),
    params: { postgresql: ['%ta'], sqlite: ['*ta'], mariadb: ['%ta'] },
  },
  {
    name: 'LIKE wildcards and backslash are escaped in the pattern',
    filter: (r) => r.contains('name', '%_\\!'),
    where: substringTest('p.name'),
    params: { postgresql: ['%\\%\\_\\\\!%'], sqlite: ['*%_\\!*'], mariadb: ['%!%!_\\!!%'] },
  },
  {
    name: 'GLOB wildcards and brackets are escaped in the pattern',
    filter: (r) => r.startswith('name', '*?[]'),
    where: prefixTest('p.name'),
    params: { postgresql: ['*?[]%'], sqlite: ['[*][?][[]]*'], mariadb: ['*?[]%', '*?[]%'] },
  },
  {
    name: 'an injection payload stays a value',
    filter: (r) => r.eq('name', "x' OR 1=1 --"),
    where: sql`(${id('p.name')} = ?)`,
    params: ["x' OR 1=1 --"],
  },
];

interface SortRow {
  readonly name: string;
  readonly entity: 'product' | 'stock';
  readonly sort: (r: R) => ResolvedQuery['sort'];
  readonly orderBy: Sql;
}

const SORTS: readonly SortRow[] = [
  { name: 'no sort: the primary key', entity: 'product', sort: () => [], orderBy: sql`${id('p.id')} asc` },
  {
    name: 'nullable asc: nulls last, then the key',
    entity: 'product',
    sort: (r) => [r.asc('stock')],
    orderBy: sql`${nullsLast('p.stock', 'asc')}, ${id('p.id')} asc`,
  },
  {
    name: 'nullable desc: nulls last too',
    entity: 'product',
    sort: (r) => [r.desc('stock')],
    orderBy: sql`${nullsLast('p.stock', 'desc')}, ${id('p.id')} asc`,
  },
  {
    name: 'NOT NULL asc: plain',
    entity: 'product',
    sort: (r) => [r.asc('name')],
    orderBy: sql`${id('p.name')} asc, ${id('p.id')} asc`,
  },
  {
    name: 'NOT NULL desc: plain',
    entity: 'product',
    sort: (r) => [r.desc('createdAt')],
    orderBy: sql`${id('p.created_at')} desc, ${id('p.id')} asc`,
  },
  {
    name: 'the key requested is not repeated',
    entity: 'product',
    sort: (r) => [r.desc('id')],
    orderBy: sql`${id('p.id')} desc`,
  },
  {
    name: 'several keys in the order given',
    entity: 'product',
    sort: (r) => [r.desc('price'), r.asc('code'), r.asc('active')],
    orderBy: sql`${nullsLast('p.price', 'desc')}, ${id('p.sku')} asc, ${nullsLast('p.active', 'asc')}, ${id('p.id')} asc`,
  },
  {
    name: 'composite key: both columns appended in key order',
    entity: 'stock',
    sort: () => [],
    orderBy: sql`${id('s.warehouse')} asc, ${id('s.bin')} asc`,
  },
  {
    name: 'composite key after a nullable key',
    entity: 'stock',
    sort: (r) => [r.desc('qty')],
    orderBy: sql`${nullsLast('s.qty', 'desc')}, ${id('s.warehouse')} asc, ${id('s.bin')} asc`,
  },
  {
    name: 'composite key: only the missing column is appended',
    entity: 'stock',
    sort: (r) => [r.desc('bin')],
    orderBy: sql`${id('s.bin')} desc, ${id('s.warehouse')} asc`,
  },
  {
    name: 'composite key fully requested',
    entity: 'stock',
    sort: (r) => [r.desc('warehouse'), r.desc('bin')],
    orderBy: sql`${id('s.warehouse')} desc, ${id('s.bin')} desc`,
  },
];

interface ErrorRow {
  readonly name: string;
  readonly query: (r: R, bound: BoundSchema) => ResolvedQuery;
  readonly options?: ApplyOptions;
  readonly code: string;
  readonly parameter: string;
  readonly position?: { offset: number; line: number; column: number };
}

/** A hand-built relation whose property is a scalar: no association to correlate or join. */
function relationRef(r: R, bound: BoundSchema, offset: number) {
  const relation: BoundRelation = {
    publicName: 'maker',
    property: 'maker',
    cardinality: 'one',
    prop: bound.meta.properties.id as any,
    target: bound,
  };
  return { ...r.ref('name'), relations: [relation], span: spanAt(offset, 10) };
}

const ERRORS: readonly ErrorRow[] = [
  {
    name: 'cursor needs the engine',
    query: () => query({ cursor: 'abc' }),
    code: 'invalid_parameter',
    parameter: 'cursor',
  },
  {
    name: 'search needs the engine',
    query: () => query({ search: 'x' }),
    code: 'invalid_parameter',
    parameter: 'search',
  },
  {
    name: 'limit over the default maximum',
    query: () => query({ limit: 101 }),
    code: 'limit_exceeded',
    parameter: 'limit',
  },
  {
    name: 'limit over a configured maximum',
    query: () => query({ limit: 11 }),
    options: { maxLimit: 10 },
    code: 'limit_exceeded',
    parameter: 'limit',
  },
  {
    name: 'a default limit over the maximum',
    query: () => query(),
    options: { defaultLimit: 50, maxLimit: 10 },
    code: 'limit_exceeded',
    parameter: 'limit',
  },
  {
    name: 'offset over the default maximum',
    query: () => query({ offset: 100_001 }),
    code: 'limit_exceeded',
    parameter: 'offset',
  },
  {
    name: 'offset over a configured maximum',
    query: () => query({ offset: 6 }),
    options: { maxOffset: 5 },
    code: 'limit_exceeded',
    parameter: 'offset',
  },
  {
    name: 'a filter path through a property that is not an association',
    query: (r, b) =>
      query({
        filter: r.and(r.gt('stock', 0), {
          kind: 'null',
          target: relationRef(r, b, 16),
          negated: false,
          span: spanAt(16),
        }),
      }),
    code: 'invalid_relationship',
    parameter: 'filter',
    position: { offset: 16, line: 1, column: 17 },
  },
  {
    name: 'a variable used outside any quantifier',
    query: (r) =>
      query({
        filter: r.not({
          kind: 'null',
          target: { ...r.ref('name'), variable: 'o', span: spanAt(4) },
          negated: true,
          span: spanAt(4),
        }),
      }),
    code: 'invalid_relationship',
    parameter: 'filter',
    position: { offset: 4, line: 1, column: 5 },
  },
  {
    name: 'a quantifier without a to-many relation',
    query: (r) =>
      query({
        filter: r.or(r.isNull('stock'), {
          kind: 'quantifier',
          quantifier: 'any',
          relations: [],
          variable: 'o',
          predicate: r.isNull('stock'),
          span: spanAt(17),
        }),
      }),
    code: 'invalid_relationship',
    parameter: 'filter',
    position: { offset: 17, line: 1, column: 18 },
  },
  {
    name: 'a sort path through a property that is not an association',
    query: (r, b) => query({ sort: [r.asc('name'), { target: relationRef(r, b, 5), direction: 'desc' }] }),
    code: 'invalid_relationship',
    parameter: 'sort',
    position: { offset: 5, line: 1, column: 6 },
  },
];

eachDialect('plan: SQL per operator', { entities: catalogEntities }, (test, dialect) => {
  for (const row of SHAPES) {
    test(row.name, async ({ db, em }) => {
      const bound = boundFor(db.orm, Product);
      const qb = applyResolved(products(em), bound, query({ filter: row.filter(resolver(bound)) }));
      const text = qb.getQuery();
      expectSql(
        text,
        sql`${selectFrom('product', 'p')} where ${row.where} order by ${id('p.id')} asc limit ?`,
        dialect,
      );
      assert.equal(qb.getParams(), [...pick(row.params, dialect), 20]);
      for (const p of qb.getParams())
        if (typeof p === 'string' && p.length > 1) assert.not.ok(text.includes(p), `literal ${p} in SQL`);
      await execute<Product>(qb); // the stated SQL runs
    });
  }
});

eachDialect('plan: effective sort', { entities: catalogEntities }, (test, dialect) => {
  for (const row of SORTS) {
    test(row.name, async ({ db, em }) => {
      const entity = row.entity === 'product' ? Product : Stock;
      const alias = row.entity === 'product' ? 'p' : 's';
      const bound = boundFor(db.orm, entity);
      const base = (em as any).createQueryBuilder(entity, alias);
      const qb = applyResolved(base, bound, query({ sort: row.sort(resolver(bound)) }));
      expectSql(qb.getQuery(), sql`${selectFrom(row.entity, alias)} order by ${row.orderBy} limit ?`, dialect);
      await execute(qb); // the stated SQL runs
    });
  }
});

eachDialect('plan: the base scope', { entities: catalogEntities, seed: seedCatalog }, (test, dialect) => {
  test('its order is replaced by the effective sort', async ({ db, em }) => {
    const bound = boundFor(db.orm, Product);
    const r = resolver(bound);
    const base = products(em).orderBy({ name: 'desc', id: 'desc' });
    const qb = applyResolved(base, bound, query({ sort: [r.asc('stock')] }));
    expectSql(
      qb.getQuery(),
      sql`${selectFrom('product', 'p')} order by ${nullsLast('p.stock', 'asc')}, ${id('p.id')} asc limit ?`,
      dialect,
    );
    // Stocks: 4 (-5), 3 (0), 5 (7), 1 (10), then 2 and 6 (NULL), last.
    assert.equal(
      (await execute<Product>(qb)).map((p) => p.id),
      [4, 3, 5, 1, 2, 6],
    );
  });
  test('its where is kept and the filter ANDed to it', async ({ db, em }) => {
    const bound = boundFor(db.orm, Product);
    const r = resolver(bound);
    const base = products(em).where({ status: 'active' });
    const qb = applyResolved(base, bound, query({ filter: r.or(r.gt('stock', 7), r.isNull('stock')) }));
    expectSql(
      qb.getQuery(),
      sql`${selectFrom('product', 'p')} where ${id('p.status')} = ? and ((${id('p.stock')} > ? or ${id('p.stock')} is null)) order by ${id('p.id')} asc limit ?`,
      dialect,
    );
    assert.equal(qb.getParams(), ['active', 7, 20]);
    // active rows: 1 (stock 10), 4 (-5), 5 (7): only 1 passes; 2 and 6 have NULL stock but are drafts.
    assert.equal(
      (await execute<Product>(qb)).map((p) => p.id),
      [1],
    );
  });
  test('its select and distinct are kept', async ({ db, em }) => {
    const bound = boundFor(db.orm, Product);
    const r = resolver(bound);
    const base = products(em).select(['id', 'name'], true);
    const qb = applyResolved(base, bound, query({ filter: r.gt('stock', 0) }));
    expectSql(
      qb.getQuery(),
      sql`select distinct ${id('p.id')}, ${id('p.name')} from ${id('product')} as ${id('p')} where (${id('p.stock')} > ?) order by ${id('p.id')} asc limit ?`,
      dialect,
    );
    assert.equal(
      (await execute<Product>(qb)).map((p) => p.id),
      [1, 5],
    );
  });
  test('its alias is used for every column', async ({ db, em }) => {
    const bound = boundFor(db.orm, Product);
    const r = resolver(bound);
    const qb = applyResolved(
      products(em, 'prod'),
      bound,
      query({ filter: r.gt('stock', 0), sort: [r.desc('rating')] }),
    );
    expectSql(
      qb.getQuery(),
      sql`${selectFrom('product', 'prod')} where (${id('prod.stock')} > ?) order by ${nullsLast('prod.rating', 'desc')}, ${id('prod.id')} asc limit ?`,
      dialect,
    );
    assert.equal((await execute<Product>(qb)).length, 2);
  });
  test('the caller’s query builder is neither changed nor finalized', ({ db, em }) => {
    const bound = boundFor(db.orm, Product);
    const r = resolver(bound);
    const base = products(em).where({ status: 'active' }).orderBy({ name: 'desc' });
    const before = base.clone().getQuery();
    applyResolved(base, bound, query({ filter: r.gt('stock', 0), sort: [r.asc('stock')], limit: 3, offset: 1 }));
    assert.is(base.clone().getQuery(), before);
    base.andWhere({ id: 1 }); // throws if finalized
    expectSqlIncludes(base.getQuery(), sql`${id('p.id')} = ?`, dialect);
  });
  test('limit and offset are set', ({ db, em }) => {
    const bound = boundFor(db.orm, Product);
    const qb = applyResolved(products(em), bound, query({ limit: 5, offset: 10 }));
    assert.ok(qb.getQuery().endsWith(' limit ? offset ?'));
    assert.equal(qb.getParams(), [5, 10]);
  });
  test('a limit equal to the maximum and an offset equal to the maximum pass', ({ db, em }) => {
    const bound = boundFor(db.orm, Product);
    const qb = applyResolved(products(em), bound, query({ limit: 100, offset: 100_000 }));
    assert.equal(qb.getParams(), [100, 100_000]);
  });
  test('the default limit comes from the options', ({ db, em }) => {
    const bound = boundFor(db.orm, Product);
    const qb = applyResolved(products(em), bound, query(), { defaultLimit: 7 });
    assert.equal(qb.getParams(), [7]);
  });
});

eachDialect('plan: errors before any SQL', { entities: catalogEntities }, (test) => {
  for (const row of ERRORS) {
    test(row.name, ({ db, em }) => {
      const bound = boundFor(db.orm, Product);
      const base = products(em);
      const before = base.clone().getQuery();
      try {
        applyResolved(base, bound, row.query(resolver(bound), bound), row.options);
        assert.unreachable('no error');
      } catch (err) {
        if (!isListError(err)) throw err;
        assert.is(err.code, row.code);
        assert.is(err.parameter, row.parameter);
        assert.equal(err.position, row.position);
      }
      assert.is(base.clone().getQuery(), before);
    });
  }
});

/** One extra row with non-ASCII letters and a bracket, beside the catalog, for the substring tests. */
async function seedWithExtra(em: EntityManager): Promise<void> {
  await seedCatalog(em);
  const extra = {
    id: 7,
    name: 'Über [x] ärger',
    sku: 'U-1',
    status: 'draft',
    views: 1n,
    uuid: '0b6a1c52-5f3c-4f0e-9f5e-000000000007',
  };
  em.create(Product, { ...extra, createdAt: new Date('2024-01-01T00:00:00.000Z') } as Product);
  const bang = { ...extra, id: 8, name: 'Bang!_1%!', sku: 'X-8', uuid: '0b6a1c52-5f3c-4f0e-9f5e-000000000008' };
  em.create(Product, { ...bang, createdAt: new Date('2024-01-01T00:00:00.000Z') } as Product);
  await em.flush();
}

interface LikeRow {
  readonly name: string;
  readonly filter: (r: R) => ResolvedFilter;
  readonly ids: readonly number[];
}

// Names: 1 Alpha, 2 alpha, 3 Beta_1, 4 Beta\2, 5 O'Brien 100%, 6 Gamma, 7 Über [x] ärger, 8 Bang!_1%!.
// Descriptions: 1 'first % product', 2 NULL, 3 'under_score', 4 'back\slash', 5 'ALPHA beta', 6 NULL, 7 NULL.
const LIKES: readonly LikeRow[] = [
  { name: 'contains is case-sensitive', filter: (r) => r.contains('name', 'Alph'), ids: [1] },
  { name: 'contains lower case', filter: (r) => r.contains('name', 'lpha'), ids: [1, 2] },
  { name: 'startswith is case-sensitive', filter: (r) => r.startswith('name', 'a'), ids: [2] },
  { name: 'endswith', filter: (r) => r.endswith('name', 'a'), ids: [1, 2, 6] },
  {
    name: 'empty contains matches every non-NULL value',
    filter: (r) => r.contains('description', ''),
    ids: [1, 3, 4, 5],
  },
  {
    name: 'empty startswith on a NOT NULL column matches all',
    filter: (r) => r.startswith('name', ''),
    ids: [1, 2, 3, 4, 5, 6, 7, 8],
  },
  { name: '% is literal', filter: (r) => r.contains('name', '%'), ids: [5, 8] },
  { name: '! is literal', filter: (r) => r.contains('name', '!'), ids: [8] },
  { name: '! before _ is literal', filter: (r) => r.contains('name', 'g!_1'), ids: [8] },
  { name: '! before % is literal', filter: (r) => r.endswith('name', '%!'), ids: [8] },
  { name: '! in startswith is literal', filter: (r) => r.startswith('name', 'Bang!_'), ids: [8] },
  { name: '! before a plain character is literal', filter: (r) => r.contains('name', '!1'), ids: [] },
  {
    name: 'startswith is case-sensitive under a case-blind collation',
    filter: (r) => r.startswith('name', 'bang'),
    ids: [],
  },
  { name: 'endswith is case-sensitive', filter: (r) => r.endswith('name', 'GAMMA'), ids: [] },
  { name: 'non-ASCII is accent-sensitive', filter: (r) => r.startswith('name', 'Uber'), ids: [] },
  { name: '% is literal in startswith', filter: (r) => r.startswith('name', 'Beta%'), ids: [] },
  { name: '_ is literal', filter: (r) => r.startswith('name', 'Beta_'), ids: [3] },
  { name: 'backslash is literal', filter: (r) => r.contains('name', '\\'), ids: [4] },
  { name: 'backslash before a wildcard', filter: (r) => r.contains('description', 'k\\s'), ids: [4] },
  { name: 'apostrophe', filter: (r) => r.startswith('name', "O'B"), ids: [5] },
  { name: '* is literal', filter: (r) => r.contains('name', '*'), ids: [] },
  { name: '? is literal', filter: (r) => r.endswith('name', '?'), ids: [] },
  { name: '[ is literal', filter: (r) => r.contains('name', '[a]'), ids: [] },
  { name: 'a bracketed run matches itself', filter: (r) => r.contains('name', ' [x] '), ids: [7] },
  { name: 'non-ASCII matches exactly', filter: (r) => r.startswith('name', 'Über'), ids: [7] },
  { name: 'non-ASCII is case-sensitive', filter: (r) => r.contains('name', 'ÜBER'), ids: [] },
  { name: 'non-ASCII lower case', filter: (r) => r.endswith('name', 'ärger'), ids: [7] },
  { name: 'upper case in a description', filter: (r) => r.contains('description', 'ALPHA'), ids: [5] },
  { name: 'not contains excludes NULL', filter: (r) => r.not(r.contains('description', 'a')), ids: [1, 3] },
];

eachDialect('plan: substring tests on real rows', { entities: catalogEntities, seed: seedWithExtra }, (test) => {
  for (const row of LIKES) {
    test(row.name, async ({ db, em }) => {
      const bound = boundFor(db.orm, Product);
      const qb = applyResolved(products(em), bound, query({ filter: row.filter(resolver(bound)) }));
      assert.equal(
        (await execute<Product>(qb)).map((p) => p.id),
        row.ids,
      );
    });
  }
});

/** The catalog, 300 more rows, and an index on `name` that a prefix test can seek (PostgreSQL: pattern_ops). */
async function seedIndexedNames(em: EntityManager, dialect: Dialect): Promise<void> {
  await seedCatalog(em);
  for (let id = 100; id < 400; id++)
    em.create(Product, {
      id,
      name: `N${id}`,
      sku: `S${id}`,
      status: 'draft',
      views: 1n,
      createdAt: new Date('2024-01-01T00:00:00.000Z'),
      uuid: '0b6a1c52-5f3c-4f0e-9f5e-000000000100',
    } as Product);
  await em.flush();
  const ops = dialect === 'postgresql' ? ' text_pattern_ops' : '';
  await em.getConnection().execute(`create index product_name_idx on product (name${ops})`);
}

/**
 * startswith is index-friendly: SQLite's GLOB prefix and MariaDB's collation LIKE (before the exact test on the
 * bytes) become a range on an index of the column; PostgreSQL's LIKE does on a `text_pattern_ops` index (or a "C"
 * collation column). The rows stay exact: `al` finds no `Alpha`, `Al` finds it.
 */
eachDialect(
  'plan: startswith seeks an index',
  { entities: catalogEntities, seed: seedIndexedNames },
  (test, dialect) => {
    for (const [prefix, ids] of [
      ['Al', [1]],
      ['al', [2]],
    ] as const) {
      test(`startswith '${prefix}'`, async ({ db, em }) => {
        const bound = boundFor(db.orm, Product);
        const qb = applyResolved(products(em), bound, query({ filter: resolver(bound).startswith('name', prefix) }));
        assert.equal(
          (await execute<Product>(qb.clone())).map((p) => p.id),
          [...ids],
        );
        // The statement as the driver receives it (PostgreSQL's placeholders are numbered).
        const statement = bindStatement(em.getPlatform(), qb.getQuery(), qb.getParams());
        const plan = await explainPlan(db, statement.sql, statement.parameters, { noSeqScan: true });
        const seeks = {
          sqlite: /USING INDEX product_name_idx \(name>\? AND name<\?\)/,
          mariadb: /p range key=product_name_idx/,
          postgresql: /Index (Only )?Scan (using|on) product_name_idx[\s\S]*Index Cond: \(\(\(?name\)?::text ~>=~/,
        }[dialect];
        assert.match(plan, seeks, plan);
      });
    }
  },
);
