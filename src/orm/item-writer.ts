// size: one writer that mirrors serialize() and the hydrator field for field; its parts (the fields, the row loop,
// the value tests em.map() applies, the converters) only make sense read together.
import { isDate } from 'node:util/types';
import {
  type EntityManager,
  type EntityMetadata,
  type EntityProperty,
  EventType,
  Platform,
  ReferenceKind,
  SCALAR_TYPES,
} from '@mikro-orm/core';

/** A row of a data query as `qb.execute('all')` maps it: property names, driver values. */
export type Row = Record<string, unknown>;

/**
 * Writes list items straight from mapped rows, giving what MikroORM's `serialize()` gives for the same rows
 * hydrated by `em.map()`: one call per page; `undefined` when a row holds something only hydration can answer.
 * It mirrors serialize() and the hydrator as of MikroORM 7.2 (key order, hidden and `_` properties, custom types,
 * reference keys); the engine compares its first page with serialize() itself (writer-check.ts) before trusting it.
 *
 * Checked against MikroORM 7.2.1 (the development pin), 7.2.2 with SQLite and 7.2.5 with PostgreSQL (`npm run
 * compat`). When a version differs: the first page that disagrees with serialize() sets the writer
 * aside for good, and hydration with serialize() answers every page (writer-check.ts).
 */
export type ItemWriter = (rows: readonly Row[]) => Row[] | undefined;

/** How one property reaches an item: its public key and the conversion serialize() would apply. */
export interface Field {
  readonly name: string;
  readonly key: string;
  readonly prop: EntityProperty;
  /** Returns the serialized value of a present (non-null) row value, or MISS; undefined: the value as it is. */
  readonly write: ((value: unknown) => unknown) | undefined;
  /** em.map() validates such values (and throws on a wrong type); the writer leaves a wrong one to em.map(). */
  readonly validate: boolean;
}

/** What a converter returns for a value only hydration can answer. */
export const MISS = Symbol('listql.miss');

/**
 * Compile the item writer of an entity, or return undefined when its metadata or the ORM settings use a feature
 * whose serialized form depends on hydration (embeddables, getters, accessors, scalar references, inheritance,
 * serializedPrimaryKey, constructors forced on load, forceObject, forceUndefined, polymorphic or alternate-key
 * relations, relations with custom serializers or custom key types, self-referencing one-to-ones).
 */
export function compileItemWriter(em: EntityManager, meta: EntityMetadata): ItemWriter | undefined {
  if (needsHydration(em, meta)) return undefined;
  const collected = collectFields(meta, em.getPlatform());
  if (!collected) return undefined;
  const { fields, absent, related } = collected;
  const pks = meta.primaryKeys;
  const single = pks.length === 1 ? pks[0]! : undefined;
  const steps = fields.map(stepOf);

  return (rows) => {
    // onInit hooks and subscribers see (and may change) hydrated entities; only hydration can honour them.
    const events = em.getEventManager();
    for (const m of related) if (events.hasListeners(EventType.onInit, m)) return undefined;
    const seen = new Set<unknown>();
    const items: Row[] = new Array(rows.length);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      for (const name of absent) if (row[name] !== undefined) return undefined;
      // em.map() refuses a row without its primary key, and one identity seen twice would be one entity: leave both
      // to hydration, as well as any value em.map() would reject (it throws its own error then).
      const identity = single === undefined ? compositeIdentity(row, pks) : row[single];
      if (identity === null || identity === undefined || typeof identity === 'object' || seen.has(identity))
        return undefined;
      seen.add(identity);
      const item = writeItem(row, steps);
      if (item === undefined) return undefined;
      items[r] = item;
    }
    return items;
  };
}

/**
 * One field as the row loop reads it: where its value is, whether em.map() would accept it, and where and how it
 * is written (hidden and `_`-prefixed properties are checked, never written).
 */
export interface Step {
  readonly name: string;
  readonly key: string;
  readonly visible: boolean;
  readonly accepts: ((value: unknown) => boolean) | undefined;
  readonly write: ((value: unknown) => unknown) | undefined;
}

export function stepOf(f: Field): Step {
  // serialize() leaves out hidden properties and `_`-prefixed ones that are not keys.
  const visible = !f.prop.hidden && (f.prop.primary || !f.prop.name.startsWith('_'));
  return { name: f.name, key: f.key, visible, accepts: f.validate ? acceptsValue(f.prop) : undefined, write: f.write };
}

/** Tell whether the ORM settings or the entity's metadata make serialize() depend on hydrated entities. */
export function needsHydration(em: EntityManager, meta: EntityMetadata): boolean {
  const config = em.config;
  return Boolean(
    config.get('forceUndefined') ||
      config.get('forceEntityConstructor') ||
      (config.get('serialization') as { forceObject?: boolean } | undefined)?.forceObject ||
      meta.embeddable ||
      meta.virtual ||
      meta.forceConstructor ||
      meta.serializedPrimaryKey ||
      meta.root.inheritanceType ||
      meta.discriminatorColumn ||
      meta.polymorphs ||
      meta.getterProps.length > 0 ||
      meta.primaryKeys.length === 0,
  );
}

/**
 * The fields an item is written from, in serialize()'s order (primary keys first, then metadata order), the
 * properties a row must not carry (hydration would make them visible: initialized collections, inverse sides), and
 * the entities whose onInit listeners would need hydration; undefined when a property needs hydration itself.
 */
export function collectFields(
  meta: EntityMetadata,
  platform: Platform,
): { fields: Field[]; absent: string[]; related: EntityMetadata[] } | undefined {
  const fields: Field[] = [];
  const absent: string[] = [];
  const related: EntityMetadata[] = [meta];
  const ordered = [
    ...meta.primaryKeys.map((name) => meta.properties[name]!),
    ...meta.props.filter((p) => !meta.primaryKeys.includes(p.name)),
  ];
  for (const prop of ordered) {
    if (prop.embedded || prop.kind === ReferenceKind.EMBEDDED || prop.getter || prop.setter || prop.accessor)
      return undefined;
    if (prop.kind === ReferenceKind.ONE_TO_ONE && prop.targetMeta?.class === meta.class) return undefined;
    const key = prop.serializedName ?? prop.name;
    if (prop.kind === ReferenceKind.SCALAR) {
      if (prop.ref) return undefined;
      const write = scalarWriter(prop, platform);
      const validate = SCALAR_TYPES.has(prop.runtimeType) && !prop.customType;
      fields.push({ name: prop.name, key, prop, write, validate });
      continue;
    }
    const owner = prop.kind === ReferenceKind.MANY_TO_ONE || (prop.kind === ReferenceKind.ONE_TO_ONE && prop.owner);
    if (!owner) {
      absent.push(prop.name);
      continue;
    }
    const write = referenceWriter(prop, platform);
    if (!write || !prop.targetMeta) return undefined;
    related.push(prop.targetMeta);
    fields.push({ name: prop.name, key, prop, write, validate: false });
  }
  return { fields, absent, related };
}

/**
 * Write one row's visible fields under their public keys, in one pass that also checks every field's value as
 * em.map() would; undefined when a value needs hydration or em.map() would reject it.
 */
function writeItem(row: Row, steps: readonly Step[]): Row | undefined {
  const item: Row = {};
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    const value = row[s.name];
    if (value === undefined) continue;
    if (value === null) {
      if (s.visible) item[s.key] = null;
      continue;
    }
    if (s.accepts !== undefined && !s.accepts(value)) return undefined;
    if (!s.visible) continue;
    if (s.write === undefined) {
      item[s.key] = value;
      continue;
    }
    const out = s.write(value);
    if (out === MISS) return undefined;
    item[s.key] = out;
  }
  return item;
}

/** A composite key as one string (type-tagged parts), or undefined when a part is missing or not a plain value. */
export function compositeIdentity(row: Row, pks: readonly string[]): string | undefined {
  let identity = '';
  for (const pk of pks) {
    const value = row[pk];
    if (value === null || value === undefined || typeof value === 'object') return undefined;
    identity += `${typeof value}:${String(value)}\u0000`;
  }
  return identity;
}

/**
 * Tell, as em.map()'s validateProperty() would without throwing, whether a present (non-null) scalar value is
 * acceptable: an enum value among the items, otherwise a value whose object type (Utils.getObjectType) is the
 * property's runtime type. The common types get a test of their own: it runs once per value of an export.
 */
function acceptsValue(prop: EntityProperty): (value: unknown) => boolean {
  if (prop.enum && prop.items) {
    const items = prop.items;
    return (value) => items.some((item) => item === value);
  }
  const expected = prop.runtimeType;
  switch (expected) {
    case 'string':
      return (value) => typeof value === 'string';
    case 'number':
      return (value) => typeof value === 'number';
    case 'boolean':
      return (value) => typeof value === 'boolean';
    case 'bigint':
      return (value) => typeof value === 'bigint';
    case 'Date':
      // A real Date (its internal slot, as Object.prototype.toString reads it) without a tag of its own.
      return (value) => (isDate(value) && !(Symbol.toStringTag in value)) || objectType(value) === 'Date';
    default:
      return (value) => objectType(value) === expected;
  }
}

/** The runtime types Utils.getObjectType() answers with `typeof` alone. */
const PRIMITIVES: ReadonlySet<string> = new Set(['string', 'number', 'boolean', 'bigint']);

/** Utils.getObjectType() without its regular expression. */
function objectType(value: unknown): string {
  const simple = typeof value;
  if (PRIMITIVES.has(simple)) return simple;
  const type = Object.prototype.toString.call(value).slice(8, -1);
  return type === 'Uint8Array' ? 'Buffer' : type;
}

/**
 * Convert a scalar as the hydrator does (custom type, boolean, date) and then as serialize() does; undefined: the value
 * stays as it is. Facet values (engine/facets/) are written with it too, so they read as items do.
 */
export function scalarWriter(prop: EntityProperty, platform: Platform): ((value: unknown) => unknown) | undefined {
  const serializer = prop.serializer as ((value: unknown) => unknown) | undefined;
  const normalize = normalizer(platform);
  const finish = serializer ?? normalize ?? ((value: unknown) => value);
  const type = prop.customType;
  if (type) {
    const options = { mode: 'serialization' } as const;
    return (value) => {
      const js = type.convertToJSValue(value, platform, options);
      return serializer ? serializer(js) : type.toJSON(js, platform);
    };
  }
  if (prop.runtimeType === 'boolean') return (value) => finish(!!value);
  if (prop.runtimeType === 'Date' && !platform.isNumericProperty(prop)) {
    const tz = platform.getTimezone();
    return (value) => {
      if (value instanceof Date) return finish(value);
      if (!tz || tz === 'local') return finish(new Date(value as string));
      if (typeof value === 'number') return finish(new Date(value));
      if (typeof value !== 'string') return MISS;
      const zoned = value.includes('+') || value.lastIndexOf('-') > 10 || value.endsWith('Z');
      return finish(new Date(zoned ? value : value + tz));
    };
  }
  return serializer ?? normalize;
}

/** The platform's primary-key normalization as serialize() applies it; undefined where it returns its input. */
function normalizer(platform: Platform): ((value: unknown) => unknown) | undefined {
  if (platform.normalizePrimaryKey === Platform.prototype.normalizePrimaryKey) return undefined;
  return (value) => platform.normalizePrimaryKey(value as never);
}

/**
 * Write a to-one relation (m:1, 1:1 owner) as serialize() writes an unpopulated reference: its primary key, an
 * object of the visible key properties for a composite key, or that one value when only one is visible. Only plain
 * keys qualify: scalar key properties without custom types whose values hydrate unchanged (numbers, strings).
 */
function referenceWriter(prop: EntityProperty, platform: Platform): ((value: unknown) => unknown) | undefined {
  const target = prop.targetMeta;
  if (!target || prop.polymorphic || prop.targetKey || prop.mapToPk || prop.serializer || prop.customType)
    return undefined;
  if (target.serializedPrimaryKey || target.primaryKeys.length === 0) return undefined;
  const keys = target.primaryKeys.map((name) => target.properties[name]!);
  for (const key of keys)
    if (key.kind !== ReferenceKind.SCALAR || key.customType || key.ref || key.getter || key.accessor) return undefined;
  const plain = (value: unknown) => typeof value === 'number' || typeof value === 'string';
  const normalize = normalizer(platform);
  if (keys.length === 1)
    return normalize
      ? (value) => (plain(value) ? normalize(value) : MISS)
      : (value) => (typeof value === 'number' || typeof value === 'string' ? value : MISS);
  const visible = keys.map((k, i) => [k.name, i] as const).filter(([name]) => !target.properties[name]!.hidden);
  return (value) => {
    if (!Array.isArray(value) || value.length !== keys.length || !value.every(plain)) return MISS;
    if (visible.length === 1) return platform.normalizePrimaryKey(value[visible[0]![1]] as never);
    const out: Row = {};
    for (const [name, i] of visible) out[name] = value[i];
    return out;
  };
}
