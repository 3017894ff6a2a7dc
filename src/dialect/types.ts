import type { Platform } from '@mikro-orm/core';
import type { QueryResult } from 'kysely';
import type { StatementGuard, StatementRun } from './statement.ts';

/** The SQL families listql plans and executes for; MySQL and MariaDB are one family (see index.ts). */
export type DialectName = 'postgresql' | 'sqlite' | 'mysql';

/** The smallest and largest value an integer column holds. */
export interface IntegerRange {
  readonly min: bigint;
  readonly max: bigint;
}

/** The parts of a sort column's cursor shape the dialect reads (keyset/key-shape.ts has the whole shape). */
export interface KeyColumn {
  readonly kind: string;
  /** A datetime column that keeps its time zone (PostgreSQL `timestamptz`). */
  readonly timezone: boolean;
  /** A native ENUM column, which sorts by item position (see Dialect.enumsSortByPosition). */
  readonly ordinalEnum: boolean;
}

/** The operators that ignore ASCII case. */
export type InsensitiveOperator = 'ieq' | 'ine' | 'icontains' | 'istartswith' | 'iendswith';

/** The substring operators, whose pattern the dialect writes (the `i` forms compare folded text). */
export type PatternOperator = 'contains' | 'startswith' | 'endswith' | 'icontains' | 'istartswith' | 'iendswith';

/** A piece of SQL text whose values are `?` placeholders, with the values in placeholder order. */
export interface SqlText {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/**
 * What listql needs to know about one database: capability flags and small rules, read by every stage instead of
 * comparing dialect names. Build one with defineDialect() (base.ts), which gives every member a default, so a new
 * member breaks no dialect.
 */
export interface Dialect {
  /** The family: `mysql` covers MySQL and MariaDB, told apart by `mariaDb`. For cache keys and diagnostics only. */
  readonly name: DialectName;
  /** How messages name the database family (`MySQL or MariaDB`). */
  readonly label: string;
  /** The server is MariaDB (MikroORM's `@mikro-orm/mariadb`), not MySQL; false outside the MySQL family. */
  readonly mariaDb: boolean;

  // Literals and columns (bind).
  /** The range the database itself stores for an integer column declared with `range` (unsigned types differ). */
  storedIntegerRange(range: IntegerRange): IntegerRange;
  /** A float column of this column type is single precision (its range and resolution are far below a double's). */
  isSinglePrecision(columnType: string): boolean;
  /** TIMESTAMP columns hold 1970-01-01 00:00:01 to 2038-01-19 03:14:07 UTC only (MySQL, MariaDB). */
  readonly narrowTimestamps: boolean;
  /** A native `ENUM(...)` column sorts by item position, not by text (MySQL, MariaDB). */
  readonly enumsSortByPosition: boolean;
  /** Decimal literals compare exactly with any decimal column: no rewrite at the column's scale (PostgreSQL). */
  readonly exactDecimals: boolean;
  /** Every DECIMAL holds fewer than this many integer digits; longer literals are bounded (MySQL, MariaDB: 65). */
  readonly decimalDigits: number | undefined;

  // Case-insensitive operators and substring tests (plan/like.ts).
  /** Fold an already quoted column's ASCII letters A–Z to lower case and nothing else. */
  foldedColumn(column: string): string;
  /** Make an expression compare by its bytes, whatever the column's collation. */
  caseSensitive(expression: string): string;
  /** Escape a value for the pattern syntax of patternTest(). */
  escapePattern(value: string): string;
  /** The pattern syntax's "any characters" wildcard. */
  readonly patternWildcard: string;
  /** The case-sensitive pattern test of `subject` (an expression of `column`) against one bound pattern. */
  patternTest(subject: string, column: string, operator: PatternOperator, pattern: string): SqlText;
  /**
   * The whole test of an `i` operator on an already quoted column against its folded value, where the dialect has a
   * cheaper exact form than folding the column (MySQL and MariaDB); undefined: foldedColumn() and patternTest().
   */
  readonly insensitiveTest: ((column: string, operator: InsensitiveOperator, folded: string) => SqlText) | undefined;

  // Order and keyset pages.
  /**
   * No NULLS FIRST / LAST: NULLs sort as the smallest value, and MikroORM emulates the other placements with a
   * leading `col is null` term no index serves (MySQL, MariaDB).
   */
  readonly emulatesNullsOrder: boolean;
  /**
   * A case-insensitive sort key (`:ci`) orders by the column itself: its collation already compares letters
   * caselessly (MySQL, MariaDB, whose default collations are case-insensitive). Elsewhere it orders and seeks by
   * foldedColumn() of the column and of each cursor value.
   */
  readonly collationSortsCaselessly: boolean;
  /** Row values (`(a, id) > (?, ?)`) read as index ranges, so the keyset predicate uses them. */
  readonly rowValueSeek: boolean;
  /** Pages after a cursor on a nullable root key are sent as seekable UNION ALL branches (keyset/seek-page.ts). */
  readonly seeksNullableByUnion: boolean;
  /**
   * Pages after a cursor on root keys of mixed directions (`price,-createdAt`: three or more keyset units) are sent
   * as two UNION ALL branches, the cursor's leading group and the rows after it, so neither filters the rows of that
   * group before the cursor (keyset/seek-page.ts).
   */
  readonly seeksMixedByUnion: boolean;
  /**
   * A compound statement takes no parenthesized member, nor ORDER BY or LIMIT on one (SQLite): each UNION ALL branch
   * is sent as a sub-query, `select * from (…) union all select * from (…)` (keyset/seek-page.ts).
   */
  readonly compoundsBySubquery: boolean;
  /**
   * The placeholder of a cursor's key value and of a UNION ALL branch's LIMIT (keyset/): `?`, or on SQLite `+?`, the
   * same value, which its planner does not read. SQLite (built with STAT4, as better-sqlite3 is) plans a statement
   * again every time a value it may read is bound (a LIMIT, or a comparison with an analyzed index): a page after a
   * cursor would be prepared anew on every request. Its seeks need no value to be planned.
   */
  readonly seekParameter: string;
  /**
   * A comment for a page statement whose keyset predicate (its SQL given) holds `or` operators, which the dialect's
   * executor reads before sending it (MariaDB: planned without index merge when no other `or` is in the statement,
   * mysql/statement-text.ts); undefined where the statement is sent as built.
   */
  readonly keysetHint: ((predicate: string) => string | undefined) | undefined;
  /**
   * How many runs of the filter the cost budget charges for each such branch (bind/cost-page.ts): each repeats the
   * filter, and where a branch is read along an index the scope does not lead, it evaluates it on many more rows.
   */
  readonly unionBranchCost: number;
  /**
   * What the cost budget charges a sort through relations (bind/cost-page.ts): the data statement joins and orders
   * every matching row before its limit. In sub-queries over the scope.
   */
  readonly relationSortCost: number;
  /** What the cost budget charges a to-one hop of a filter path (a key lookup per row), in sub-queries over the scope. */
  readonly hopCost: number;
  /** Rows an offset makes the data statement produce and skip, per unit of the cost budget (bind/cost-page.ts). */
  readonly offsetRowsPerUnit: number;
  /**
   * The share of maxSubqueries one statement may need, where a statement holds the server's event loop while it runs
   * (SQLite: its driver runs statements synchronously on the main thread); undefined where a statement has no bound
   * of its own besides the request's.
   */
  readonly statementShare: number | undefined;
  /**
   * Statements run in this process, one at a time, on the event loop's thread (SQLite): no two of a request overlap
   * (nested levels, a count beside its page, a walk's next page), and listql's executor turns the event loop and
   * checks the request's signal before each guarded statement itself.
   */
  readonly inProcess: boolean;
  /**
   * The guard to send a statement under whose rows only the row writer reads, given the root's columns it would read
   * as UTC Dates from text: MySQL and MariaDB prepared statements then build those Dates from the values' bytes
   * (dialect/mysql/date-bytes.ts). Undefined where the driver's rows are read as they come.
   */
  readonly writerDatesGuard: ((guard: StatementGuard, utcColumns: ReadonlySet<string>) => StatementGuard) | undefined;
  /**
   * One ORDER BY term as text, for an order MikroORM does not build (a window's `over (… order by …)`): `column`
   * (already quoted) in `direction`, its NULLs `first` or `last`, or `any` for a column that holds none. The same
   * placement `orderBy()` gives (plan/order.ts), emulated where the database has no NULLS FIRST / LAST.
   */
  orderTerm(column: string, direction: 'asc' | 'desc', nulls: 'first' | 'last' | 'any'): string;

  // Nested selections (engine/tree/).
  /**
   * `columns in (…)` over `rows` tuples of `?` placeholders, row after row: one column is a plain list; several are
   * compared as row values, in the form the database accepts (SQLite takes row values only from a sub-query).
   */
  tupleIn(columns: readonly string[], rows: number): string;
  /** The most bound parameters one statement may carry (a nested level's parent keys are split to stay below it). */
  readonly maxParameters: number;

  // Cursor keys (keyset/key-values.ts, keyset/key-holds.ts).
  /** MikroORM stores datetimes as epoch milliseconds, so cursors carry them as integers (SQLite). */
  readonly datetimesAsEpochMillis: boolean;
  /** Decimal columns hold binary doubles, written as the shortest plain decimal of the double (SQLite). */
  readonly decimalsAsDoubles: boolean;
  /** The uuid type writes lowercase text (PostgreSQL); elsewhere a uuid is text as stored. */
  readonly lowercaseUuids: boolean;
  /**
   * The SQL a number bound to compare with an aggregate is written as, `?` its placeholder: an aggregate has no
   * column type to convert the parameter by (SQLite compares a number with text as text), so it is cast to the
   * aggregate's kind (`integer`: count and sums of integers; `decimal`; `float`).
   */
  numberParameter(kind: 'integer' | 'decimal' | 'float'): string;
  /** The SQL that reads a sort column at full precision for a cursor key (`column` is already quoted). */
  keyReadExpression(shape: KeyColumn, column: string): string;
  /** The value a sort column is ordered by (`column` is already quoted). */
  sortedExpression(shape: KeyColumn, column: string): string;
  /** A cursor key of a single-precision float column is a value the driver reads back from that column. */
  singleFloatKeyHolds(value: number): boolean;

  // Statements (orm/bound-sql.ts, engine/execute.ts).
  /** Parameters are `$1…$n` (PostgreSQL), not `?`. */
  readonly numberedPlaceholders: boolean;
  /** Single- and double-quoted strings escape with backslashes and `#` starts a line comment (MySQL's lexicon). */
  readonly backslashEscapes: boolean;
  /** Convert a value to what the driver binds with the meaning MikroORM's inlined literal would have had. */
  driverValue(value: unknown, platform: Platform): unknown;
  /** Methods of MikroORM's SQL connection the executor relies on beyond the common ones (compat.ts checks them). */
  readonly connectionMethods: readonly string[];
  /** Run one bound statement under its guard (time limit, abort, session settings). */
  execute(run: StatementRun): Promise<QueryResult<unknown>>;
  /** `ctx.pgSettings` can scope settings to a statement (PostgreSQL). */
  readonly scopesSessionSettings: boolean;
  /** A running statement can be stopped, so a statement timeout answers `query_timeout` (not SQLite). */
  readonly stopsStatements: boolean;

  // Estimated counts (engine/estimate.ts).
  /** How to read the planner's row estimate, where it gives one worth answering with (PostgreSQL). */
  readonly estimate: RowEstimate | undefined;
  /** How to ask the planner for a statement's cost without running it (engine/plan-check.ts); none on SQLite. */
  readonly planEstimate: PlanEstimate | undefined;

  // Index advice (engine/indexes.ts).
  /** The case-insensitive operators an expression index on the folded column serves. */
  readonly foldedIndexOperators: readonly ('ieq' | 'istartswith')[];
  /** An index column can say `nulls last` (PostgreSQL). */
  readonly indexNullsClause: boolean;
  /** `create index if not exists` is accepted (all but MySQL). */
  readonly createIndexIfNotExists: boolean;
  /** Caveat of a correlation index, where the engine already indexes foreign keys. */
  readonly foreignKeyIndexNote: string | undefined;
  /** The caveat of a sort index in one direction, if any. */
  sortIndexNote(nullable: boolean, direction: 'asc' | 'desc'): string | undefined;
}

/** The planner's estimate of a statement, for the opt-in plan check: what precedes it, and how to read the answer. */
export interface PlanEstimate {
  /** What precedes the statement to get its plan instead of its rows (no ANALYZE: nothing runs). */
  readonly explainPrefix: string;
  /** What the cost counts, as an error names it (`cost`, `rows examined`). */
  readonly costName: string;
  /** The plan's figures, or undefined when the answer has another shape. */
  read(rows: readonly Record<string, unknown>[]): PlanFigures | undefined;
}

/** What the planner expects of a statement, as if no LIMIT stopped it early. */
export interface PlanFigures {
  /** PostgreSQL: the plan's total cost; MySQL and MariaDB: the rows it expects to examine, sub-queries included. */
  readonly cost: number;
  /** The rows the statement is expected to select before its LIMIT. */
  readonly rows: number;
}

/** The planner's row estimate: what precedes the rows query, and how to read the answer. */
export interface RowEstimate {
  /** What precedes the rows query to get its plan instead of its rows. */
  readonly explainPrefix: string;
  /** The top plan node's row estimate, or undefined when the plan has another shape. */
  planRows(rows: readonly Record<string, unknown>[]): number | undefined;
}
