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
import { BaseMySqlPlatform, BasePostgreSqlPlatform } from '@mikro-orm/sql';
import type { Dialect } from '../plan/dialect.ts';
import type { FieldKind, Operator } from './types.ts';

/** The inclusive range of values an integer type allows. */
export interface IntegerRange {
  readonly min: bigint;
  readonly max: bigint;
}

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

/** SQLite keeps every integer as a signed 64-bit value. */
const INT64_MAX = (1n << 63n) - 1n;

/**
 * The range the database itself stores for an integer type: PostgreSQL has no unsigned types, so an unsigned
 * column is the signed column of the same width (negatives still refused); SQLite integers are signed 64-bit;
 * MySQL and MariaDB have real unsigned types of every width (`bigint unsigned` up to 18446744073709551615).
 * Literals and cursor keys are checked against this range, so no value the database would refuse reaches it.
 */
function storedRange(range: IntegerRange, platform: Platform): IntegerRange {
  if (platform instanceof BaseMySqlPlatform) return range;
  if (platform instanceof BasePostgreSqlPlatform && range.min === 0n) return { min: 0n, max: range.max >> 1n };
  return range.max > INT64_MAX ? { min: range.min, max: INT64_MAX } : range;
}

const MYSQL_FLOAT = /^float\s*(?:\(\s*(\d+)\s*(?:,\s*\d+\s*)?\))?(?:\s+unsigned)?$/i;

/**
 * Tell whether a float column is single precision, whose range and resolution are far smaller than a double's:
 * PostgreSQL `real` / `float4`; MySQL and MariaDB `float` and `float(p)` with p ≤ 24 (their `real` and `float(p)`
 * with p > 24 are doubles). SQLite stores every float as a double.
 */
export function isSinglePrecision(prop: EntityProperty, dialect: Dialect): boolean {
  const column = (prop.columnTypes?.[0] ?? '').trim();
  if (dialect === 'postgresql') return /^(?:real|float4)$/i.test(column);
  if (dialect !== 'mysql') return false;
  const m = MYSQL_FLOAT.exec(column);
  // `float(M, D)` (deprecated) is single precision too; only `float(p)` with one argument above 24 is a double.
  return m !== null && (m[1] === undefined || /,/.test(column) || Number(m[1]) <= 24);
}

/**
 * Tell whether a datetime column is a MySQL / MariaDB `TIMESTAMP`, which holds instants from
 * 1970-01-01 00:00:01 to 2038-01-19 03:14:07 UTC only (a `DATETIME` holds years 0001 to 9999).
 */
export function isMysqlTimestamp(prop: EntityProperty, dialect: Dialect): boolean {
  return dialect === 'mysql' && /^timestamp\b/i.test((prop.columnTypes?.[0] ?? '').trim());
}

/** Tell whether an enum is a MySQL / MariaDB native `ENUM(...)` column, which sorts by item position. */
export function isNativeMysqlEnum(prop: EntityProperty, dialect: Dialect): boolean {
  return dialect === 'mysql' && /^enum\s*\(/i.test((prop.columnTypes?.[0] ?? '').trim());
}

function signedRange(bits: number, unsigned: boolean): IntegerRange {
  const b = BigInt(bits);
  return unsigned ? { min: 0n, max: (1n << b) - 1n } : { min: -(1n << (b - 1n)), max: (1n << (b - 1n)) - 1n };
}

/** Classify a scalar property by its MikroORM type (docs/policy.md); undefined: listql cannot filter or sort it. */
export function scalarShapeOf(prop: EntityProperty, platform: Platform): ScalarShape | undefined {
  if (prop.array) return undefined;
  if (prop.enum || prop.nativeEnumName) return prop.items?.length ? { kind: 'enum' } : undefined;
  const type = mappedTypeOf(prop, platform);
  if (!type) return undefined;
  const unsigned = prop.unsigned === true;
  const range = (bits: number) => storedRange(signedRange(bits, unsigned), platform);
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
