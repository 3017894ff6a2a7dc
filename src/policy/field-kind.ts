import {
  BigIntType,
  BooleanType,
  CharacterType,
  DateTimeType,
  DateType,
  DecimalType,
  DoubleType,
  type EntityProperty,
  EnumType,
  FloatType,
  IntegerType,
  MediumIntType,
  type Platform,
  SmallIntType,
  StringType,
  TextType,
  TinyIntType,
  type Type,
  UnknownType,
  UuidType,
} from '@mikro-orm/core';
import type { Dialect, IntegerRange } from '../dialect/index.ts';
import type { FieldKind } from './bound-schema.ts';
import type { Operator } from './options.ts';

/** The inclusive range of values an integer type allows. */
export type { IntegerRange } from '../dialect/index.ts';

/** What a scalar property is to listql: its kind and, for integers, the range its type allows. */
export interface ScalarShape {
  readonly kind: FieldKind;
  readonly range?: IntegerRange;
}

// Runtime type names that say little about the column: the column type decides when it is known.
const GENERIC_TYPES = new Set(['number', 'string', 'date', 'object', 'any', 'unknown']);

/** Find the MikroORM type that decides a scalar property's kind, or undefined when it has none. */
export function mappedTypeOf(prop: EntityProperty, platform: Platform): Type<unknown> | undefined {
  if (prop.customType) return prop.customType;
  const declared = typeof prop.type === 'string' ? prop.type : '';
  const declaredName = declared === 'Date' ? 'datetime' : declared;
  const column = prop.columnTypes?.[0];
  const candidates = GENERIC_TYPES.has(declared.toLowerCase()) ? [column, declaredName] : [declaredName, column];
  for (const name of candidates) {
    if (!name) continue;
    const type = platform.getMappedType(name);
    if (!(type instanceof UnknownType)) return type;
  }
  return undefined;
}

/**
 * Tell whether a float column is single precision, whose range and resolution are far smaller than a double's:
 * PostgreSQL `real` / `float4`; MySQL and MariaDB `float` and `float(p)` with p ≤ 24 (their `real` and `float(p)`
 * with p > 24 are doubles). SQLite stores every float as a double.
 */
export function isSinglePrecision(prop: EntityProperty, dialect: Dialect): boolean {
  return dialect.isSinglePrecision((prop.columnTypes?.[0] ?? '').trim());
}

/**
 * Tell whether a datetime column is a `TIMESTAMP` of a dialect where it holds instants from 1970-01-01 00:00:01 to
 * 2038-01-19 03:14:07 UTC only (MySQL, MariaDB; a `DATETIME` there holds years 0001 to 9999).
 */
export function isNarrowTimestamp(prop: EntityProperty, dialect: Dialect): boolean {
  return dialect.narrowTimestamps && /^timestamp\b/i.test((prop.columnTypes?.[0] ?? '').trim());
}

/** Tell whether an enum is a native `ENUM(...)` column of a dialect where it sorts by item position (MySQL, MariaDB). */
export function isPositionalEnum(prop: EntityProperty, dialect: Dialect): boolean {
  return dialect.enumsSortByPosition && /^enum\s*\(/i.test((prop.columnTypes?.[0] ?? '').trim());
}

function signedRange(bits: number, unsigned: boolean): IntegerRange {
  const b = BigInt(bits);
  return unsigned ? { min: 0n, max: (1n << b) - 1n } : { min: -(1n << (b - 1n)), max: (1n << (b - 1n)) - 1n };
}

/**
 * Classify a scalar property by its MikroORM type (docs/policy.md); undefined: listql cannot filter or sort it. An
 * integer's range is what the database itself stores for the type (Dialect.storedIntegerRange: PostgreSQL has no
 * unsigned types, SQLite integers are signed 64-bit, MySQL and MariaDB have unsigned types of every width), so
 * literals and cursor keys checked against it never reach the database with a value it would refuse.
 */
export function scalarShapeOf(prop: EntityProperty, platform: Platform, dialect: Dialect): ScalarShape | undefined {
  if (prop.array) return undefined;
  if (prop.enum || prop.nativeEnumName) return prop.items?.length ? { kind: 'enum' } : undefined;
  const type = mappedTypeOf(prop, platform);
  if (!type) return undefined;
  const unsigned = prop.unsigned === true;
  const range = (bits: number) => dialect.storedIntegerRange(signedRange(bits, unsigned));
  // MediumIntType extends IntegerType, so test it first.
  if (type instanceof MediumIntType) return { kind: 'integer', range: range(24) };
  if (type instanceof IntegerType) return { kind: 'integer', range: range(32) };
  if (type instanceof SmallIntType) return { kind: 'integer', range: range(16) };
  if (type instanceof TinyIntType) return { kind: 'integer', range: range(8) };
  if (type instanceof BigIntType) return { kind: 'bigint', range: range(64) };
  if (type instanceof DecimalType) return { kind: 'decimal' };
  if (type instanceof DoubleType || type instanceof FloatType) return { kind: 'float' };
  if (type instanceof BooleanType) return { kind: 'boolean' };
  if (type instanceof DateTimeType) return { kind: 'datetime' };
  if (type instanceof DateType) return { kind: 'date' };
  if (type instanceof UuidType) return { kind: 'uuid' };
  if (type instanceof StringType || type instanceof TextType || type instanceof CharacterType)
    return { kind: 'string' };
  if (type instanceof EnumType) return prop.items?.length ? { kind: 'enum' } : undefined;
  return undefined;
}

const ORDERING: readonly Operator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'];
const EQUALITY: readonly Operator[] = ['eq', 'ne', 'in', 'nin'];

/** Case-insensitive operators: string fields only, and only when a policy lists them (never a default). */
export const CASE_INSENSITIVE_OPERATORS: readonly Operator[] = Object.freeze([
  'ieq',
  'ine',
  'icontains',
  'istartswith',
  'iendswith',
]);

/**
 * Operators each kind supports; `filterable()` without arguments enables all of them (plus `null` when nullable).
 * A string field may also declare the case-insensitive operators, which no default includes.
 */
export const OPERATORS_BY_KIND: Readonly<Record<FieldKind, readonly Operator[]>> = Object.freeze({
  string: [...ORDERING, 'contains', 'startswith', 'endswith'],
  integer: ORDERING,
  bigint: ORDERING,
  decimal: ORDERING,
  float: ORDERING,
  datetime: ORDERING,
  date: ORDERING,
  enum: EQUALITY,
  uuid: EQUALITY,
  boolean: ['eq', 'ne'],
});

/** Tell whether an operator fits a field of this kind and nullability. */
export function operatorFits(operator: Operator, kind: FieldKind, nullable: boolean): boolean {
  if (operator === 'null') return nullable;
  if (CASE_INSENSITIVE_OPERATORS.includes(operator)) return kind === 'string';
  return OPERATORS_BY_KIND[kind].includes(operator);
}

/** List the operators `filterable()` enables by default for a field. */
export function defaultOperators(kind: FieldKind, nullable: boolean): readonly Operator[] {
  return nullable ? [...OPERATORS_BY_KIND[kind], 'null'] : OPERATORS_BY_KIND[kind];
}

/** Tell whether a datetime column keeps a time zone (PostgreSQL `timestamptz`). */
export function keepsTimeZone(prop: EntityProperty): boolean {
  const column = (prop.columnTypes?.[0] ?? '').toLowerCase();
  return column.startsWith('timestamptz') || column.includes('with time zone');
}
