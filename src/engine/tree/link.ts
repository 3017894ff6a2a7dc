import type { EntityProperty, MetadataStorage } from '@mikro-orm/core';
import { raw } from '@mikro-orm/sql';
import type { BoundRelation, BoundSchema } from '../../bind/types.ts';
import type { Dialect } from '../../dialect/index.ts';
import { executionFailed, invalidSchema } from '../../errors.ts';
import type { CursorValue } from '../../keyset/cursor-codec.ts';
import type { CursorKey, KeyContext } from '../../keyset/cursor-plan.ts';
import { primaryKeyShapes } from '../../keyset/key-shape.ts';
import { readKeyValue } from '../../keyset/key-values.ts';
import { parentKeyOf } from '../../keyset/nested-cursor.ts';
import { selectsExplicitly } from '../../orm/qb-state.ts';
import { type ColumnPair, linkOf } from '../../plan/correlate.ts';
import type { AnyQueryBuilder } from '../../plan/plan-query.ts';

/**
 * How a nested level's rows point at their parents: the parent's columns (`outer`, read from the parent rows), the
 * level's columns holding the same values (`inner`, on the target table or, for m:n, on the pivot table), and for
 * m:n the pivot table and how it joins the target. Read from the side of each relation that names real columns
 * (plan/correlate.ts).
 */
export interface LevelLink {
  /** The parent's columns, each with the shape its values are read and carried in (its cursor key). */
  readonly outer: readonly CursorKey[];
  /** The level's columns that hold the parent's key, in the same order and read in the same shapes. */
  readonly inner: readonly CursorKey[];
  /** M:N: the pivot table (`inner` is on it) and its columns (`inner`) against the target's (`outer`). */
  readonly pivot?: { readonly table: string; readonly pairs: readonly ColumnPair[] };
}

/** The alias of a nested level's target table in its statement; `lq…` is listql's reserved alias namespace. */
export const LEVEL_ALIAS = 'lq_n';
/** The alias of the pivot table an m:n level joins. */
export const PIVOT_ALIAS = 'lq_j';

const NO_SPAN = { offset: 0, line: 1, column: 1, end: 0 };

/** Column aliases by index, built once: a row's key columns are read by them for every row. */
const aliases = (prefix: string) => {
  const known: string[] = [];
  return (index: number): string => {
    let name = known[index];
    if (name === undefined) {
      name = `${prefix}${index}`;
      known[index] = name;
    }
    return name;
  };
};

/** The alias of the n-th parent link column a row carries for its nested levels. */
export const linkAlias: (index: number) => string = aliases('lq_l');

/** The alias of the n-th parent key column a nested level's row carries (the parent it belongs to). */
export const parentAlias: (index: number) => string = aliases('lq_p');

/**
 * A value that is the same for two parent keys exactly when they hold the same values: a one-column key's value
 * itself when it is a string or a number (a Map tells 1 from '1', as JSON does), else the key's JSON. A level's keys
 * all have the same width, so the two forms never meet in one map.
 */
export function keyIdentity(values: readonly CursorValue[]): unknown {
  return values.length === 1 ? valueIdentity(values[0]!) : JSON.stringify(values);
}

/** keyIdentity() of a one-value key, without the list. */
export function valueIdentity(value: CursorValue): unknown {
  return typeof value === 'number' || typeof value === 'string' ? value : JSON.stringify([value]);
}

const contexts = new WeakMap<BoundSchema, KeyContext>();

/** The key context of a nested target (its primary-key shapes, its cursor plans), derived once per bound schema. */
export function keyContextOf(bound: BoundSchema, dialect: Dialect): KeyContext {
  let ctx = contexts.get(bound);
  if (!ctx) {
    ctx = Object.freeze({ bound, dialect, primaryKey: primaryKeyShapes(bound, dialect), plans: new Map() });
    contexts.set(bound, ctx);
  }
  return ctx;
}

/**
 * Work out how a selected relation's rows point at the parent rows. Every parent link column must be a primary-key
 * column of one side (the parent's, or for a to-one held by the parent, the target's), whose shape says how its
 * values are read exactly and carried in a nested cursor; a relation referencing other columns is refused.
 */
export function levelLink(
  relation: BoundRelation,
  parent: KeyContext,
  target: KeyContext,
  metadata: MetadataStorage,
): LevelLink {
  const link = linkOf(relation.prop, metadata, NO_SPAN);
  const outer = link.pairs.map((pair) => {
    const shape =
      parent.primaryKey.get(pair.outer) ?? (link.kind === 'direct' ? target.primaryKey.get(pair.inner) : undefined);
    if (!shape)
      throw invalidSchema(
        `${parent.bound.entityName}.${relation.property}: a nested selection needs the relation to reference a primary key`,
      );
    return parentKeyOf(pair.outer, shape, parent.dialect);
  });
  const inner = link.pairs.map((pair, i) => ({ ...outer[i]!, sort: { ...outer[i]!.sort, column: pair.inner } }));
  if (link.kind === 'direct') return { outer, inner };
  const { pivot } = link;
  const side = pivot.properties[link.targetProperty]!;
  const targetColumns = referenced(side);
  const pairs = side.fieldNames.map((column, i) => ({ inner: column, outer: targetColumns[i]! }));
  const table = pivot.schema && pivot.schema !== '*' ? `${pivot.schema}.${pivot.tableName}` : pivot.tableName;
  return { outer, inner, pivot: { table, pairs } };
}

/** The columns a foreign key points at: its referencedColumnNames, else its target's primary-key columns. */
function referenced(fk: EntityProperty): readonly string[] {
  if (fk.referencedColumnNames?.length) return fk.referencedColumnNames;
  return (fk.targetMeta?.getPrimaryProps() ?? []).flatMap((p) => p.fieldNames ?? []);
}

/**
 * Select key columns (`keys[i]` on `alias`) as extra columns read at full precision under `name(i)`, beside what the
 * builder selects (all of its root's columns when it selects nothing explicitly).
 */
export function selectKeyColumns(
  qb: AnyQueryBuilder,
  alias: string,
  keys: readonly CursorKey[],
  name: (index: number) => string,
  ctx: KeyContext,
): void {
  if (keys.length === 0) return;
  const quote = (id: string) => ctx.bound.platform.quoteIdentifier(id);
  const extra = keys.map((k, i) =>
    raw(`${ctx.dialect.keyReadExpression(k.shape, quote(`${alias}.${k.sort.column}`))} as ${quote(name(i))}`),
  );
  qb.addSelect(selectsExplicitly(qb) ? extra : [`${qb.alias}.*`, ...extra]);
}

/**
 * Take the key columns `name(i)` out of a row and return their values as a cursor carries them, NULL as null (a
 * parent without a related row). `keep`: read them and leave the row as it is.
 */
export function takeKeyColumns(
  row: Record<string, unknown>,
  keys: readonly CursorKey[],
  name: (index: number) => string,
  keep = false,
): CursorValue[] {
  return keys.map((k, i) => takeKeyColumn(row, k, name(i), keep));
}

/** One key column's value, read exactly (see takeKeyColumns). */
export function takeKeyColumn(row: Record<string, unknown>, key: CursorKey, name: string, keep = false): CursorValue {
  const value = readKeyValue(row[name], key.spec.type);
  if (!keep) delete row[name];
  if (value === undefined) throw executionFailed('a key column holds a value listql cannot read exactly');
  return value;
}

/** The values at `indexes` of a row's link values, or null when any is NULL (no related row to look for). */
export function keyAt(values: readonly CursorValue[], indexes: readonly number[]): CursorValue[] | null {
  const key: CursorValue[] = [];
  for (const i of indexes) {
    const value = values[i];
    if (value === null || value === undefined) return null;
    key.push(value);
  }
  return key;
}
