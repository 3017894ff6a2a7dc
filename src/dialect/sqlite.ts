import type { QueryResult } from 'kysely';
import { mapFor, setNewest } from '../bounded-map.ts';
import { arrayRows, asksArrayRows } from './array-rows.ts';
import { defineDialect } from './base.ts';
import { escapeGlob } from './pattern.ts';
import { type StatementRun, statementLimit } from './statement.ts';

/** The parts of a better-sqlite3 database and statement the executor uses. */
interface NativeDatabase {
  prepare(sql: string): NativeStatement;
}
interface NativeStatement {
  readonly reader: boolean;
  all(params: readonly unknown[]): unknown[];
  /** Rows as arrays of their column values (true) or as objects (false), for this statement object. */
  raw?(toggle: boolean): unknown;
  columns?(): readonly { readonly name: string }[];
}

/** Prepared statements kept per database, least recently used closed first (better-sqlite3 finalizes on collection). */
const PREPARED_PER_DATABASE = 256;
const preparedByDatabase = new WeakMap<object, Map<string, NativeStatement>>();

/**
 * A statement starting this soon after one of the executor's turns of the event loop began skips its own: an abort
 * or a timer that arrived since is seen at most this much later, and the loop is held at most this much longer than
 * its longest statement. A turn costs 5 µs on an idle loop and far more on a busy machine (the process may lose its
 * CPU in the poll phase's system call): a tree's five statements took 150–530 µs of turns there.
 */
const TURN_AFTER_MS = 1;
/**
 * A turn that took this long was held by another statement (run by another request resumed in the same check
 * phase): the loop turns again before the statement, so that timers that fell due meanwhile (aborts) run first.
 */
const HELD_MS = 10;
/** When the latest of the executor's turns of the event loop began (performance.now()). */
let turnedAt = Number.NEGATIVE_INFINITY;

/**
 * Run one guarded statement on SQLite. Between statements the loop turns (timers and I/O first, so an abort that fell
 * due wins over the deadline) unless a turn began less than TURN_AFTER_MS ago, then the deadline is checked (always);
 * the statement itself runs on the connection MikroORM's Kysely lends (or the caller's transaction), reading rows
 * through a prepared statement kept per SQL text: preparing costs as much as running a page's statement, and a
 * compiled shape sends the same text every time. Outside a transaction a reader runs on the database itself: Kysely's
 * SQLite driver lends its one connection without a lock (acquireConnection() returns it), so borrowing it for a
 * synchronous call changed nothing but cost two promises.
 */
async function executeSqlite(run: StatementRun): Promise<QueryResult<unknown>> {
  const { client, compiled, guard, abort } = run;
  if (!guard) return client.executeQuery(compiled, abort);
  const native = nativeByClient.get(run.root) ?? (await nativeDatabase(run));
  const turn = async (): Promise<NativeStatement | undefined> => {
    let began = performance.now();
    if (began - turnedAt >= TURN_AFTER_MS) {
      for (;;) {
        await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
        // What a turn vouches for: timers and I/O due when it began.
        turnedAt = Math.max(turnedAt, began);
        // It may end long after, behind other requests' statements run in the same check phase: what fell due
        // since (an abort, the deadline's timer) has not been seen yet, so the loop turns again.
        const now = performance.now();
        if (now - began < HELD_MS) break;
        began = now;
      }
    }
    if (guard.signal?.aborted) throw guard.signal.reason;
    statementLimit(guard);
    const statement = native && prepared(native, compiled.sql);
    return statement?.reader ? statement : undefined;
  };
  const arrays = asksArrayRows(guard);
  const onConnection = async (db: typeof client): Promise<QueryResult<unknown>> => {
    const reader = await turn();
    return reader ? { rows: readRows(reader, compiled.parameters, arrays) } : db.executeQuery(compiled);
  };
  if (client.isTransaction) return onConnection(client);
  if (native === undefined) return client.connection().execute(onConnection);
  const reader = await turn();
  return reader ? { rows: readRows(reader, compiled.parameters, arrays) } : client.executeQuery(compiled);
}

/**
 * A reader's rows: as arrays where the caller asked for them (array-rows.ts), the statement switched to raw mode for
 * this one synchronous call and back (statements are shared by SQL text with callers that read objects), its column
 * names read after the run (a statement prepared again after a schema change may have others); else as objects.
 */
function readRows(statement: NativeStatement, params: readonly unknown[], arrays: boolean): unknown[] {
  if (!arrays || typeof statement.raw !== 'function' || typeof statement.columns !== 'function')
    return statement.all(params);
  statement.raw(true);
  let rows: unknown[];
  try {
    rows = statement.all(params);
  } finally {
    statement.raw(false);
  }
  return arrayRows(
    rows,
    statement.columns().map((c) => c.name),
  );
}

/** The better-sqlite3 database behind a connection's Kysely (one per Kysely: MikroORM makes both on connect). */
const nativeByClient = new WeakMap<object, NativeDatabase | null>();

async function nativeDatabase(run: StatementRun): Promise<NativeDatabase | undefined> {
  let native = nativeByClient.get(run.root);
  if (native === undefined) {
    const found = (await run.nativeClient()) as Partial<NativeDatabase> | undefined;
    native = typeof found?.prepare === 'function' ? (found as NativeDatabase) : null;
    nativeByClient.set(run.root, native);
  }
  return native ?? undefined;
}

/**
 * The text a statement is prepared from: a trailing `limit ?` (and `offset ?`), as MikroORM writes a page's, sent as
 * `limit +?`. SQLite's planner reads a bare LIMIT value and so prepares the statement again on every run, where `+?`
 * (the same integer, no affinity either way) it cannot read: a tree's top page took 80 µs against 22 µs. Only the
 * statement's end is rewritten, where the `?` is a parameter for certain (a literal would end in its quote).
 */
function preparedText(sql: string): string {
  return sql.replace(TRAILING_LIMIT, (_, offset: string | undefined) => ` limit +?${offset ? ' offset +?' : ''}`);
}
const TRAILING_LIMIT = / limit \?( offset \?)?$/i;

function prepared(db: NativeDatabase, sql: string): NativeStatement {
  const statements = mapFor(preparedByDatabase, db);
  const statement = statements.get(sql) ?? db.prepare(preparedText(sql));
  setNewest(statements, sql, statement, PREPARED_PER_DATABASE);
  return statement;
}

/**
 * SQLite through better-sqlite3 (MikroORM's `@mikro-orm/sqlite`). Its statements run synchronously and cannot be
 * stopped: the cost budget is the guard there, and the engine checks the abort signal between statements (the
 * default executor). MikroORM stores datetimes as epoch milliseconds and decimals as REAL.
 */
export const sqlite = defineDialect({
  name: 'sqlite',
  label: 'SQLite',
  execute: executeSqlite,
  // A nullable key's `k < c or k is null` reads the index from its start here too: continuation pages seek by
  // branches, each a sub-query of one compound statement (SQLite takes no parenthesized member).
  seeksNullableByUnion: true,
  // Mixed directions: the cursor's leading group and the rows after it, as two branches (81 µs against 102 µs for
  // `price,-createdAt` at 1M rows, the plain predicate filtering 1,000 rows of the cursor's price).
  seeksMixedByUnion: true,
  compoundsBySubquery: true,
  // A bound value the planner may read makes SQLite prepare the statement again on every run (STAT4): the keyset's
  // values and the branches' limits are sent as `+?` (the deep `-score` page's statement alone: 27 µs against 90 µs).
  seekParameter: '+?',

  // SQLite's LIKE folds ASCII case: GLOB is its case-sensitive pattern test. Its built-in lower() folds A–Z only.
  escapePattern: escapeGlob,
  patternWildcard: '*',
  patternTest: (subject, _column, _operator, pattern) => ({ sql: `${subject} glob ?`, params: [pattern] }),

  // Statements run on the event loop (see above): one may need at most 3/8 of maxSubqueries, so that at the scale of
  // docs/security.md none holds the loop past 250 ms. A sort through relations (80 ms over every row), an offset
  // (33 ms for 100,000 rows alone, 200–350 ms behind a relation sort) and a to-one hop (15–24 ms) cost less there.
  statementShare: 3 / 8,
  inProcess: true,
  hopCost: 1 / 4,
  relationSortCost: 1,
  offsetRowsPerUnit: 50_000,

  datetimesAsEpochMillis: true,
  decimalsAsDoubles: true,
  // better-sqlite3 reads INTEGER as a double; text keeps all 64 bits. Decimals are REAL there already.
  // INTEGER and REAL: what count(), sum() and avg() give there (numeric decimals are REAL already).
  numberParameter: (kind) => (kind === 'integer' ? 'cast(? as integer)' : 'cast(? as real)'),
  keyReadExpression: (shape, column) => (shape.kind === 'bigint' ? `cast(${column} as text)` : column),

  // better-sqlite3 binds numbers, bigints, strings, buffers and null only; MikroORM stores dates as epoch ms.
  driverValue: (value) => {
    if (value instanceof Date) return value.getTime();
    if (typeof value === 'boolean') return value ? 1 : 0;
    return value;
  },

  // Row values on the right of IN come only from a sub-query there: `(a, b) in (values (?, ?), …)`. A one-column
  // list sends each value as `+?` (no affinity, as `?` has none): the planner reads a bare value of an indexed column
  // from STAT4 and prepares the statement again on every run (a tree's reviews level: 143 µs against 243 µs).
  tupleIn: (columns, rows) => {
    if (columns.length === 1) return `${columns[0]} in (${Array.from({ length: rows }, () => '+?').join(', ')})`;
    const row = `(${columns.map(() => '?').join(', ')})`;
    return `(${columns.join(', ')}) in (values ${Array.from({ length: rows }, () => row).join(', ')})`;
  },
  // SQLITE_MAX_VARIABLE_NUMBER since SQLite 3.32, as better-sqlite3 builds it.
  maxParameters: 32_766,

  sortIndexNote: (nullable, direction) =>
    nullable && direction === 'asc'
      ? 'SQLite sorts NULLs first in ascending indexes, so no index serves this order with NULLs last'
      : undefined,
});
