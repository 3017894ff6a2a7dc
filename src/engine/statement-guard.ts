import { CompiledQuery, type DatabaseConnection, type Kysely, type QueryResult } from 'kysely';
import { invalidSchema, ListError } from '../errors.ts';
import type { Dialect } from '../plan/dialect.ts';
import type { ListContext } from './config.ts';
import { applySettings, type SessionSettings, sessionSettings, swapSettings } from './session-settings.ts';

/** How one data or count statement is bounded: the caller's abort signal, and a server-side time limit. */
export interface StatementGuard {
  readonly signal?: AbortSignal | undefined;
  /** Milliseconds the database may spend on the statement; undefined: no limit. */
  readonly timeout?: number | undefined;
  /** PostgreSQL settings (`ctx.pgSettings`) the statement runs under, set with `set_config(…, true)`. */
  readonly settings?: SessionSettings | undefined;
}

/**
 * The guard of a request's statements: its signal, `ctx.statementTimeout` or else the engine's statementTimeout, and
 * `ctx.pgSettings`. Throws `invalid_schema` when `ctx.statementTimeout` is not a positive whole number of
 * milliseconds or `ctx.pgSettings` is not an object of setting names to strings.
 */
export function statementGuard(
  settings: { readonly statementTimeout?: number | undefined },
  ctx: Pick<ListContext, 'signal' | 'statementTimeout'> & { readonly pgSettings?: unknown },
): StatementGuard {
  const own = ctx.statementTimeout;
  if (own !== undefined && !(Number.isSafeInteger(own) && own >= 1))
    throw invalidSchema('ctx.statementTimeout must be a positive whole number of milliseconds');
  const timeout = own ?? settings.statementTimeout;
  return { signal: ctx.signal, timeout, settings: sessionSettings(ctx.pgSettings) };
}

/** PostgreSQL's SQLSTATE for a statement cancelled by statement_timeout or by pg_cancel_backend. */
const QUERY_CANCELED = '57014';

/**
 * Run one compiled statement under a guard. On PostgreSQL the statement runs with a `statement_timeout` and the
 * request's `pgSettings` scoped to it (its own transaction, or the caller's with the previous values put back; see
 * docs/security.md, Row-level security), and an abort cancels it on the server
 * (`pg_cancel_backend` from another pooled connection); the connection goes back to the pool in every case. SQLite
 * cannot be interrupted: the statement just runs (the caller checks the signal between statements). Abort and
 * cancellation are handled here instead of through Kysely's signal option, which logs every cancelled query with
 * console.error and can race its own control query into a TypeError.
 *
 * @example guardedQuery('postgresql', pool, pool, CompiledQuery.raw('select …', [1]), { timeout: 5000, signal })
 * // begin; set local statement_timeout = 5000 → [select set_config($1, $2, true)] → select … ($1) → rollback
 */
export async function guardedQuery(
  dialect: Dialect,
  root: Kysely<any>,
  client: Kysely<any>,
  compiled: CompiledQuery,
  guard: StatementGuard,
): Promise<QueryResult<unknown>> {
  switch (dialect) {
    case 'postgresql':
      return postgresQuery(root, client, compiled, guard);
    case 'sqlite':
      // better-sqlite3 runs the statement synchronously and cannot stop it: the cost budget is the guard there.
      return client.executeQuery(compiled);
    case 'mysql':
      // MySQL and MariaDB statements run as prepared statements through mysql-statement.ts, never through here.
      throw new Error('listql: MySQL statements run through mysqlQuery');
    default: {
      const never: never = dialect;
      throw new Error(`unknown dialect ${String(never)}`);
    }
  }
}

/** Build the error a statement stopped by its time limit rejects with: public, 503, "try a cheaper request". */
export function queryTimeoutError(timeout: number, cause: unknown): ListError {
  return new ListError(
    'query_timeout',
    `the query ran longer than ${timeout} ms and was stopped: try a cheaper request (a narrower filter, fewer relationship conditions or sort keys, or no count)`,
    { cause },
  );
}

async function postgresQuery(
  root: Kysely<any>,
  client: Kysely<any>,
  compiled: CompiledQuery,
  guard: StatementGuard,
): Promise<QueryResult<unknown>> {
  const { signal, timeout, settings } = guard;
  if (timeout === undefined && signal === undefined && settings === undefined) return client.executeQuery(compiled);
  const run = async (db: Kysely<any>, restore?: () => Promise<void>): Promise<QueryResult<unknown>> => {
    const connection = await connectionOf(db);
    await connection.collectSessionInfo?.();
    const stop = () => {
      // The control query runs on another pooled connection and cancels nothing once this statement has ended.
      connection.cancelQuery?.(controlConnection(root)).catch(() => {});
    };
    if (signal?.aborted) throw signal.reason;
    signal?.addEventListener('abort', stop, { once: true });
    try {
      const result = await db.executeQuery(compiled);
      await restore?.();
      return result;
    } catch (err) {
      if (!signal?.aborted && timeout !== undefined && (err as { code?: unknown }).code === QUERY_CANCELED)
        throw queryTimeoutError(timeout, err);
      throw err;
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  };
  let pending: Promise<QueryResult<unknown>>;
  if (client.isTransaction) {
    const scoped = [...(timeout === undefined ? [] : [timeoutSetting(timeout)]), ...(settings ?? [])];
    pending = scoped.length === 0 ? run(client) : swapSettings(client, scoped).then((back) => run(client, back));
  } else if (timeout === undefined && settings === undefined) pending = root.connection().execute((db) => run(db));
  // One pooled connection, in a transaction of its own so that `set local` and `set_config(…, true)` end with it:
  // one round trip before the statement (begin and set, as one simple query), one more for the request's settings
  // (bound parameters need a statement of their own), and a rollback after it that the caller does not wait for.
  else pending = inOwnTransaction(root, timeout, settings, run);
  return answerAtAbort(pending, signal);
}

/**
 * Settle with `pending`, or with the signal's reason as soon as it aborts: a caller that went away is answered at
 * once, while the stopped statement ends and releases its connection quietly.
 */
export function answerAtAbort<T>(pending: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return pending;
  pending.catch(() => {});
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * Run `run` on one pooled connection inside `begin; set local statement_timeout = …` (and the settings, set local to
 * the transaction) and settle with its outcome as soon as it has one; the rollback that ends the transaction (the
 * statement only reads) runs before the connection goes back to the pool, without holding up the caller.
 */
function inOwnTransaction<T>(
  root: Kysely<any>,
  timeout: number | undefined,
  settings: SessionSettings | undefined,
  run: (db: Kysely<any>) => Promise<T>,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    root
      .connection()
      .execute(async (db) => {
        // An integer the server chose (engine config or ctx), never client input; `set local` takes no parameter.
        const limit = timeout === undefined ? '' : `; set local statement_timeout = ${milliseconds(timeout)}`;
        await db.executeQuery(CompiledQuery.raw(`begin${limit}`));
        try {
          // Inside the try: a failed set_config still ends in the rollback below.
          if (settings) await applySettings(db, settings);
          resolve(await run(db));
        } catch (err) {
          reject(err);
        } finally {
          // A late cancel may hit the rollback itself; a second one then ends the transaction before the release.
          await db
            .executeQuery(CompiledQuery.raw('rollback'))
            .catch(() => db.executeQuery(CompiledQuery.raw('rollback')));
        }
      })
      // Acquiring the connection or beginning failed (the outcome is then still open), or the rollbacks did.
      .catch(reject);
  });
}

/** The statement timeout as a setting for a caller's transaction (its previous value is put back after). */
function timeoutSetting(timeout: number): readonly [string, string] {
  return ['statement_timeout', String(milliseconds(timeout))];
}

/** The setting's value: whole milliseconds, at most PostgreSQL's largest (about 24 days). */
function milliseconds(timeout: number): number {
  return Math.min(Math.floor(timeout), 2_147_483_647);
}

/** The driver connection a single-connection Kysely (a transaction, or connection().execute()) runs on. */
async function connectionOf(db: Kysely<any>): Promise<DatabaseConnection> {
  return db.getExecutor().provideConnection(async (connection) => connection);
}

function controlConnection(root: Kysely<any>) {
  const executor = root.getExecutor();
  return <T>(consumer: (connection: DatabaseConnection) => Promise<T>) => executor.provideConnection(consumer);
}
