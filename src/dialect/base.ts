import { escapeLike } from './pattern.ts';
import type { Dialect, IntegerRange } from './types.ts';

const INT64_MAX = (1n << 63n) - 1n;

/** Narrow an integer range to what a signed 64-bit integer holds: the widest integer most databases store. */
export function clampInt64(range: IntegerRange): IntegerRange {
  return range.max > INT64_MAX ? { min: range.min, max: INT64_MAX } : range;
}

/**
 * The default of every member: standard SQL, and wherever a database could differ, the choice that stays correct
 * (rewrite decimals at the column's scale, describe no statement timeout, offer no estimate). A dialect states only
 * where it differs, so a member added here breaks none of them.
 */
const BASE: Omit<Dialect, 'name' | 'label'> = {
  mariaDb: false,

  storedIntegerRange: clampInt64,
  isSinglePrecision: () => false,
  narrowTimestamps: false,
  enumsSortByPosition: false,
  exactDecimals: false,
  decimalDigits: undefined,

  foldedColumn: (column) => `lower(${column})`,
  caseSensitive: (expression) => expression,
  escapePattern: (value) => escapeLike(value),
  patternWildcard: '%',
  patternTest: (subject, _column, _operator, pattern) => ({ sql: `${subject} like ? escape '\\'`, params: [pattern] }),

  emulatesNullsOrder: false,
  rowValueSeek: true,
  seeksNullableByUnion: false,

  datetimesAsEpochMillis: false,
  decimalsAsDoubles: false,
  lowercaseUuids: false,
  keyReadExpression: (_shape, column) => column,
  sortedExpression: (_shape, column) => column,
  singleFloatKeyHolds: () => true,

  numberedPlaceholders: false,
  backslashEscapes: false,
  driverValue: (value) => value,
  connectionMethods: [],
  // A statement that cannot be stopped just runs; the caller checks the signal between statements.
  execute: ({ client, compiled, guard, abort }) =>
    guard ? client.executeQuery(compiled) : client.executeQuery(compiled, abort),
  scopesSessionSettings: false,
  stopsStatements: false,

  estimate: undefined,

  foldedIndexOperators: ['ieq'],
  indexNullsClause: false,
  createIndexIfNotExists: true,
  foreignKeyIndexNote: undefined,
  sortIndexNote: () => undefined,
};

/** Build a dialect from the members where it differs from the defaults; the result is frozen. */
export function defineDialect(own: Pick<Dialect, 'name' | 'label'> & Partial<Dialect>): Dialect {
  return Object.freeze({ ...BASE, ...own });
}
