import type { CompiledQuery, Kysely } from 'kysely';
import { invalidSchema } from '../errors.ts';
import { type SessionSettings, sessionSettings } from './postgresql/session-settings.ts';

/** How one data or count statement is bounded: the caller's abort signal, and a server-side time limit. */
export interface StatementGuard {
  readonly signal?: AbortSignal | undefined;
  /** Milliseconds the database may spend on the statement; undefined: no limit. */
  readonly timeout?: number | undefined;
  /** PostgreSQL settings (`ctx.pgSettings`) the statement runs under, set with `set_config(…, true)`. */
  readonly settings?: SessionSettings | undefined;
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
 * The guard of a request's statements: its signal, `ctx.statementTimeout` or else the engine's statementTimeout, and
 * `ctx.pgSettings`. Throws `invalid_schema` when `ctx.statementTimeout` is not a positive whole number of
 * milliseconds or `ctx.pgSettings` is not an object of setting names to strings.
 */
export function statementGuard(
  settings: { readonly statementTimeout?: number | undefined },
  ctx: {
    readonly signal?: AbortSignal | undefined;
    readonly statementTimeout?: number | undefined;
    readonly pgSettings?: unknown;
  },
): StatementGuard {
  const own = ctx.statementTimeout;
  if (own !== undefined && !(Number.isSafeInteger(own) && own >= 1))
    throw invalidSchema('ctx.statementTimeout must be a positive whole number of milliseconds');
  const timeout = own ?? settings.statementTimeout;
  return { signal: ctx.signal, timeout, settings: sessionSettings(ctx.pgSettings) };
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
