import { type Platform, raw } from '@mikro-orm/core';
import { QueryFlag } from '@mikro-orm/sql';
import type { Dialect } from '../dialect/index.ts';
import { executionFailed } from '../errors.ts';
import { selectsExplicitly } from '../orm/qb-state.ts';
import type { AnyQueryBuilder } from '../orm/query-builder.ts';
import { ALIAS_PREFIX } from '../plan/alias.ts';
import { keySql, type SortKey, sortExpression } from '../plan/order.ts';
import { type CursorValue, keyFits } from './cursor-codec.ts';
import type { CursorKey, KeyContext } from './cursor-plan.ts';
import { readKeyValue } from './key-values.ts';
import type { KeysetColumn } from './seek-predicate.ts';

/** The alias of the n-th key column read for the cursor; `lq…` is listql's reserved alias namespace. */
function keyAlias(index: number): string {
  return `${ALIAS_PREFIX}_k${index}`;
}

/**
 * The alias of the n-th raw sort column, selected so `select distinct` can order by it (PostgreSQL requires that),
 * and so the outer query of a UNION ALL page can order its branches' rows, when its key column does not hold it.
 */
function orderAlias(index: number): string {
  return `${ALIAS_PREFIX}_o${index}`;
}

/** The SQL of what a key orders by, as its order column selects it: the folded column of a case-insensitive key. */
function sortedSql(qb: AnyQueryBuilder, key: CursorKey, dialect: Dialect, platform: Platform): string {
  return dialect.sortedExpression(key.shape, sortExpression(dialect, key.sort, columnSql(qb, key.sort, platform)));
}

/**
 * The sort keys a UNION ALL page's outer query orders its branches' rows by: each key read from its key column
 * (`lq_k…`) when that column's SQL is exactly what the key orders by (a plain column read as it is), else from its
 * own order column (`lq_o…`, see selectKeys). Each value is then selected once.
 */
export function outerOrder(
  qb: AnyQueryBuilder,
  keys: readonly CursorKey[],
  dialect: Dialect,
  platform: Platform,
): SortKey[] {
  return keys.map((k, i) => {
    const read = dialect.keyReadExpression(k.shape, columnSql(qb, k.sort, platform));
    const column = sortedSql(qb, k, dialect, platform) === read ? keyAlias(i) : orderAlias(i);
    return { ...k.sort, column, alias: qb.alias, caseInsensitive: false };
  });
}

/** Quote the column of a sort key in the planned query (a relation key lives on its join alias), or its expression. */
function columnSql(qb: AnyQueryBuilder, key: SortKey, platform: Platform): string {
  return keySql(platform, key, qb.alias);
}

/**
 * The SQL a cursor value of an aggregate key is compared as: a number cast to the aggregate's kind (an aggregate has
 * no column type to convert it by; see Dialect.numberParameter), `?` for other kinds. Undefined for a column key.
 */
function aggregateValue(key: CursorKey, dialect: Dialect): string | undefined {
  if (key.sort.expression === undefined) return undefined;
  const kind = key.shape.kind;
  if (kind === 'integer' || kind === 'bigint') return dialect.numberParameter('integer');
  if (kind === 'decimal') return dialect.numberParameter('decimal');
  return kind === 'float' ? dialect.numberParameter('float') : undefined;
}

/**
 * List the planned sort keys as the keyset predicate needs them. A case-insensitive key compares its folded column
 * with each cursor value folded the same way in SQL (the cursor carries the value as read).
 */
export function keysetColumns(
  qb: AnyQueryBuilder,
  keys: readonly CursorKey[],
  platform: Platform,
  dialect: Dialect,
): KeysetColumn[] {
  return keys.map((k) => {
    const value = aggregateValue(k, dialect) ?? sortExpression(dialect, k.sort, dialect.seekParameter);
    return {
      sql: sortExpression(dialect, k.sort, columnSql(qb, k.sort, platform)),
      direction: k.sort.direction,
      nullable: k.sort.nullable,
      ...(k.sort.nullsFirst ? { nullsFirst: true } : {}),
      ...(value === '?' ? {} : { value }),
    };
  });
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
      // A key column that already holds what the key orders by is not selected a second time (outerOrder).
      const sorted = sortedSql(qb, k, ctx.dialect, platform);
      if (sorted !== ctx.dialect.keyReadExpression(k.shape, column(k.sort)))
        extra.push(raw(`${sorted} as ${alias(orderAlias(i))}`));
    });
  // `addSelect` on a builder without an explicit selection would select only the extras: keep `alias.*` then.
  qb.addSelect(selectsExplicitly(qb) ? extra : [`${qb.alias}.*`, ...extra]);
}

/** Remove the extra key columns from a row; return the key values they held, as the cursor carries them. */
export function takeKeys(row: Record<string, unknown>, keys: readonly CursorKey[], keep = false): CursorValue[] {
  return keys.map((k, i) => {
    const value = readKeyValue(row[keyAlias(i)], k.spec.type);
    if (!keep) {
      delete row[keyAlias(i)];
      delete row[orderAlias(i)];
    }
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
