import { type Platform, raw } from '@mikro-orm/core';
import { QueryFlag } from '@mikro-orm/sql';
import type { BoundSchema, ResolvedSortTerm } from '../bind/types.ts';
import type { Dialect } from '../dialect/index.ts';
import { selectsExplicitly } from '../engine/qb-state.ts';
import { executionFailed } from '../errors.ts';
import { ALIAS_PREFIX } from '../plan/alias.ts';
import type { AnyQueryBuilder } from '../plan/apply-resolved.ts';
import type { KeysetColumn } from '../plan/keyset.ts';
import type { SortKey } from '../plan/order.ts';
import { type CursorKeySpec, type CursorValue, encodeCursor, keyFits } from './codec.ts';
import { keyHolds } from './key-check.ts';
import { type KeyShape, shapeOfField } from './key-shape.ts';
import { cursorTypeOf, readKeyValue } from './key-values.ts';
import { sortSignature } from './signature.ts';

/** One effective sort key with what its cursor value needs: the column's shape and the key's JSON spec. */
export interface CursorKey {
  readonly sort: SortKey;
  readonly shape: KeyShape;
  readonly spec: CursorKeySpec;
}

/**
 * The cursor side of an effective sort: its keys and the opaque signatures a cursor must carry, one for a position
 * to continue after (forward) and one for a position to page back from (backward).
 */
export interface CursorPlan {
  readonly keys: readonly CursorKey[];
  readonly signature: string;
  readonly backwardSignature: string;
}

/** The extra signed part of a backward cursor: the same sort with this marker never hashes like a forward one. */
const BACKWARD = 'backward';

/** What deriving a cursor plan needs from the engine: the bound root, its dialect and primary-key shapes. */
export interface KeyContext {
  readonly bound: BoundSchema;
  readonly dialect: Dialect;
  readonly primaryKey: ReadonlyMap<string, KeyShape>;
  /** Cursor plans already derived, by sort (see sortKeyOf); a bounded memo of a pure function. */
  readonly plans: Map<string, CursorPlan>;
}

/** Plans remembered per engine; a policy allows many sorts, so the memo is bounded. */
const MAX_PLANS = 256;

/**
 * Return the cursor plan of the requested sort terms, derived once per distinct sort and engine. The memo key
 * holds every input of the plan (relation path, property, column, kind, direction per term), so equal keys give
 * equal plans. A failing derivation (a to-many sort) is never remembered: it throws with the request's position.
 */
export function cursorPlanFor(
  ctx: KeyContext,
  terms: readonly ResolvedSortTerm[],
  derive: () => readonly SortKey[],
): CursorPlan {
  const key = terms
    .map((t) => {
      const { relations, field } = t.target;
      return `${relations.map((r) => r.property).join('/')}\u0000${field.property}\u0000${field.column}\u0000${field.kind}\u0000${t.direction}`;
    })
    .join('\u0001');
  const known = ctx.plans.get(key);
  if (known) return known;
  const plan = cursorPlanOf(ctx, derive());
  if (ctx.plans.size >= MAX_PLANS) ctx.plans.clear();
  ctx.plans.set(key, plan);
  return plan;
}

/**
 * Derive the cursor plan of an effective sort. The signature covers the root entity and, per key, its table,
 * column, join path (relation property names), field kind and direction: the same effective sort always gives the
 * same signature, and any change to it gives another. The dialect is not signed: each key must be in the form this
 * dialect writes (see key-check.ts), so a key written in another dialect's form is refused by construction. The
 * backward signature hashes the same parts and one more, a direction marker: a forward and a backward cursor of one
 * sort never share a signature, and a forward sort has 1 + 5n parts, so no forward sort can hash like it either.
 */
export function cursorPlanOf(ctx: KeyContext, sort: readonly SortKey[]): CursorPlan {
  const parts: string[] = [ctx.bound.meta.className];
  const keys = sort.map((key): CursorKey => {
    const relations = key.term?.target.relations ?? [];
    const shape = key.term ? shapeOfField(key.term.target.field, ctx.dialect) : ctx.primaryKey.get(key.column);
    if (!shape) throw new Error(`listql: no shape for sort key column ${key.column}`);
    const table = relations.at(-1)?.target.meta.tableName ?? ctx.bound.meta.tableName;
    parts.push(table, key.column, relations.map((r) => r.property).join('/'), shape.kind, key.direction);
    const holds = (value: string | number | boolean) => keyHolds(value, shape, ctx.dialect);
    return { sort: key, shape, spec: { type: cursorTypeOf(shape, ctx.dialect), nullable: key.nullable, holds } };
  });
  return { keys, signature: sortSignature(parts), backwardSignature: sortSignature([...parts, BACKWARD]) };
}

/** The alias of the n-th key column read for the cursor; `lq…` is listql's reserved alias namespace. */
function keyAlias(index: number): string {
  return `${ALIAS_PREFIX}_k${index}`;
}

/**
 * The alias of the n-th raw sort column, selected so `select distinct` can order by it (PostgreSQL requires that),
 * and so the outer query of a UNION ALL page can order its branches' rows.
 */
export function orderAlias(index: number): string {
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
    ...(k.sort.nullsFirst ? { nullsFirst: true } : {}),
  }));
}

/**
 * Select every key column as an extra, collision-free column read at full precision, beside what the base scope
 * selects (all root columns when it selects nothing explicitly). The caller's own selection stays as it is.
 */
export function selectKeys(
  qb: AnyQueryBuilder,
  keys: readonly CursorKey[],
  ctx: KeyContext,
  orderColumns = false,
): void {
  const { platform } = ctx.bound;
  const column = (key: SortKey) => columnSql(qb, key, platform);
  const alias = (name: string) => platform.quoteIdentifier(name);
  const extra = keys.map((k, i) =>
    raw(`${ctx.dialect.keyReadExpression(k.shape, column(k.sort))} as ${alias(keyAlias(i))}`),
  );
  if (orderColumns || qb.hasFlag(QueryFlag.DISTINCT))
    keys.forEach((k, i) => {
      extra.push(raw(`${ctx.dialect.sortedExpression(k.shape, column(k.sort))} as ${alias(orderAlias(i))}`));
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
    // A value its column's declared type cannot hold (SQLite does not enforce types) would make a cursor that the
    // next page refuses: fail here instead.
    if (value === undefined || !keyFits(value, k.spec) || (value !== null && !k.spec.holds?.(value)))
      throw executionFailed('a sort key holds a value that a cursor cannot carry exactly');
    return value;
  });
}

/** Remove the extra key columns from a row without reading them; return the row. */
export function dropKeys<R extends Record<string, unknown>>(row: R, keys: readonly CursorKey[]): R {
  keys.forEach((_, i) => {
    delete row[keyAlias(i)];
    delete row[orderAlias(i)];
  });
  return row;
}

/** Encode the cursor that continues after a row's keys. */
export function cursorAfter(plan: CursorPlan, values: readonly CursorValue[]): string {
  return encodeCursor(plan.signature, values);
}

/** Encode the cursor that pages back from a row's keys: the rows strictly before it. */
export function cursorBefore(plan: CursorPlan, values: readonly CursorValue[]): string {
  return encodeCursor(plan.backwardSignature, values);
}
