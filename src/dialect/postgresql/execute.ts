import { CompiledQuery, type DatabaseConnection, type Kysely, type QueryResult } from 'kysely';
import {
  answerAtAbort,
  type StatementGuard,
  type StatementRun,
  statementLimit,
  timedOut,
  watchDeadline,
} from '../statement.ts';
import { cancelOwnSocket, type PgPool, sessionPid } from './cancel.ts';
import { applySettings, type SessionSettings, swapSettings } from './session-settings.ts';

/** PostgreSQL's SQLSTATE for a statement cancelled by statement_timeout or by pg_cancel_backend. */
const QUERY_CANCELED = '57014';

/**
 * Run one bound statement on PostgreSQL. Under a guard, the statement runs with a `statement_timeout` and the
 * request's `pgSettings` scoped to it (its own transaction, or the caller's with the previous values put back; see
 * docs/security.md, Row-level security), and an abort or the request's deadline cancels it on the server (PostgreSQL's
 * cancel request on a socket of its own, never a pooled connection: see cancel.ts); the connection goes back to the
 * pool in every case, and only once a cancel sent for it has been delivered. The time limit is the statement timeout,
 * or the time left before the request's deadline when that is shorter. Abort and
 * cancellation are handled here instead of through Kysely's signal option, which logs every cancelled query with
 * console.error and can race its own control query into a TypeError. Without a guard (the application's own
 * execute()), MikroORM's abort options go to Kysely as they are.
 *
 * @example executePostgres({ root: pool, client: pool, compiled, guard: { timeout: 5000, signal }, … })
 * // begin; set local statement_timeout = 5000 → [select set_config($1, $2, true)] → select … ($1) → rollback
 */
export function executePostgres(run: StatementRun): Promise<QueryResult<unknown>> {
  const { client, compiled, guard, abort } = run;
  return guard ? postgresQuery(run, guard) : client.executeQuery(compiled, abort);
}

/** size: the statement's run, its cancel and its three ways onto a connection share one limit and one signal. */
async function postgresQuery(statement: StatementRun, guard: StatementGuard): Promise<QueryResult<unknown>> {
  const { root, client, compiled } = statement;
  const { settings } = guard;
  const limit = statementLimit(guard);
  const { timeout } = limit;
  if (timeout === undefined && guard.signal === undefined && settings === undefined)
    return client.executeQuery(compiled);
  const watch = watchDeadline(guard);
  const { signal } = watch;
  const run = async (db: Kysely<any>, restore?: () => Promise<void>): Promise<QueryResult<unknown>> => {
    const connection = await connectionOf(db);
    const pid = signal && (await sessionPid(connection, db));
    let cancelling: Promise<void> | undefined;
    const stop = () => {
      cancelling ??= cancelOwnSocket(statement.nativeClient() as Promise<PgPool | undefined>, pid).then((sent) => {
        // A driver without pg's pool members: the cancel goes through another pooled connection instead, not
        // awaited (it may wait for this very connection; it cancels nothing once the statement has ended).
        if (!sent) connection.cancelQuery?.(controlConnection(root)).catch(() => {});
      });
    };
    if (signal?.aborted) throw signal.reason;
    signal?.addEventListener('abort', stop, { once: true });
    try {
      const result = await db.executeQuery(compiled);
      await restore?.();
      return result;
    } catch (err) {
      if (!signal?.aborted && timeout !== undefined && (err as { code?: unknown }).code === QUERY_CANCELED)
        throw timedOut(guard, limit, err);
      throw err;
    } finally {
      signal?.removeEventListener('abort', stop);
      // The connection stays out of the pool until the cancel is delivered: it can never stop another statement.
      await cancelling;
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
  // The backend's pid (for a cancel) is read before `begin`, so the transaction holds only the statement's own work.
  else pending = inOwnTransaction(root, timeout, settings, run, signal && backendPid);
  return answerAtAbort(pending, signal).finally(() => watch.done());
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
  before?: (db: Kysely<any>) => Promise<unknown>,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    root
      .connection()
      .execute(async (db) => {
        await before?.(db);
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

/** The backend process id of the connection `db` runs on (read once per connection). */
async function backendPid(db: Kysely<any>): Promise<number | undefined> {
  return sessionPid(await connectionOf(db), db);
}

/** The driver connection a single-connection Kysely (a transaction, or connection().execute()) runs on. */
async function connectionOf(db: Kysely<any>): Promise<DatabaseConnection> {
  return db.getExecutor().provideConnection(async (connection) => connection);
}

function controlConnection(root: Kysely<any>) {
  const executor = root.getExecutor();
  return <T>(consumer: (connection: DatabaseConnection) => Promise<T>) => executor.provideConnection(consumer);
}
