import type { CompiledQuery, DatabaseConnection, Kysely, QueryResult } from 'kysely';
import { queryTimeout } from '../../errors.ts';
import { type StatementGuard, type StatementLimit, type StatementRun, timedOut } from '../statement.ts';
import { cancelOwnSocket, type PgPool, sessionPid } from './cancel.ts';
import { directClient, readDirect } from './walk-read.ts';

/** PostgreSQL's SQLSTATE for a statement cancelled by statement_timeout or by pg_cancel_backend. */
export const QUERY_CANCELED = '57014';

/**
 * Watchers of the time limits the client keeps (a timer that cancels): each is told the statement and its limit in
 * milliseconds as the timer starts. The tests read the limits here, since no statement the server receives names them.
 */
export const clientLimitWatchers = new Set<(sql: string, milliseconds: number) => void>();

/**
 * Run a guarded statement alone on a pooled connection (the common case: no transaction, no `pgSettings`), bounded
 * by the caller's signal, the request's deadline and `kept`, the limit the client's timer keeps (undefined when there
 * is none). An abort or the deadline answers the caller at once and cancels the statement if it runs (or it never
 * starts); the timer cancels it and it answers `query_timeout` once the server has stopped it. A cancel goes out on a
 * socket of its own (cancel.ts), and the connection goes back to the pool only once it has been delivered.
 *
 * One promise and the caller's signal's one listener: no AbortController, no promise racing the statement, and the
 * connection taken from the pool's executor itself (Kysely's `connection().execute()` would build a Kysely, an
 * executor and a connection provider around every statement), so that a time limit costs little beside the statement.
 *
 * `direct`: the statement is a page of a pages()/items() walk on a pool whose clients talk to PostgreSQL itself, so
 * its rows may be read past pg's Query (walk-read.ts), under the same abort, limit and cancel.
 */
export function runAlone(
  statement: StatementRun,
  guard: StatementGuard,
  limit: StatementLimit,
  kept: number | undefined,
  direct = false,
): Promise<QueryResult<unknown>> {
  const { signal, deadline } = guard;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const executor = statement.root.getExecutor();
  return new Promise((resolve, reject) => {
    const caller: Caller = {
      answered: false,
      stop: undefined,
      answer(failed, outcome) {
        if (caller.answered) return;
        caller.answered = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (failed) reject(outcome);
        else resolve(outcome as QueryResult<unknown>);
      },
    };
    const halt = (reason: unknown) => {
      if (caller.answered) return;
      caller.answer(true, reason);
      caller.stop?.();
    };
    const onAbort = () => halt(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    // The deadline answers a statement still waiting for a pooled connection too.
    const timer = deadline
      ? setTimeout(
          () => halt(queryTimeout(deadline.timeout, undefined, true)),
          Math.max(0, deadline.at - performance.now()),
        )
      : undefined;
    timer?.unref?.();
    executor
      .provideConnection((connection) =>
        onConnection(statement, guard, limit, kept, executor, connection, caller, direct),
      )
      // Acquiring the connection or reading its backend's pid failed.
      .catch((err: unknown) => caller.answer(true, err));
  });
}

/** The caller of one statement: answered once, by the statement's outcome, an abort or the deadline. */
interface Caller {
  /** Once true, the caller has its answer and a statement not yet sent never will be. */
  answered: boolean;
  /** Cancels the running statement on the server; set while it runs. */
  stop: (() => void) | undefined;
  answer(failed: boolean, outcome: unknown): void;
}

/**
 * Run the statement on the connection lent to it, unless the caller was answered meanwhile, and give the connection
 * back (by returning) only once a cancel sent for it has been delivered.
 */
async function onConnection(
  statement: StatementRun,
  guard: StatementGuard,
  limit: StatementLimit,
  kept: number | undefined,
  executor: Executor,
  connection: DatabaseConnection,
  caller: Caller,
  direct: boolean,
): Promise<void> {
  if (caller.answered) return;
  const pid = await sessionPid(connection);
  // A Kysely plugin may change the statement or its rows: only the executor applies it.
  const client =
    direct && executor.plugins.length === 0 ? await directClient(statement.nativeClient, connection, pid) : undefined;
  if (caller.answered) return;
  let cancelling: Promise<void> | undefined;
  const stop = () => {
    cancelling ??= cancelOwnSocket(statement.nativeClient() as Promise<PgPool | undefined>, pid).then((sent) => {
      // A driver without pg's pool members: the cancel goes through another pooled connection instead, not
      // awaited (it may wait for this very connection; it cancels nothing once the statement has ended).
      if (!sent) connection.cancelQuery?.(controlConnection(statement.root)).catch(() => {});
    });
  };
  caller.stop = stop;
  let clock: ReturnType<typeof setTimeout> | undefined;
  if (kept !== undefined) {
    for (const watcher of clientLimitWatchers) watcher(statement.compiled.sql, kept);
    // A limit set by the deadline needs no timer of its own: the deadline's timer stops the statement.
    if (!limit.byDeadline) clock = setTimeout(stop, kept);
  }
  try {
    const read = client && readDirect(client, statement.compiled);
    caller.answer(false, await (read ?? send(executor, connection, statement.compiled)));
  } catch (err) {
    // Stopped by the client's timer, or by a statement_timeout of the server (the role's).
    const cancelled = limit.timeout !== undefined && (err as { code?: unknown }).code === QUERY_CANCELED;
    caller.answer(true, cancelled ? timedOut(guard, limit, err) : err);
  } finally {
    clearTimeout(clock);
    caller.stop = undefined;
    await cancelling;
  }
}

/** A Kysely's query executor. */
type Executor = ReturnType<Kysely<any>['getExecutor']>;

/**
 * Send `query` on `connection`: to the driver's connection as it is when the pool's Kysely has no plugins (MikroORM
 * adds none), else through an executor bound to that connection, which applies them.
 */
function send(executor: Executor, connection: DatabaseConnection, query: CompiledQuery): Promise<QueryResult<unknown>> {
  if (executor.plugins.length === 0) return connection.executeQuery(query);
  return executor.withConnectionProvider({ provideConnection: (consumer) => consumer(connection) }).executeQuery(query);
}

/** A provider of the root's other pooled connections, for a driver's own cancel. */
export function controlConnection(root: Kysely<any>) {
  const executor = root.getExecutor();
  return <T>(consumer: (connection: DatabaseConnection) => Promise<T>) => executor.provideConnection(consumer);
}
