import type { EntityProperty, Platform } from '@mikro-orm/core';
import type { BoundField, BoundSchema, FieldKind, ResolvedAggregate } from '../bind/types.ts';
import type { Dialect } from '../dialect/index.ts';
import { invalidSchema } from '../errors.ts';
import {
  type IntegerRange,
  isNarrowTimestamp,
  isPositionalEnum,
  isSinglePrecision,
  keepsTimeZone,
  scalarShapeOf,
} from '../policy/field-kind.ts';

/**
 * What a cursor needs to know about one sort column to read, write and compare its value exactly, and to tell
 * whether a decoded key is a value the column can hold (see key-holds.ts).
 */
export interface KeyShape {
  readonly kind: FieldKind;
  /** Datetime columns only: whether the column keeps a time zone (PostgreSQL `timestamptz`). */
  readonly timezone: boolean;
  /** Enum columns only: whether the items are numbers (a native numeric enum), so keys are integers. */
  readonly numericEnum: boolean;
  /**
   * Enum columns only: a MySQL / MariaDB native `ENUM(...)`, which sorts by item position (1, 2, …) while comparing
   * with a string compares text. Its keys are the positions, so the keyset compares as the order sorts.
   */
  readonly ordinalEnum: boolean;
  /** Datetime columns only: a MySQL / MariaDB `TIMESTAMP` (1970-01-01 00:00:01 to 2038-01-19 03:14:07 UTC). */
  readonly epochRange: boolean;
  /** Integer and bigint columns: the values the column's type allows (unsigned types start at 0). */
  readonly range?: IntegerRange;
  /** Enum columns: the allowed values. */
  readonly enumItems?: readonly (string | number)[];
  /** Decimal columns with a declared precision: total digits, and digits after the point (`numeric(p, s)`). */
  readonly precision?: number;
  readonly scale?: number;
  /** String columns with a declared length (`varchar(n)`): the most characters a value may have. */
  readonly maxLength?: number;
  /** Float columns declared single precision (PostgreSQL `real`, MySQL `float`; see isSinglePrecision). */
  readonly single: boolean;
}

/** Describe the sort column of an exposed field. */
export function shapeOfField(field: BoundField, dialect: Dialect): KeyShape {
  return describe(field.prop, dialect, field.kind, field.range, field.timezone === true, field.enumItems);
}

/**
 * Describe the value of an aggregate sort key: min and max have their field's shape; count is a bigint from 0, a sum
 * of integers a bigint, sum of decimals and avg of non-floats a decimal of no declared precision, others a double.
 */
export function aggregateShape(aggregate: ResolvedAggregate, dialect: Dialect): KeyShape {
  const fn = aggregate.function;
  if ((fn === 'min' || fn === 'max') && aggregate.field) return shapeOfField(aggregate.field, dialect);
  const plain = { timezone: false, numericEnum: false, ordinalEnum: false, epochRange: false, single: false };
  const range = fn === 'count' ? { range: { min: 0n, max: (1n << 63n) - 1n } } : {};
  return Object.freeze({ kind: aggregate.valueKind, ...plain, ...range });
}

/**
 * Describe every primary-key column of the root, by column name; refuses (invalid_schema) a key column whose type
 * listql cannot carry in a cursor. A key that is an m:1 relation takes the type of the column it references.
 */
export function primaryKeyShapes(bound: BoundSchema, dialect: Dialect): ReadonlyMap<string, KeyShape> {
  const shapes = new Map<string, KeyShape>();
  for (const key of bound.primaryKey) {
    const prop = bound.meta.properties[key.property];
    const shape = prop && columnShape(prop, key.column, bound.platform, dialect, 0);
    if (!shape)
      throw invalidSchema(
        `${bound.entityName}.${key.property}: the primary key column has a type listql cannot carry in a cursor`,
      );
    shapes.set(key.column, shape);
  }
  return shapes;
}

function columnShape(
  prop: EntityProperty,
  column: string,
  platform: Platform,
  dialect: Dialect,
  depth: number,
): KeyShape | undefined {
  if (prop.kind === 'scalar') {
    const shape = scalarShapeOf(prop, platform, dialect);
    if (!shape) return undefined;
    const timezone = shape.kind === 'datetime' && keepsTimeZone(prop);
    return describe(prop, dialect, shape.kind, shape.range, timezone, shape.kind === 'enum' ? prop.items : undefined);
  }
  // A relation key (m:1 / 1:1 owner): follow the join column to the target's primary key, a bounded number of hops.
  if (depth > 8 || !prop.targetMeta) return undefined;
  const columns = prop.joinColumns?.length ? prop.joinColumns : prop.fieldNames;
  const index = columns.indexOf(column);
  const referenced = prop.referencedColumnNames?.[index];
  if (index < 0 || referenced === undefined) return undefined;
  const target = prop.targetMeta.props.find((p) => p.primary && p.fieldNames?.includes(referenced));
  if (!target) return undefined;
  return columnShape(target, referenced, platform, dialect, depth + 1);
}

const NUMERIC = /^(?:numeric|decimal)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/i;
const VARCHAR = /^(?:n?varchar|character varying|n?char|character)\s*\(\s*(\d+)\s*\)/i;

function describe(
  prop: EntityProperty,
  dialect: Dialect,
  kind: FieldKind,
  range: IntegerRange | undefined,
  timezone: boolean,
  items: readonly (string | number)[] | undefined,
): KeyShape {
  const column = prop.columnTypes?.[0] ?? '';
  const numericEnum = kind === 'enum' && (items ?? []).length > 0 && (items ?? []).every((i) => typeof i === 'number');
  const shape: { -readonly [K in keyof KeyShape]: KeyShape[K] } = {
    kind,
    timezone,
    numericEnum,
    ordinalEnum: kind === 'enum' && !numericEnum && isPositionalEnum(prop, dialect),
    epochRange: kind === 'datetime' && isNarrowTimestamp(prop, dialect),
    single: kind === 'float' && isSinglePrecision(prop, dialect),
  };
  if (range && (kind === 'integer' || kind === 'bigint')) shape.range = range;
  if (kind === 'enum' && items) shape.enumItems = [...items];
  if (kind === 'decimal') {
    // The column type is what the database enforces; the property's own precision and scale stand in for it.
    const m = NUMERIC.exec(column);
    const precision = m ? Number(m[1]) : prop.precision;
    const scale = m ? Number(m[2] ?? 0) : (prop.scale ?? (prop.precision === undefined ? undefined : 0));
    if (isCount(precision) && isCount(scale) && scale <= precision) {
      shape.precision = precision;
      shape.scale = scale;
    }
  }
  // A declared `length`, else the length of a `varchar(n)` / `char(n)` column type; text columns have none.
  if (kind === 'string') {
    const length = isCount(prop.length) && prop.length > 0 ? prop.length : Number(VARCHAR.exec(column)?.[1] ?? 0);
    if (length > 0) shape.maxLength = length;
  }
  return Object.freeze(shape);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
