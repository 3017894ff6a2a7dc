/**
 * The one request path every adapter shares: read the raw query string, scope the engine, list, and turn the
 * page or the error into a status and a JSON body. Adapters only translate their framework's request and
 * response objects; no adapter holds logic of its own.
 */

import { isListError } from '../errors.ts';
import type { QueryValues } from '../syntax/parameters.ts';
import { fromQueryString } from '../syntax/query-string.ts';
import { errorResponse, stringifyJSON } from './errors.ts';

/** What an adapter needs from an engine: `engine.from(base, { filters }).list(query, ctx)`. */
export interface ListEngine<B, F, C> {
  from(base: B, options?: { filters?: F }): { list(query: QueryValues, ctx?: C): Promise<unknown> };
}

/** One request's base scope (tenant, authorization), MikroORM filter options, and the context for `search`. */
export interface ListScope<B, F, C> {
  readonly base: B;
  readonly filters?: F;
  /** Passed to `list()` and the search callback. When absent, `{ signal }` is passed. */
  readonly ctx?: C;
}

/**
 * Build a request's scope. `signal` aborts when the client disconnects: put it in your own `ctx` to keep
 * cancellation. A throw (or rejection) here answers 500 `internal_error`, or the ListError's own status.
 */
export type ScopeFn<R, B, F, C> = (req: R, signal: AbortSignal) => ListScope<B, F, C> | Promise<ListScope<B, F, C>>;

/** Options shared by every adapter. */
export interface RouteOptions {
  /**
   * Called with the original error of every 500 response, whose body says only `internal_error`, except when
   * the client disconnected first. Defaults to `console.error`; pass `() => {}` to silence it.
   */
  readonly onInternalError?: (err: unknown) => void;
}

/** A status and a JSON text, ready for any framework to send with the JSON content type. */
export interface JsonResult {
  readonly status: number;
  readonly json: string;
  /** Headers the answer needs besides the content type: `retry-after` with `overloaded`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Run one list request: `url` is the request target or full URL, whose raw query string is parsed here
 * (a framework's parsed query object would merge or drop repeated parameters). Never throws.
 */
export async function runList<R, B, F, C>(
  engine: ListEngine<B, F, C>,
  scope: ScopeFn<R, B, F, C>,
  req: R,
  url: string,
  signal: AbortSignal,
  options: RouteOptions = {},
): Promise<JsonResult> {
  try {
    const query = fromQueryString(url);
    const { base, filters, ctx } = await scope(req, signal);
    const scoped = filters === undefined ? engine.from(base) : engine.from(base, { filters });
    const page = await scoped.list(query, ctx ?? ({ signal } as C));
    // Serialized here, inside the try: a value JSON cannot hold must answer 500 like any other failure.
    return { status: 200, json: stringifyJSON(page) };
  } catch (err) {
    const { status, body, headers } = errorResponse(err);
    // A client that went away is not a server fault: its aborted query is not logged. Nor is a refusal under load.
    if (status >= 500 && !signal.aborted && !isOverloaded(err)) (options.onInternalError ?? logInternalError)(err);
    return { status, json: stringifyJSON(body), ...(headers ? { headers } : {}) };
  }
}

/** Whether the engine's admission refused the request: load shedding, logged by nobody (it could flood a log). */
function isOverloaded(err: unknown): boolean {
  return isListError(err) && err.code === 'overloaded';
}

function logInternalError(err: unknown): void {
  console.error('listql: internal error while listing', err);
}

/** The Node response events that tell a client went away before its answer was written. */
interface ClosableResponse {
  readonly writableEnded: boolean;
  once(event: 'close', listener: () => void): unknown;
}

/** Return a signal that aborts when the connection closes before the response has been written. */
export function abortOnClose(res: ClosableResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableEnded) controller.abort(new Error('client disconnected'));
  });
  return controller.signal;
}
