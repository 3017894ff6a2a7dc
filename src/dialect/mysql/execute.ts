import { CompiledQuery, type DatabaseConnection, type Kysely, type QueryResult } from 'kysely';
import { mapFor, setNewest } from '../../bounded-map.ts';
import {
  answerAtAbort,
  type StatementGuard,
  type StatementLimit,
  type StatementRun,
  statementLimit,
  timedOut,
  watchDeadline,
} from '../statement.ts';
import { readDatesAsBytes, sameDates, utcDateColumnsOf } from './date-bytes.ts';
import { statementText } from './statement-text.ts';
import { type MysqlField, textLike } from './text-rows.ts';

/**
 * The parts of a mysql2 connection pool and pooled connection this module uses (mysql2's callback API, which
 * MikroORM's MySQL and MariaDB drivers create). listql does not import mysql2 itself: it uses the pool the
 * application's MikroORM already has.
 */
export interface MysqlPool {
  getConnection(cb: (err: Error | null, connection: MysqlConnection) => void): void;
  readonly config?: { readonly connectionLimit?: number };
  /** mysql2 keeps every open connection here (a ring queue); read to find the connection a statement runs on. */
  readonly _allConnections?: MysqlConnectionList;
  /** mysql2's idle connections; read to tell whether the pool can lend one to a KILL QUERY at once. */
  readonly _freeConnections?: MysqlConnectionList;
}

interface MysqlConnectionList {
  readonly length: number;
  toArray(): MysqlConnection[];
}

export interface MysqlConnection {
  readonly threadId: number | null;
  readonly config: object & { readonly stream?: unknown };
  /** mysql2's PoolConnection class: its parent class opens a connection of listql's own for a KILL QUERY. */
  readonly constructor: object;
  execute(
    sql: string,
    values: unknown[],
    cb: (err: Error | null, rows: unknown, fields?: MysqlField[]) => void,
  ): unknown;
  query(sql: string, cb: (err: Error | null, rows: unknown) => void): void;
  unprepare(sql: string): void;
  release?(): void;
  on?(event: 'error', listener: (err: Error) => void): void;
  end?(cb?: () => void): void;
  destroy?(): void;
}

/** Server error numbers of a statement stopped by its time limit: MariaDB's max_statement_time, MySQL's hint. */
const TIMED_OUT = new Set([1969, 3024]);
/** How many prepared statements listql keeps open per connection before it closes the least recently used. */
const PREPARED_PER_CONNECTION = 64;
/** A KILL QUERY that lands between the prepare and the execute of a statement is lost: send it again, this often. */
const KILL_ATTEMPTS = 5;
const KILL_RETRY_MS = 50;

const prepared = new WeakMap<MysqlConnection, Map<string, true>>();
/** The mysql2 connection under each of Kysely's connection objects (found once, by thread id). */
const rawConnections = new WeakMap<object, MysqlConnection>();

/**
 * Run one bound statement on MySQL or MariaDB: always as a prepared statement on the driver's mysql2 pool (see
 * mysqlQuery), since Kysely's MySQL driver would splice the values into the text (mysql2's query()).
 */
export async function executeMysql(run: StatementRun, mariaDb: boolean): Promise<QueryResult<unknown>> {
  return mysqlQuery(await nativePool(run), run.client, run.compiled, run.guard ?? {}, mariaDb);
}

/** The mysql2 pool behind a MikroORM MySQL or MariaDB connection. */
async function nativePool(run: StatementRun): Promise<MysqlPool> {
  const pool = (await run.nativeClient()) as MysqlPool | undefined;
  // The statement's connection is found by its thread id among the pool's connections (rawConnectionOf).
  if (typeof pool?.getConnection !== 'function' || typeof pool._allConnections?.toArray !== 'function')
    throw new Error("listql: the MySQL connection does not expose its mysql2 pool and the pool's connections");
  return pool;
}

/**
 * Run one statement on MySQL or MariaDB as a server-side prepared statement (the values travel in the binary
 * protocol, never in the SQL text), bounded by the guard: the time limit rides on the statement itself
 * (`SET STATEMENT max_statement_time = … FOR` on MariaDB, the `MAX_EXECUTION_TIME` hint on MySQL) and answers
 * `query_timeout`; the limit is the statement timeout, or the time left before the request's deadline when that is
 * shorter. An abort, or the deadline passing, sends `KILL QUERY` for the statement's connection from another one.
 *
 * The connection is acquired through Kysely, as MikroORM acquires its own, so `onCreateConnection` and
 * `onReserveConnection` run for it (session settings such as row-level security variables hold); it goes back to the
 * pool only once the statement and any KILL sent for it are over, so a KILL never reaches another request's
 * statement. Inside a caller's transaction the statement runs on that transaction's connection, and an abort answers
 * only once the statement has stopped (the transaction's next statement waits for it anyway).
 *
 * Each connection keeps at most PREPARED_PER_CONNECTION statements prepared, so no stream of distinct filter
 * shapes can exhaust the server's `max_prepared_stmt_count`.
 */
export async function mysqlQuery(
  pool: MysqlPool,
  client: Kysely<any>,
  compiled: CompiledQuery,
  guard: StatementGuard,
  mariaDb: boolean,
): Promise<QueryResult<unknown>> {
  if (guard.signal?.aborted) throw guard.signal.reason;
  const limit = statementLimit(guard);
  const { timeout } = limit;
  const sql = statementText(compiled.sql, timeout, mariaDb);
  const values = [...compiled.parameters];
  const watch = watchDeadline(guard);
  const { signal } = watch;
  const watched = sameDates(guard, { ...guard, signal });
  const run = (connection: MysqlConnection) => runStatement(pool, connection, sql, values, watched, limit, mariaDb);
  if (client.isTransaction) return run(await rawConnectionOf(pool, client)).finally(() => watch.done());
  // The pool's own executor lends the connection (Kysely's connection().execute() would build a Kysely, an executor
  // and a connection provider around every statement): the driver's onReserveConnection still runs for it.
  const pending = client.getExecutor().provideConnection(async (wrapper) => {
    const connection = rawConnections.get(wrapper) ?? (await rawConnectionFound(pool, wrapper));
    if (signal?.aborted) throw signal.reason;
    return run(connection);
  });
  return answerAtAbort(pending, signal).finally(() => watch.done());
}

/** Run the prepared statement on `connection`; settle once it has ended and any KILL sent for it has returned. */
function runStatement(
  pool: MysqlPool,
  connection: MysqlConnection,
  sql: string,
  values: unknown[],
  guard: StatementGuard,
  limit: StatementLimit,
  mariaDb: boolean,
): Promise<QueryResult<unknown>> {
  const { signal } = guard;
  if (signal?.aborted) return Promise.reject(signal.reason);
  let running = true;
  let killing: Promise<void> | undefined;
  const stop = () => {
    killing ??= kill(pool, connection, () => running);
  };
  signal?.addEventListener('abort', stop, { once: true });
  return new Promise<QueryResult<unknown>>((resolve, reject) => {
    const command = connection.execute(sql, values, (err, rows, fields) => {
      running = false;
      if (err) reject(err);
      else resolve({ rows: Array.isArray(rows) ? textLike(rows, fields, mariaDb, utcDateColumnsOf(guard)) : [] });
    });
    readDatesAsBytes(command, connection.config); // DATETIMEs as bytes: textLike() writes mysql2's text for less.
  })
    .catch((err: unknown) => {
      if (signal?.aborted) throw signal.reason;
      const errno = (err as { errno?: unknown }).errno;
      if (limit.timeout !== undefined && typeof errno === 'number' && TIMED_OUT.has(errno))
        throw timedOut(guard, limit, err);
      throw err;
    })
    .finally(async () => {
      signal?.removeEventListener('abort', stop);
      remember(connection, sql);
      await killing;
    });
}

/**
 * The mysql2 connection a single-connection Kysely (a transaction, or connection().execute()) runs on. Kysely keeps
 * it private: it is found once per connection by its server thread id among the pool's connections.
 */
async function rawConnectionOf(pool: MysqlPool, db: Kysely<any>): Promise<MysqlConnection> {
  const wrapper = await db.getExecutor().provideConnection(async (connection) => connection);
  return rawConnections.get(wrapper) ?? rawConnectionFound(pool, wrapper);
}

/**
 * The mysql2 connection under one of Kysely's connection objects (its driver's wrapper, which keeps it private),
 * found by the server thread id the wrapper's own connection reports, and remembered for that wrapper.
 */
async function rawConnectionFound(pool: MysqlPool, wrapper: DatabaseConnection): Promise<MysqlConnection> {
  const { rows } = await wrapper.executeQuery<{ listql_connection_id: unknown }>(
    CompiledQuery.raw('select connection_id() as listql_connection_id'),
  );
  const id = Number(rows[0]?.listql_connection_id);
  const found = pool._allConnections?.toArray().find((c) => c.threadId === id);
  // Running the statement anywhere else would leave the transaction or the session; inlining values is no option.
  if (!found) throw new Error("listql: cannot find the MySQL connection's mysql2 connection in the pool");
  rawConnections.set(wrapper, found);
  return found;
}

/**
 * Stop the statement running on `target`, while it still runs: `KILL QUERY` from an idle pooled connection, or from
 * a connection of its own when the pool has none idle (the pool may be full of the very statements being stopped).
 * A KILL that reaches the server between the statement's prepare and execute is forgotten there, so it is sent again
 * while the statement still runs. Never rejects.
 */
async function kill(pool: MysqlPool, target: MysqlConnection, running: () => boolean): Promise<void> {
  const threadId = target.threadId;
  if (threadId == null) return;
  for (let attempt = 0; attempt < KILL_ATTEMPTS && running(); attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, KILL_RETRY_MS));
    // A thread id the server gave this connection; no client value reaches this text.
    if (running()) await control(pool, target, `KILL QUERY ${threadId}`, running).catch(() => {});
  }
}

function control(pool: MysqlPool, target: MysqlConnection, sql: string, running: () => boolean): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const send = (connection: MysqlConnection, done: () => void) => {
      if (!running()) {
        done();
        resolve();
        return;
      }
      connection.query(sql, (err) => {
        done();
        if (err) reject(err);
        else resolve();
      });
    };
    const idle = pool._freeConnections?.length ?? 0;
    const room = (pool._allConnections?.length ?? 0) < (pool.config?.connectionLimit ?? 0);
    if (idle > 0 || room || target.config.stream !== undefined) {
      pool.getConnection((err, connection) => {
        if (err) reject(err);
        else send(connection, () => connection.release?.());
      });
      return;
    }
    // mysql2's Connection class (the parent of its PoolConnection), connecting with the pool's own settings.
    const Connection = Object.getPrototypeOf(target.constructor) as new (options: {
      config: object;
    }) => MysqlConnection;
    const own = new Connection({ config: target.config });
    own.on?.('error', () => {});
    send(own, () => own.destroy?.());
  });
}

/** Keep the connection's prepared statements bounded: close the least recently used one past the bound. */
function remember(connection: MysqlConnection, sql: string): void {
  const oldest = setNewest(mapFor(prepared, connection), sql, true, PREPARED_PER_CONNECTION);
  if (oldest !== undefined) connection.unprepare(oldest);
}
