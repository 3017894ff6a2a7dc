import type { CompiledQuery, Kysely } from 'kysely';
import { invalidSchema, type ListError, queryTimeout } from '../errors.ts';
import { type SessionSettings, sessionSettings } from './postgresql/session-settings.ts';

/** How one data or count statement is bounded: the caller's abort signal, and a server-side time limit. */
export interface StatementGuard {
  readonly signal?: AbortSignal | undefined;
  /** Milliseconds the database may spend on the statement; undefined: no limit. */
  readonly timeout?: number | undefined;
  /** PostgreSQL settings (`ctx.pgSettings`) the statement runs under, set with `set_config(…, true)`. */
  readonly settings?: SessionSettings | undefined;
  /**
   * The request's deadline, shared by all its statements (a page, its count, every nested level; a GraphQL
   * document's fields): each statement gets at most the time left, and none starts after it has passed.
   */
  readonly deadline?: Deadline | undefined;
  /**
   * The guard of one page of a pages()/items() walk (set by renewDeadline() only): on PostgreSQL the page's own
   * statement, the first under this guard, may be read past pg's Query, alone on a pooled connection, under the same
   * bounds.
   */
  readonly walk?: boolean | undefined;
}

/** When a request's time runs out: a `performance.now()` instant, and the request timeout it was counted with. */
export interface Deadline {
  readonly at: number;
  /** Milliseconds: the request timeout, for the error the client gets. */
  readonly timeout: number;
}

/** One bound statement and what a dialect's executor needs to run it (Dialect.execute). */
export interface StatementRun {
  /** The connection's own Kysely (its pool): control queries (a cancel) run on another of its connections. */
  readonly root: Kysely<any>;
  /** The Kysely the statement runs on: the root, or the caller's transaction. */
  readonly client: Kysely<any>;
  /** The driver's native client, as MikroORM's connection gives it (`getNativeClient()`), if it does. */
  readonly nativeClient: () => Promise<unknown> | undefined;
  readonly compiled: CompiledQuery;
  /** Absent on the application's own execute() path without options. */
  readonly guard: StatementGuard | undefined;
  /** MikroORM's abort options for an unguarded statement, passed on to Kysely as they are. */
  readonly abort: Parameters<Kysely<any>['executeQuery']>[1] | undefined;
}

/**
 * The guard of a request's statements: its signal, `ctx.statementTimeout` or else the engine's statementTimeout,
 * `ctx.pgSettings`, and its deadline. The deadline is `ctx.requestTimeout`, else the engine's `requestTimeout`, else
 * (when the engine left it unset) twice the request's statement timeout, counted from `ctx.requestStart` (a
 * `performance.now()` instant, such as a GraphQL document's start) or else from now. Throws `invalid_schema` when a
 * ctx time is not a positive whole number of milliseconds or `ctx.pgSettings` is not an object of names to strings.
 */
export function statementGuard(
  settings: { readonly statementTimeout?: number | undefined; readonly requestTimeout?: number | false | undefined },
  ctx: {
    readonly signal?: AbortSignal | undefined;
    readonly statementTimeout?: number | undefined;
    readonly requestTimeout?: number | undefined;
    readonly requestStart?: number | undefined;
    readonly pgSettings?: unknown;
  },
): StatementGuard {
  const own = milliseconds(ctx.statementTimeout, 'statementTimeout');
  const timeout = own ?? settings.statementTimeout;
  const start = ctx.requestStart;
  if (start !== undefined && !Number.isFinite(start))
    throw invalidSchema('ctx.requestStart must be a performance.now() instant');
  const limit =
    milliseconds(ctx.requestTimeout, 'requestTimeout') ??
    engineRequestTimeout({ statementTimeout: timeout, requestTimeout: settings.requestTimeout });
  const deadline = limit === undefined ? undefined : { at: (start ?? performance.now()) + limit, timeout: limit };
  return { signal: ctx.signal, timeout, settings: sessionSettings(ctx.pgSettings), deadline };
}

/**
 * The deadline of a request that sets none: the engine's `requestTimeout`, or (left unset) twice the statement
 * timeout; undefined for none (`false`, or no statement timeout either).
 */
export function engineRequestTimeout(settings: {
  readonly statementTimeout?: number | undefined;
  readonly requestTimeout?: number | false | undefined;
}): number | undefined {
  const { statementTimeout, requestTimeout } = settings;
  return requestTimeout === undefined ? statementTimeout && 2 * statementTimeout : requestTimeout || undefined;
}

function milliseconds(value: number | undefined, name: string): number | undefined {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1))
    throw invalidSchema(`ctx.${name} must be a positive whole number of milliseconds`);
  return value;
}

/**
 * The guard of one page of a pages()/items() walk: its deadline counted again from now (each page gets the whole
 * time), and marked `walk`.
 */
export function renewDeadline(guard: StatementGuard): StatementGuard {
  const { deadline } = guard;
  return deadline
    ? { ...guard, walk: true, deadline: { at: performance.now() + deadline.timeout, timeout: deadline.timeout } }
    : { ...guard, walk: true };
}

/** How long one statement may run now, and whether the request's deadline (not the statement timeout) set it. */
export interface StatementLimit {
  readonly timeout: number | undefined;
  readonly byDeadline: boolean;
}

/**
 * The time limit of the statement about to start: the statement timeout, or the time left before the request's
 * deadline when that is shorter. Throws `query_timeout` when the deadline has passed, so a request past it runs no
 * further statement (the only bound SQLite has between its uninterruptible statements).
 */
export function statementLimit(guard: StatementGuard): StatementLimit {
  const { timeout, deadline } = guard;
  if (!deadline) return { timeout, byDeadline: false };
  const left = Math.floor(deadline.at - performance.now());
  if (left < 1) throw queryTimeout(deadline.timeout, undefined, true);
  return timeout !== undefined && timeout <= left
    ? { timeout, byDeadline: false }
    : { timeout: left, byDeadline: true };
}

/** The `query_timeout` of a statement the database stopped at `limit`: the statement's or the request's. */
export function timedOut(guard: StatementGuard, limit: StatementLimit, cause: unknown): ListError {
  return limit.byDeadline && guard.deadline
    ? queryTimeout(guard.deadline.timeout, cause, true)
    : queryTimeout(limit.timeout ?? 0, cause);
}

/**
 * The signal a statement's executor watches: the caller's, and the request's deadline, which aborts it with
 * `query_timeout` (so a statement still waiting for a pooled connection is answered at the deadline too). `done()`
 * clears the timer once the statement has ended.
 */
export function watchDeadline(guard: StatementGuard): { readonly signal: AbortSignal | undefined; done(): void } {
  const { signal, deadline } = guard;
  if (!deadline) return { signal, done: () => {} };
  const controller = new AbortController();
  const follow = () => controller.abort(signal?.reason);
  if (signal?.aborted) follow();
  signal?.addEventListener('abort', follow, { once: true });
  const timer = setTimeout(
    () => controller.abort(queryTimeout(deadline.timeout, undefined, true)),
    Math.max(0, deadline.at - performance.now()),
  );
  timer.unref?.();
  return {
    signal: controller.signal,
    done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', follow);
    },
  };
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
