/**
 * listql for Hono 4 (on Node via `@hono/node-server`, or any runtime): `app.get('/books', listRoute(books, (c) => ({ base })))`.
 * Imports no Hono code at run time.
 */
import type { Context } from 'hono';
import { JSON_CONTENT_TYPE } from './errors.ts';
import { type ListEngine, type RouteOptions, runList, type ScopeFn } from './handler.ts';

export type { ListEngine, ListScope, RouteOptions, ScopeFn } from './handler.ts';

/**
 * Build a Hono handler that lists `engine` under the scope built per request, and answers the page as JSON
 * or the errorResponse (400 with the public error, 500 `internal_error`).
 *
 * @example app.get('/books', listRoute(books, (c) => ({ base: em.fork().createQueryBuilder(Book, 'b') })))
 */
export function listRoute<B, F, C>(
  engine: ListEngine<B, F, C>,
  scope: ScopeFn<Context, B, F, C>,
  options: RouteOptions = {},
): (c: Context) => Promise<Response> {
  return async (c) => {
    // The Request's own signal aborts when the client disconnects (on Node, @hono/node-server wires it).
    const { status, json, headers } = await runList(engine, scope, c, c.req.url, c.req.raw.signal, options);
    return new Response(json, { status, headers: { ...headers, 'content-type': JSON_CONTENT_TYPE } });
  };
}
