/**
 * The catalog endpoint for the property tests: the policy the library binds, the reference's own description of
 * the same endpoint, and a seeded generator of Product rows (every scalar kind, many NULLs and repeats).
 */
import type { EntityManager } from '@mikro-orm/core';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { Product } from '../fixtures/catalog.ts';
import type { EntitySpec, FieldSpec, Op, Row } from './model.ts';
import { drawValue, STATUSES } from './pools.ts';
import { createRandom } from './random.ts';
import type { Kind } from './values.ts';

/** What `filterable()` enables by default for each kind (docs/policy.md), before `null`. */
export const DEFAULT_OPS: Readonly<Record<Kind, readonly Op[]>> = {
  string: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'startswith', 'endswith', 'in', 'nin'],
  integer: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'],
  bigint: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'],
  decimal: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'],
  float: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'],
  datetime: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'],
  date: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'],
  enum: ['eq', 'ne', 'in', 'nin'],
  uuid: ['eq', 'ne', 'in', 'nin'],
  boolean: ['eq', 'ne'],
};

/** The opt-in case-insensitive operators, which `filterable()` never enables. */
export const CASE_INSENSITIVE_OPS: readonly Op[] = ['ieq', 'ine', 'icontains', 'istartswith', 'iendswith'];

/** A field exposed with `filterable()` (plus `extra` operators, listed explicitly) and `sortable()`. */
export function field(
  name: string,
  kind: Kind,
  nullable: boolean,
  property = name,
  extra: readonly Op[] = [],
): FieldSpec {
  return {
    name,
    property,
    kind,
    nullable,
    ops: [...DEFAULT_OPS[kind], ...extra, ...(nullable ? ['null' as const] : [])],
    sortable: true,
  };
}

export const productSpec: EntitySpec = {
  name: 'Product',
  pk: ['id'],
  relations: [],
  fields: [
    field('id', 'integer', false),
    field('name', 'string', false, 'name', CASE_INSENSITIVE_OPS),
    field('code', 'string', false, 'sku'),
    field('description', 'string', true, 'description', ['ieq', 'istartswith', 'icontains']),
    { ...field('status', 'enum', false), items: STATUSES },
    field('stock', 'integer', true),
    field('views', 'bigint', false),
    field('price', 'decimal', true),
    field('rating', 'float', true),
    field('active', 'boolean', true),
    field('releasedOn', 'date', true),
    field('createdAt', 'datetime', false),
    field('uuid', 'uuid', false),
  ],
};

/**
 * The policy under test: every field of productSpec, sortable and filterable with its defaults, or with its
 * operators listed when it declares case-insensitive ones (which no default includes).
 */
export const productPolicy = productSpec.fields.reduce(
  (policy, f) =>
    policy.expose(
      f.name,
      f.ops.some((op) => CASE_INSENSITIVE_OPS.includes(op)) ? filterable(...f.ops) : filterable(),
      sortable({ caseInsensitive: f.kind === 'string' }),
    ),
  schema<any>(Product),
);

const ID_EDGES = [0, -1, 1, 2147483647, -2147483648];

/** Generate `count` Product rows from a seed: reference values keyed by property. */
export function generateProducts(seed: number, count: number): Row[] {
  const random = createRandom(seed);
  const ids = new Set<number>(ID_EDGES.slice(0, Math.min(count, ID_EDGES.length)));
  while (ids.size < count) ids.add(random.int(2, count * 10));
  return [...ids].map((id) => {
    const row: Row = { id };
    for (const f of productSpec.fields) {
      if (f.property === 'id') continue;
      row[f.property] = drawValue(random, f.kind, f.nullable);
    }
    row['secret'] = random.chance(0.5) ? 'hidden' : null;
    return row;
  });
}

/** Insert reference rows as Product entities, every value through its MikroORM type. */
export async function loadProducts(em: EntityManager, rows: readonly Row[]): Promise<void> {
  for (const row of rows) {
    em.create(Product, {
      ...(row as Record<string, unknown>),
      createdAt: new Date(row['createdAt'] as number),
    } as never);
  }
  await em.flush();
  em.clear();
}
