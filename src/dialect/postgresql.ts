import type { BasePostgreSqlPlatform } from '@mikro-orm/sql';
import { clampInt64, defineDialect } from './base.ts';
import { executePostgres } from './postgresql/execute.ts';
import { readPostgresPlan } from './postgresql/plan-estimate.ts';

const PG_TIMESTAMP = `'YYYY-MM-DD"T"HH24:MI:SS.US'`;
const PG_TIMESTAMP_UTC = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/**
 * PostgreSQL (MikroORM's `@mikro-orm/postgresql`, and every platform built on its base): numbered parameters,
 * NULLS LAST in orders and indexes, exact numerics, statements cancelled on the server at their time limit or an
 * abort, request settings scoped to a statement, and the planner's row estimate for `count=estimated`.
 */
export const postgresql = defineDialect({
  name: 'postgresql',
  label: 'PostgreSQL',

  // No unsigned types: an unsigned column is the signed column of the same width (negatives still refused).
  storedIntegerRange: (range) => (range.min === 0n ? { min: 0n, max: range.max >> 1n } : clampInt64(range)),
  isSinglePrecision: (columnType) => /^(?:real|float4)$/i.test(columnType),
  exactDecimals: true,

  // lower() follows the collation's ctype (which folds `Ä` under most locales); the "C" collation folds A–Z only,
  // and an expression index on exactly this expression serves `ieq` and `istartswith`.
  foldedColumn: (column) => `lower(${column} collate "C")`,

  // A nullable key's `k < c or k is null` cannot start an index scan: branches each seek (keyset/seek-page.ts).
  seeksNullableByUnion: true,
  // Mixed directions: `k1 >= c1 and (…)` filters the cursor's k1 group row by row (1,000 rows in the bench); split
  // in two, each branch seeks (1.6 ms → 0.6 ms for the statement alone at 1M rows).
  seeksMixedByUnion: true,
  // Each branch plans its sub-queries afresh (a hashed sub-plan reads the related table once per branch).
  unionBranchCost: 2,

  lowercaseUuids: true,
  // 64-bit integers and decimals as text (JavaScript numbers would round them), timestamps as UTC text with
  // microseconds (JavaScript dates keep milliseconds only), dates as `YYYY-MM-DD` whatever the session's DateStyle.
  keyReadExpression: (shape, column) => {
    if (shape.kind === 'bigint' || shape.kind === 'decimal') return `cast(${column} as text)`;
    if (shape.kind === 'datetime')
      return shape.timezone
        ? `to_char(${column} at time zone 'UTC', ${PG_TIMESTAMP_UTC})`
        : `to_char(${column}, ${PG_TIMESTAMP})`;
    if (shape.kind === 'date') return `to_char(${column}, 'YYYY-MM-DD')`;
    return column;
  },
  singleFloatKeyHolds: holdsSingle,

  numberedPlaceholders: true,
  driverValue: (value, platform) => {
    // Same text MikroORM would inline, so timestamps honour the ORM's configured time zone.
    if (value instanceof Date) return (platform as BasePostgreSqlPlatform).formatDate(value);
    if (typeof value === 'bigint') return value.toString();
    return value;
  },
  execute: executePostgres,
  scopesSessionSettings: true,
  stopsStatements: true,

  estimate: { explainPrefix: 'explain (format json) ', planRows },
  planEstimate: { explainPrefix: 'explain (format json) ', costName: 'planner cost', read: readPostgresPlan },

  foldedIndexOperators: ['ieq', 'istartswith'],
  // PostgreSQL puts NULLs last in ascending and first in descending indexes unless told.
  indexNullsClause: true,
});

/** A PostgreSQL `real` holds the value: finite and non-zero at single precision, in the form the driver reads. */
function holdsSingle(value: number): boolean {
  const single = Math.fround(value);
  if (!Number.isFinite(single) || (single === 0 && value !== 0)) return false;
  // PostgreSQL prints a real with the fewest digits that read back as the same single; the driver parses that.
  for (let digits = 1; digits <= 9; digits++) {
    const printed = Number(single.toPrecision(digits));
    if (Math.fround(printed) === single) return printed === value;
  }
  return false;
}

/** Read the top plan node's row estimate from `explain (format json)`; undefined for a plan of another shape. */
function planRows(rows: readonly Record<string, unknown>[]): number | undefined {
  let plan = rows[0]?.['QUERY PLAN'];
  if (typeof plan === 'string') plan = JSON.parse(plan);
  const top = Array.isArray(plan) ? (plan[0] as { Plan?: { 'Plan Rows'?: unknown } } | undefined) : undefined;
  const estimate = top?.Plan?.['Plan Rows'];
  if (typeof estimate !== 'number' || !Number.isFinite(estimate) || estimate < 0) return undefined;
  return Math.round(estimate);
}
