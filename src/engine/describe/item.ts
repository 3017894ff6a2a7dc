import { type EntityMetadata, type EntityProperty, type Platform, ReferenceKind } from '@mikro-orm/core';
import type { Dialect } from '../../dialect/index.ts';
import { scalarShapeOf } from '../../policy/field-kind.ts';

/** The JSON form of one item property: a JSON type, and a format where the string has one. */
export interface ItemPropertyDescription {
  /** The key in each item (the property's serialized name). */
  readonly name: string;
  /** `unknown` when the value has no fixed JSON type (custom serializers, JSON columns, embeddables). */
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'unknown';
  /**
   * `date-time`, `date`, `uuid`, `int64` (a 64-bit integer written as a string), `uint64` (an unsigned 64-bit integer
   * written as a string: MySQL's and MariaDB's `BIGINT UNSIGNED`, up to 18446744073709551615) or `decimal` (an exact
   * decimal string).
   */
  readonly format?: 'date-time' | 'date' | 'uuid' | 'int64' | 'uint64' | 'decimal';
  readonly nullable: boolean;
  /** Enum properties only: the values the property takes. */
  readonly values?: readonly (string | number)[];
  /** Set on a to-one relation, which an item carries as the related row's primary key. */
  readonly reference?: true;
}

/** The JSON shape of a list item, in the order serialize() writes the keys. */
export interface ItemDescription {
  readonly properties: readonly ItemPropertyDescription[];
}

type ValueShape = Pick<ItemPropertyDescription, 'type' | 'format' | 'values'>;

const INT64_MAX = 2n ** 63n - 1n;

/**
 * Describe the items an endpoint returns from the entity's metadata: every property MikroORM serializes (hidden
 * ones and collections left out), under its serialized name, with its JSON type. It names no table or column.
 */
export function describeItem(meta: EntityMetadata, platform: Platform, dialect: Dialect): ItemDescription {
  // serialize() writes primary keys first, then every other property in metadata order.
  const ordered = [
    ...meta.primaryKeys.map((name) => meta.properties[name]!),
    ...meta.props.filter((p) => !meta.primaryKeys.includes(p.name)),
  ];
  const properties: ItemPropertyDescription[] = [];
  for (const prop of ordered) {
    if (prop.hidden || (!prop.primary && prop.name.startsWith('_'))) continue;
    const toOne =
      prop.kind === ReferenceKind.MANY_TO_ONE || (prop.kind === ReferenceKind.ONE_TO_ONE && prop.owner === true);
    // Collections and inverse one-to-ones appear only when populated, which a list never does.
    if (prop.kind !== ReferenceKind.SCALAR && prop.kind !== ReferenceKind.EMBEDDED && !toOne) continue;
    const shape = toOne ? referenceShape(prop, platform, dialect) : valueShape(prop, platform, dialect);
    properties.push({
      name: prop.serializedName ?? prop.name,
      ...shape,
      nullable: prop.nullable === true,
      ...(toOne ? { reference: true as const } : {}),
    });
  }
  return { properties };
}

/**
 * Describe one value as items write a property (its JSON type and format), under `name`: a facet's values and labels
 * (describe-facets.ts). `nullable` says whether null may stand for it.
 */
export function describeValue(
  name: string,
  prop: EntityProperty,
  platform: Platform,
  dialect: Dialect,
  nullable: boolean,
): ItemPropertyDescription {
  return { name, ...valueShape(prop, platform, dialect), nullable };
}

/** A to-one relation is written as the target's primary key (a single key; a composite one has no fixed shape). */
function referenceShape(prop: EntityProperty, platform: Platform, dialect: Dialect): ValueShape {
  const target = prop.targetMeta;
  if (!target) return { type: 'unknown' };
  if (target.primaryKeys.length !== 1) return { type: 'unknown' };
  return valueShape(target.properties[target.primaryKeys[0]!]!, platform, dialect);
}

function valueShape(prop: EntityProperty, platform: Platform, dialect: Dialect): ValueShape {
  if (prop.serializer || prop.kind === ReferenceKind.EMBEDDED || prop.array) return { type: 'unknown' };
  const runtime = prop.runtimeType;
  const shape = scalarShapeOf(prop, platform, dialect);
  switch (shape?.kind) {
    case 'enum': {
      const values = [...(prop.items ?? [])] as (string | number)[];
      return { type: values.every((v) => typeof v === 'number') ? 'integer' : 'string', values };
    }
    case 'integer':
      return { type: 'integer' };
    case 'bigint':
      // A JS bigint is written as its decimal string (JSON has no 64-bit integers); `number` mode stays a number.
      if (runtime === 'number') return { type: 'integer' };
      return { type: 'string', format: (shape.range?.max ?? 0n) > INT64_MAX ? 'uint64' : 'int64' };
    case 'decimal':
      return runtime === 'number' ? { type: 'number' } : { type: 'string', format: 'decimal' };
    case 'float':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'datetime':
      return runtime === 'Date' ? { type: 'string', format: 'date-time' } : runtimeShape(runtime);
    case 'date':
      return runtime === 'Date' ? { type: 'string', format: 'date-time' } : { type: 'string', format: 'date' };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'string':
      return { type: 'string' };
    default:
      return prop.customType ? { type: 'unknown' } : runtimeShape(runtime);
  }
}

/** Types listql does not classify (time, text arrays, JSON, blobs): judged by their JavaScript type alone. */
function runtimeShape(runtime: string): ValueShape {
  switch (runtime) {
    case 'string':
      return { type: 'string' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'Date':
      return { type: 'string', format: 'date-time' };
    case 'bigint':
      return { type: 'string', format: 'int64' };
    default:
      return { type: 'unknown' };
  }
}
