import { CompiledQuery, type DatabaseConnection, type Kysely, type QueryResult } from 'kysely';
import {
  answerAtAbort,
  type StatementGuard,
  type StatementLimit,
  type StatementRun,
  statementLimit,
  timedOut,
  watchDeadline,
} from '../statement.ts';
import { clientLimitWatchers, controlConnection, QUERY_CANCELED, runAlone } from './alone.ts';
import { cancelOwnSocket, cancelsOnOwnSocket, type PgPool, sessionPid } from './cancel.ts';
import { applySettings, type SessionSettings, swapSettings } from './session-settings.ts';

export { clientLimitWatchers } from './alone.ts';

/**
 * Run one bound statement on PostgreSQL. Under a guard, the statement is bounded by its time limit (the statement
 * timeout, or the time left before the request's deadline when that is shorter), and an abort or the limit cancels
 * it on the server with PostgreSQL's cancel request on a socket of its own, never a pooled connection (cancel.ts).
 * The statement goes out alone on a pooled connection (or in the caller's transaction) and a client timer keeps its
 * limit; with `pgSettings` it runs in a transaction of its own (`begin; set local statement_timeout = …`, the
 * settings, the statement, `rollback`), and in a caller's transaction the settings are put back after it; a pool
 * without pg's members gets that server-side form too. The connection goes back to the pool in every case, and only
 * once a cancel sent for it has been delivered. Abort and cancellation are handled here instead of through Kysely's
 * signal option, which logs every cancelled query with console.error and can race its own control query into a
 * TypeError. Without a guard (the application's own execute()), MikroORM's abort options go to Kysely as they are.
 *
 * @example executePostgres({ root: pool, client: pool, compiled, guard: { timeout: 5000, signal }, … })
 * // select … ($1), cancelled from a socket of its own if it runs 5000 ms
 */
export function executePostgres(run: StatementRun): Promise<QueryResult<unknown>> {
  const { client, compiled, guard, abort } = run;
  return guard ? postgresQuery(run, guard) : client.executeQuery(compiled, abort);
}

/** One statement's bounds as its run on a connection sees them. */
interface Bounds {
  readonly guard: StatementGuard;
  readonly limit: StatementLimit;
  /** The caller's signal and the request's deadline. */
  readonly signal: AbortSignal | undefined;
  /** The limit in milliseconds when the client keeps it (a cancel when it runs out); undefined: the server does. */
  readonly kept: number | undefined;
}

/** Run a guarded statement on the way its settings and the pool allow: alone, in the caller's transaction, or in its own. */
async function postgresQuery(statement: StatementRun, guard: StatementGuard): Promise<QueryResult<unknown>> {
  const { root, client, compiled } = statement;
  const { settings } = guard;
  const limit = statementLimit(guard);
  const { timeout } = limit;
  const bare = timeout === undefined && guard.signal === undefined && settings === undefined;
  // A walk's page alone on a pooled connection may be read past pg's Query (runAlone), with or without limits.
  const walk = !client.isTransaction && settings === undefined && walkPage(guard);
  if (bare && !walk) return client.executeQuery(compiled);
  // The client keeps the limit unless pgSettings need a transaction anyway (then `set local` is free) or the pool
  // cannot cancel on a socket of its own (not pg's, or behind a pooler such as PgBouncer).
  const ownSocket = (timeout !== undefined || walk) && settings === undefined && (await cancelsOnOwnSocket(statement));
  if (bare && !ownSocket) return client.executeQuery(compiled);
  const onClient = timeout !== undefined && ownSocket;
  // One statement, one round trip (the backend's pid for a cancel is read once per pooled connection).
  if (!client.isTransaction && settings === undefined && (timeout === undefined || onClient))
    return runAlone(statement, guard, limit, onClient ? milliseconds(timeout) : undefined, walk && ownSocket);
  const watch = watchDeadline(guard);
  const { signal } = watch;
  const bounds: Bounds = { guard, limit, signal, kept: onClient ? milliseconds(timeout) : undefined };
  // Settles once a cancel sent for the connection has been delivered: the caller's transaction goes on after it.
  const run = async (db: Kysely<any>, restore?: () => Promise<void>) => {
    const hold: Hold = {};
    try {
      return await runBounded(statement, bounds, db, hold, restore);
    } finally {
      await hold.free;
    }
  };
  let pending: Promise<QueryResult<unknown>>;
  if (client.isTransaction) {
    const scoped = [...(timeout === undefined || onClient ? [] : [timeoutSetting(timeout)]), ...(settings ?? [])];
    pending = scoped.length === 0 ? run(client) : swapSettings(client, scoped).then((back) => run(client, back));
  }
  // One pooled connection, in a transaction of its own so that `set local` and `set_config(…, true)` end with it:
  // one round trip before the statement (begin and set, as one simple query), one more for the request's settings
  // (bound parameters need a statement of their own), and a rollback after it that the caller does not wait for.
  // The backend's pid (for a cancel) is read before `begin`, so the transaction holds only the statement's own work.
  else pending = inOwnTransaction(root, timeout, settings, run, signal && backendPid);
  return answerAtAbort(pending, signal).finally(() => watch.done());
}

/** The guards of walk pages whose page statement has run (or gone to pg's Query). */
const walkPagesRun = new WeakSet<StatementGuard>();

/**
 * Whether the statement is a walk's page: the first statement run under a guard marked `walk` (each page's guard is
 * its own, renewDeadline()). The nested selections' levels that follow it run under the same guard and keep pg's
 * Query.
 */
function walkPage(guard: StatementGuard): boolean {
  if (guard.walk !== true || walkPagesRun.has(guard)) return false;
  walkPagesRun.add(guard);
  return true;
}

/** Until when a statement's connection must serve nothing else: the delivery of a cancel sent for it. */
interface Hold {
  free?: Promise<void> | undefined;
}

/**
 * Run the statement on `db` (one connection), cancelled on the server when the signal aborts or the client's timer
 * runs out; `restore` puts a caller's transaction settings back after it. Settles with the statement's outcome and
 * leaves in `hold` the delivery of a cancel sent for it: until then the connection may run nothing else, or the
 * cancel could stop a later statement on it.
 */
async function runBounded(
  statement: StatementRun,
  { guard, limit, signal, kept }: Bounds,
  db: Kysely<any>,
  hold: Hold,
  restore?: () => Promise<void>,
): Promise<QueryResult<unknown>> {
  const connection = await connectionOf(db);
  const pid = signal || kept !== undefined ? await sessionPid(connection) : undefined;
  let cancelling: Promise<void> | undefined;
  const stop = () => {
    cancelling ??= cancelOwnSocket(statement.nativeClient() as Promise<PgPool | undefined>, pid).then((sent) => {
      // A driver without pg's pool members: the cancel goes through another pooled connection instead, not
      // awaited (it may wait for this very connection; it cancels nothing once the statement has ended).
      if (!sent) connection.cancelQuery?.(controlConnection(statement.root)).catch(() => {});
    });
  };
  if (signal?.aborted) throw signal.reason;
  signal?.addEventListener('abort', stop, { once: true });
  let clock: ReturnType<typeof setTimeout> | undefined;
  if (kept !== undefined) {
    for (const watcher of clientLimitWatchers) watcher(statement.compiled.sql, kept);
    // A limit set by the deadline needs no timer of its own: the deadline's timer aborts the signal.
    if (!limit.byDeadline) clock = setTimeout(stop, kept);
  }
  try {
    const result = await db.executeQuery(statement.compiled);
    await restore?.();
    return result;
  } catch (err) {
    // Stopped by the client's timer, or by a statement_timeout of the server (the caller's `set local`, the role's).
    if (!signal?.aborted && limit.timeout !== undefined && (err as { code?: unknown }).code === QUERY_CANCELED)
      throw timedOut(guard, limit, err);
    throw err;
  } finally {
    clearTimeout(clock);
    signal?.removeEventListener('abort', stop);
    hold.free = cancelling;
  }
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
  return sessionPid(await connectionOf(db));
}

/** The driver connection a single-connection Kysely (a transaction, or connection().execute()) runs on. */
async function connectionOf(db: Kysely<any>): Promise<DatabaseConnection> {
  return db.getExecutor().provideConnection(async (connection) => connection);
}
