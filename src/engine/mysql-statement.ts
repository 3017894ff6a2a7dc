import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import { queryTimeoutError, type StatementGuard } from './statement-guard.ts';

/**
 * The parts of a mysql2 connection pool and pooled connection this module uses (mysql2's callback API, which
 * MikroORM's MySQL and MariaDB drivers create). listql does not import mysql2 itself: it uses the pool the
 * application's MikroORM already has.
 */
export interface MysqlPool {
  getConnection(cb: (err: Error | null, connection: MysqlConnection) => void): void;
  /** mysql2 keeps every open connection here (a Denque); used only to find a transaction's connection. */
  readonly _allConnections?: { toArray(): MysqlConnection[] };
}

export interface MysqlConnection {
  readonly threadId: number | null;
  execute(sql: string, values: unknown[], cb: (err: Error | null, rows: unknown) => void): void;
  query(sql: string, cb: (err: Error | null, rows: unknown) => void): void;
  unprepare(sql: string): void;
  release(): void;
}

/** Server error codes of a statement stopped by its time limit (MariaDB's max_statement_time, MySQL's hint). */
const TIMED_OUT = new Set(['ER_STATEMENT_TIMEOUT', 'ER_QUERY_TIMEOUT']);
/** How many prepared statements listql keeps open per connection before it closes the least recently used. */
const PREPARED_PER_CONNECTION = 64;

const prepared = new WeakMap<MysqlConnection, Map<string, true>>();

/**
 * Run one statement on MySQL or MariaDB as a server-side prepared statement (the values travel in the binary
 * protocol, never in the SQL text), bounded by the guard: the time limit rides on the statement itself
 * (`SET STATEMENT max_statement_time = … FOR` on MariaDB, the `MAX_EXECUTION_TIME` hint on MySQL), and an abort runs
 * `KILL QUERY` for the statement's connection from another pooled connection. The connection goes back to the pool
 * in every case. Inside a caller's transaction the statement runs on that transaction's connection.
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
  const { signal, timeout } = guard;
  if (signal?.aborted) throw signal.reason;
  const sql = timeout === undefined ? compiled.sql : limited(compiled.sql, timeout, mariaDb);
  const own = !client.isTransaction;
  const connection = own ? await acquire(pool) : await transactionConnection(pool, client);
  let running = true;
  const stop = () => {
    if (running && connection.threadId != null) kill(pool, connection.threadId, () => running);
  };
  signal?.addEventListener('abort', stop, { once: true });
  const pending = new Promise<QueryResult<unknown>>((resolve, reject) => {
    connection.execute(sql, [...compiled.parameters], (err, rows) => {
      running = false;
      if (err) reject(err);
      else resolve({ rows: Array.isArray(rows) ? (rows as unknown[]) : [] });
    });
  })
    .catch((err: unknown) => {
      const code = (err as { code?: unknown }).code;
      if (!signal?.aborted && timeout !== undefined && typeof code === 'string' && TIMED_OUT.has(code))
        throw queryTimeoutError(timeout, err);
      throw err;
    })
    .finally(() => {
      signal?.removeEventListener('abort', stop);
      remember(connection, sql);
      if (own) connection.release();
    });
  if (!signal) return pending;
  // A caller that went away is answered at once; the killed statement ends and releases its connection quietly.
  pending.catch(() => {});
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** Put a server-side time limit on one statement, in the same round trip. `timeout` is the server's setting, never client input. */
function limited(sql: string, timeout: number, mariaDb: boolean): string {
  const ms = Math.max(1, Math.floor(timeout));
  if (mariaDb) return `SET STATEMENT max_statement_time = ${(ms / 1000).toFixed(3)} FOR ${sql}`;
  // MySQL: the optimizer hint applies to read-only SELECT statements, the only ones listql sends here.
  return sql.replace(/^\s*select\b/i, (select) => `${select} /*+ MAX_EXECUTION_TIME(${ms}) */`);
}

function acquire(pool: MysqlPool): Promise<MysqlConnection> {
  return new Promise((resolve, reject) => {
    pool.getConnection((err, connection) => (err ? reject(err) : resolve(connection)));
  });
}

/** Find the pooled connection a Kysely transaction runs on, by its server thread id. */
async function transactionConnection(pool: MysqlPool, client: Kysely<any>): Promise<MysqlConnection> {
  const { rows } = await client.executeQuery<{ id: unknown }>({
    sql: 'select connection_id() as id',
    parameters: [],
    query: { kind: 'SelectQueryNode' } as never,
    queryId: { queryId: 'listql-connection-id' },
  } as CompiledQuery<{ id: unknown }>);
  const id = Number(rows[0]?.id);
  const found = pool._allConnections?.toArray().find((c) => c.threadId === id);
  // Running the statement anywhere else would leave the transaction; inlining its values is not an option either.
  if (!found) throw new Error("listql: cannot find the MySQL transaction's connection in the pool");
  return found;
}

/** Stop the statement running on thread `threadId`, from another pooled connection, if it is still running then. */
function kill(pool: MysqlPool, threadId: number, stillRunning: () => boolean): void {
  pool.getConnection((err, control) => {
    if (err) return;
    if (!stillRunning()) {
      control.release();
      return;
    }
    // A thread id the server gave this connection; no client value reaches this text.
    control.query(`KILL QUERY ${threadId}`, () => control.release());
  });
}

/** Keep the connection's prepared statements bounded: close the least recently used one past the bound. */
function remember(connection: MysqlConnection, sql: string): void {
  let statements = prepared.get(connection);
  if (!statements) {
    statements = new Map();
    prepared.set(connection, statements);
  }
  statements.delete(sql);
  statements.set(sql, true);
  if (statements.size <= PREPARED_PER_CONNECTION) return;
  const oldest = statements.keys().next().value as string;
  statements.delete(oldest);
  connection.unprepare(oldest);
}
