/**
 * listql for Koa 3: `router.get('/books', listRoute(books, (ctx) => ({ base })))`, or `app.use(...)`.
 * Imports no Koa code at run time.
 */
import type { Context } from 'koa';
import { JSON_CONTENT_TYPE } from './errors.ts';
import { abortOnClose, type ListEngine, type RouteOptions, runList, type ScopeFn } from './handler.ts';

export type { ListEngine, ListScope, RouteOptions, ScopeFn } from './handler.ts';

/**
 * Build a Koa middleware that lists `engine` under the scope built per request, and answers the page as JSON
 * or the errorResponse (400 with the public error, 500 `internal_error`).
 *
 * @example app.use(listRoute(books, (ctx) => ({ base: em.fork().createQueryBuilder(Book, 'b') })))
 */
export function listRoute<B, F, C>(
  engine: ListEngine<B, F, C>,
  scope: ScopeFn<Context, B, F, C>,
  options: RouteOptions = {},
): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    // originalUrl, not ctx.query: Koa's parsed query merges repeated parameters.
    const { res, originalUrl } = ctx;
    const { status, json, headers } = await runList(engine, scope, ctx, originalUrl, abortOnClose(res), options);
    ctx.status = status;
    if (headers) ctx.set(headers);
    ctx.body = json;
    // After the body: assigning a string body would otherwise pick text/plain.
    ctx.set('content-type', JSON_CONTENT_TYPE);
  };
}
