/**
 * Hand-built bound schemas and resolved trees straight from MikroORM metadata, so the plan and execute stages
 * can be tested without the policy, parser and bind stages. Every scalar is exposed under its serialized name,
 * filterable with every operator and sortable; literal values go through the property's MikroORM type.
 */
import { type EntityName, type EntityProperty, type MikroORM, ReferenceKind } from '@mikro-orm/core';
import type {
  BoundField,
  BoundSchema,
  FieldKind,
  FieldRef,
  Operator,
  ResolvedFilter,
  ResolvedQuery,
  ResolvedSortTerm,
} from '../../src/bind/types.ts';
import { OPERATORS } from '../../src/policy/options.ts';
import type { Span } from '../../src/syntax/ast.ts';

const ALL: ReadonlySet<Operator> = new Set(OPERATORS);

/** A span at the given byte offset of a one-line value. */
export function spanAt(offset = 0, length = 1): Span {
  return { offset, line: 1, column: offset + 1, end: offset + length };
}

function kindOf(prop: EntityProperty): FieldKind {
  if (prop.enum) return 'enum';
  const type = String(prop.type).toLowerCase().replace(/type$/, '');
  const kinds: Record<string, FieldKind> = {
    integer: 'integer',
    bigint: 'bigint',
    decimal: 'decimal',
    double: 'float',
    boolean: 'boolean',
    datetime: 'datetime',
    date: 'date',
    uuid: 'uuid',
  };
  return kinds[type] ?? 'string';
}

/** Bind every scalar property of an entity, as a permissive policy would. */
export function boundFor(orm: MikroORM, entity: EntityName<any>): BoundSchema {
  const meta = orm.getMetadata().get(entity);
  const fields = new Map<string, BoundField>();
  for (const prop of meta.props) {
    if (prop.kind !== ReferenceKind.SCALAR) continue;
    const publicName = prop.serializedName ?? prop.name;
    fields.set(publicName, {
      publicName,
      property: prop.name,
      column: prop.fieldNames[0]!,
      kind: kindOf(prop),
      nullable: prop.nullable === true,
      operators: ALL,
      filterable: true,
      sortable: true,
      selectable: true,
      prop,
    });
  }
  return {
    entityName: meta.className,
    meta,
    platform: orm.em.getPlatform(),
    fields,
    relations: new Map(),
    primaryKey: meta.primaryKeys.map((pk) => ({ property: pk, column: meta.properties[pk]!.fieldNames[0]! })),
  };
}

/** Builders of resolved nodes for one bound schema. */
export function resolver(bound: BoundSchema) {
  const ref = (name: string): FieldRef => {
    const field = bound.fields.get(name);
    if (!field) throw new Error(`test: no field ${name}`);
    return { relations: [], field, span: spanAt() };
  };
  const db = (name: string, value: unknown): unknown => {
    const prop = ref(name).field.prop;
    return prop.customType ? prop.customType.convertToDatabaseValue(value, bound.platform, { mode: 'query' }) : value;
  };
  const span = spanAt();
  const compare =
    (operator: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte') =>
    (name: string, value: unknown): ResolvedFilter => ({
      kind: 'compare',
      target: ref(name),
      operator,
      value: db(name, value),
      span,
    });
  const like =
    (operator: 'contains' | 'startswith' | 'endswith') =>
    (name: string, value: string): ResolvedFilter => ({ kind: 'like', target: ref(name), operator, value, span });
  const list =
    (negated: boolean) =>
    (name: string, values: unknown[]): ResolvedFilter => ({
      kind: 'in',
      target: ref(name),
      negated,
      values: values.map((v) => db(name, v)),
      span,
    });
  return {
    ref,
    eq: compare('eq'),
    ne: compare('ne'),
    gt: compare('gt'),
    gte: compare('gte'),
    lt: compare('lt'),
    lte: compare('lte'),
    contains: like('contains'),
    startswith: like('startswith'),
    endswith: like('endswith'),
    in: list(false),
    nin: list(true),
    isNull: (name: string): ResolvedFilter => ({ kind: 'null', target: ref(name), negated: false, span }),
    notNull: (name: string): ResolvedFilter => ({ kind: 'null', target: ref(name), negated: true, span }),
    not: (operand: ResolvedFilter): ResolvedFilter => ({ kind: 'not', operand, span }),
    and: (left: ResolvedFilter, right: ResolvedFilter): ResolvedFilter => ({ kind: 'and', left, right, span }),
    or: (left: ResolvedFilter, right: ResolvedFilter): ResolvedFilter => ({ kind: 'or', left, right, span }),
    asc: (name: string): ResolvedSortTerm => ({ target: ref(name), direction: 'asc' }),
    desc: (name: string): ResolvedSortTerm => ({ target: ref(name), direction: 'desc' }),
  };
}

/** A resolved query with no sort unless given. */
export function query(parts: Partial<ResolvedQuery> = {}): ResolvedQuery {
  return { sort: [], ...parts };
}
