import { escapeLike } from './pattern.ts';
import { statementLimit } from './statement.ts';
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
  insensitiveTest: undefined,

  emulatesNullsOrder: false,
  collationSortsCaselessly: false,
  rowValueSeek: true,
  seeksNullableByUnion: false,
  seeksMixedByUnion: false,
  compoundsBySubquery: false,
  seekParameter: '?',
  keysetHint: undefined,
  unionBranchCost: 1,
  relationSortCost: 4,
  hopCost: 1,
  offsetRowsPerUnit: 25_000,
  statementShare: undefined,
  inProcess: false,
  writerDatesGuard: undefined,
  orderTerm: (column, direction, nulls) =>
    nulls === 'any' ? `${column} ${direction}` : `${column} ${direction} nulls ${nulls}`,

  tupleIn: (columns, rows) => {
    const row = columns.length === 1 ? '?' : `(${columns.map(() => '?').join(', ')})`;
    const list = Array.from({ length: rows }, () => row).join(', ');
    return columns.length === 1 ? `${columns[0]} in (${list})` : `(${columns.join(', ')}) in (${list})`;
  },
  // PostgreSQL's and MySQL's protocols count a statement's parameters in 16 bits.
  maxParameters: 65_535,

  datetimesAsEpochMillis: false,
  decimalsAsDoubles: false,
  lowercaseUuids: false,
  numberParameter: (kind) =>
    kind === 'integer'
      ? 'cast(? as bigint)'
      : kind === 'decimal'
        ? 'cast(? as decimal)'
        : 'cast(? as double precision)',
  keyReadExpression: (_shape, column) => column,
  sortedExpression: (_shape, column) => column,
  singleFloatKeyHolds: () => true,

  numberedPlaceholders: false,
  backslashEscapes: false,
  driverValue: (value) => value,
  connectionMethods: [],
  // A statement that cannot be stopped just runs; the caller checks the signal between statements, and none starts
  // once the request's deadline has passed (statementLimit throws query_timeout then). The deadline is checked once
  // the connection is the statement's: SQLite's driver lends its one connection to one statement at a time.
  execute: async ({ client, compiled, guard, abort }) => {
    if (!guard) return client.executeQuery(compiled, abort);
    const run = async (db: typeof client) => {
      // Statements waiting for the one connection may run back to back without the loop turning: let timers and I/O
      // run first, so that an abort that fell due meanwhile wins over the deadline, and neither is missed.
      await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
      if (guard.signal?.aborted) throw guard.signal.reason;
      statementLimit(guard);
      return db.executeQuery(compiled);
    };
    return client.isTransaction ? run(client) : client.connection().execute(run);
  },
  scopesSessionSettings: false,
  stopsStatements: false,

  estimate: undefined,
  planEstimate: undefined,

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
