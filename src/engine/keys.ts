import { type Platform, raw } from '@mikro-orm/core';
import { QueryFlag } from '@mikro-orm/sql';
import type { BoundSchema } from '../bind/types.ts';
import { type CursorKeySpec, type CursorValue, encodeCursor, keyFits } from '../cursor/codec.ts';
import { sortSignature } from '../cursor/signature.ts';
import { ListError } from '../errors.ts';
import { ALIAS_PREFIX } from '../plan/alias.ts';
import type { AnyQueryBuilder } from '../plan/apply-resolved.ts';
import type { Dialect } from '../plan/dialect.ts';
import type { KeysetColumn } from '../plan/keyset.ts';
import type { SortKey } from '../plan/order.ts';
import { type KeyShape, shapeOfField } from './key-shape.ts';
import { cursorTypeOf, readExpression, readKeyValue } from './key-values.ts';
import { selectsExplicitly } from './qb-state.ts';

/** One effective sort key with what its cursor value needs: the column's shape and the key's JSON spec. */
export interface CursorKey {
  readonly sort: SortKey;
  readonly shape: KeyShape;
  readonly spec: CursorKeySpec;
}

/** The cursor side of an effective sort: its keys and the opaque signature a cursor must carry. */
export interface CursorPlan {
  readonly keys: readonly CursorKey[];
  readonly signature: string;
}

/** What deriving a cursor plan needs from the engine: the bound root, its dialect and primary-key shapes. */
export interface KeyContext {
  readonly bound: BoundSchema;
  readonly dialect: Dialect;
  readonly primaryKey: ReadonlyMap<string, KeyShape>;
}

/**
 * Derive the cursor plan of an effective sort. The signature covers the root entity and, per key, its table,
 * column, join path (relation property names), field kind and direction: the same effective sort always gives the
 * same signature, and any change to it gives another.
 */
export function cursorPlanOf(ctx: KeyContext, sort: readonly SortKey[]): CursorPlan {
  const parts: string[] = [ctx.bound.meta.className];
  const keys = sort.map((key): CursorKey => {
    const relations = key.term?.target.relations ?? [];
    const shape = key.term ? shapeOfField(key.term.target.field) : ctx.primaryKey.get(key.column);
    if (!shape) throw new Error(`listql: no shape for sort key column ${key.column}`);
    const table = relations.at(-1)?.target.meta.tableName ?? ctx.bound.meta.tableName;
    parts.push(table, key.column, relations.map((r) => r.property).join('/'), shape.kind, key.direction);
    return { sort: key, shape, spec: { type: cursorTypeOf(shape, ctx.dialect), nullable: key.nullable } };
  });
  return { keys, signature: sortSignature(parts) };
}

/** The alias of the n-th key column read for the cursor; `lq…` is listql's reserved alias namespace. */
function keyAlias(index: number): string {
  return `${ALIAS_PREFIX}_k${index}`;
}

/** The alias of the n-th raw sort column, selected so `select distinct` can order by it (PostgreSQL requires that). */
function orderAlias(index: number): string {
  return `${ALIAS_PREFIX}_o${index}`;
}

/** Quote the column of a sort key in the planned query: a relation key lives on its join alias. */
function columnSql(qb: AnyQueryBuilder, key: SortKey, platform: Platform): string {
  return platform.quoteIdentifier(`${key.alias ?? qb.alias}.${key.column}`);
}

/** List the planned sort keys as the keyset predicate needs them. */
export function keysetColumns(qb: AnyQueryBuilder, keys: readonly CursorKey[], platform: Platform): KeysetColumn[] {
  return keys.map((k) => ({
    sql: columnSql(qb, k.sort, platform),
    direction: k.sort.direction,
    nullable: k.sort.nullable,
  }));
}

/**
 * Select every key column as an extra, collision-free column read at full precision, beside what the base scope
 * selects (all root columns when it selects nothing explicitly). The caller's own selection stays as it is.
 */
export function selectKeys(qb: AnyQueryBuilder, keys: readonly CursorKey[], ctx: KeyContext): void {
  const { platform } = ctx.bound;
  const column = (key: SortKey) => columnSql(qb, key, platform);
  const alias = (name: string) => platform.quoteIdentifier(name);
  const extra = keys.map((k, i) =>
    raw(`${readExpression(k.shape, ctx.dialect, column(k.sort))} as ${alias(keyAlias(i))}`),
  );
  if (qb.hasFlag(QueryFlag.DISTINCT))
    keys.forEach((k, i) => {
      extra.push(raw(`${column(k.sort)} as ${alias(orderAlias(i))}`));
    });
  // `addSelect` on a builder without an explicit selection would select only the extras: keep `alias.*` then.
  qb.addSelect(selectsExplicitly(qb) ? extra : [`${qb.alias}.*`, ...extra]);
}

/** Remove the extra key columns from a row; return the key values they held, as the cursor carries them. */
export function takeKeys(row: Record<string, unknown>, keys: readonly CursorKey[]): CursorValue[] {
  return keys.map((k, i) => {
    const value = readKeyValue(row[keyAlias(i)], k.spec.type);
    delete row[keyAlias(i)];
    delete row[orderAlias(i)];
    // A non-finite float is left for encodeCursor to refuse with its own clear message.
    if (typeof value === 'number' && !Number.isFinite(value)) return value;
    if (value === undefined || !keyFits(value, k.spec))
      throw new ListError('execution_failed', 'a sort key holds a value that a cursor cannot carry exactly');
    return value;
  });
}

/** Remove the extra key columns from a row without reading them. */
export function dropKeys(row: Record<string, unknown>, keys: readonly CursorKey[]): void {
  keys.forEach((_, i) => {
    delete row[keyAlias(i)];
    delete row[orderAlias(i)];
  });
}

/** Encode the cursor that continues after a row's keys. */
export function cursorAfter(plan: CursorPlan, values: readonly CursorValue[]): string {
  return encodeCursor(plan.signature, values);
}
