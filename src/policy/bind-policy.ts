import type { EntityManager, EntityMetadata, EntityName, MetadataStorage, MikroORM, Platform } from '@mikro-orm/core';
import { EntitySchema } from '@mikro-orm/core';
import { type Dialect, dialectFor } from '../dialect/index.ts';
import { invalidSchema } from '../errors.ts';
import { bindAggregates } from './bind-aggregates.ts';
import { bindFacet } from './bind-facet.ts';
import { bindField } from './bind-field.ts';
import { bindRelationProperty } from './bind-relation.ts';
import { bindSelection } from './bind-selection.ts';
import type { BoundField, BoundKeyColumn, BoundRelation, BoundSchema } from './bound-schema.ts';
import type { Declarations, DeclaredRelation } from './declarations.ts';

/** What binding needs from an ORM: one metadata storage, its platform and the platform's dialect. */
export interface BindContext {
  readonly metadata: MetadataStorage;
  readonly platform: Platform;
  readonly dialect: Dialect;
}

/** One relation hop on the way from the root policy, for cycle messages. */
interface Step {
  readonly policy: Declarations;
  readonly label: string;
}

const cache = new WeakMap<Declarations, WeakMap<MetadataStorage, BoundSchema>>();

/** Resolve a policy against the metadata of an ORM or EntityManager, once per (policy, metadata). */
export function bindPolicy(policy: Declarations, orm: MikroORM | EntityManager): BoundSchema {
  const em: EntityManager = 'getPlatform' in orm ? orm : orm.em;
  const platform = em.getPlatform();
  // Detected here, once per platform: every later stage reads it with dialectFor(bound.platform).
  return bindWith(policy, { metadata: em.getMetadata(), platform, dialect: dialectFor(platform) }, []);
}

function bindWith(policy: Declarations, ctx: BindContext, path: readonly Step[]): BoundSchema {
  const hit = cache.get(policy)?.get(ctx.metadata);
  if (hit) return hit;
  const meta = findMetadata(policy.entity, ctx.metadata);
  const fields = new Map<string, BoundField>();
  const relations = new Map<string, BoundRelation>();
  for (const entry of policy.entries) {
    if (fields.has(entry.publicName) || relations.has(entry.publicName))
      throw invalidSchema(`${meta.className}.${entry.publicName}: public name '${entry.publicName}' is declared twice`);
    if (entry.kind === 'field') fields.set(entry.publicName, bindField(meta, entry, ctx.platform, ctx.dialect));
    else relations.set(entry.publicName, bindRelation(meta, entry, ctx, policy, path));
  }
  const bound: BoundSchema = Object.freeze({
    entityName: meta.className,
    meta,
    platform: ctx.platform,
    fields,
    relations,
    primaryKey: primaryKeyOf(meta),
  });
  const perMeta = cache.get(policy) ?? new WeakMap<MetadataStorage, BoundSchema>();
  perMeta.set(ctx.metadata, bound);
  cache.set(policy, perMeta);
  return bound;
}

function bindRelation(
  meta: EntityMetadata,
  entry: DeclaredRelation,
  ctx: BindContext,
  owner: Declarations,
  path: readonly Step[],
): BoundRelation {
  const nested = typeof entry.nested === 'function' ? entry.nested() : entry.nested;
  if (!isPolicy(nested))
    throw invalidSchema(
      `${meta.className}.${entry.publicName}: the nested policy is not a policy (or a thunk returning one)`,
    );
  const targetMeta = findMetadata(nested.entity, ctx.metadata);
  const prop = bindRelationProperty(meta, entry, targetMeta);
  const label = `${meta.className}.${prop.name}`;
  const steps = [...path, { policy: owner, label }];
  const seen = steps.findIndex((s) => s.policy === nested);
  if (seen >= 0) {
    const route = steps.slice(seen).map((s) => s.label);
    throw invalidSchema(
      `${label}: policy cycle ${route.join(' → ')} → ${targetMeta.className}; a policy cannot contain itself ` +
        '(use a separate policy object for each nested level)',
    );
  }
  const target = bindWith(nested, ctx, steps);
  const many = prop.kind === '1:m' || prop.kind === 'm:n';
  if (many && entry.nullCheck)
    throw invalidSchema(
      `${label}: nullCheck applies to to-one relations only (a client tests a collection with not ${entry.publicName}/any(…))`,
    );
  const selection = bindSelection(label, entry.select, many, target);
  const facet = bindFacet(label, entry.facet, prop, target);
  const aggregates = bindAggregates(label, entry.aggregates, many, target);
  return Object.freeze({
    publicName: entry.publicName,
    property: prop.name,
    cardinality: many ? 'many' : 'one',
    prop,
    target,
    nullCheck: entry.nullCheck === true,
    ...(selection === undefined ? {} : { selection }),
    ...(facet === undefined ? {} : { facet }),
    ...(aggregates === undefined ? {} : { aggregates }),
  });
}

/** Find the registered metadata of a policy's entity; refuse entities this ORM does not know. */
export function findMetadata(entity: EntityName<any>, metadata: MetadataStorage): EntityMetadata {
  const key = EntitySchema.is(entity) ? entity.meta.class : entity;
  const meta = metadata.find(key);
  // find() answers an unregistered EntitySchema with its own detached metadata: require a registered one.
  if (!meta || !metadata.has(meta.class))
    throw invalidSchema(`entity ${entityLabel(entity)} is not registered with this MikroORM instance`);
  return meta;
}

function entityLabel(entity: EntityName<any>): string {
  if (EntitySchema.is(entity)) return entity.meta.className;
  return typeof entity === 'function' ? entity.name : String(entity);
}

function primaryKeyOf(meta: EntityMetadata): readonly BoundKeyColumn[] {
  const out: BoundKeyColumn[] = [];
  for (const name of meta.primaryKeys) {
    const prop = meta.properties[name];
    if (!prop) throw invalidSchema(`${meta.className}.${String(name)}: primary key property is missing from metadata`);
    // An m:1 or 1:1 key contributes every join column; fieldNames of a scalar is its one column.
    const columns =
      prop.kind === 'scalar' ? prop.fieldNames : prop.joinColumns?.length ? prop.joinColumns : prop.fieldNames;
    if (!columns?.length) throw invalidSchema(`${meta.className}.${prop.name}: primary key has no column in metadata`);
    for (const column of columns) out.push(Object.freeze({ property: prop.name, column }));
  }
  if (out.length === 0) throw invalidSchema(`${meta.className} has no primary key`);
  return Object.freeze(out);
}

function isPolicy(value: unknown): value is Declarations {
  return typeof value === 'object' && value !== null && 'entity' in value && 'entries' in value && 'bind' in value;
}
