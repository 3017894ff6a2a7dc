/**
 * listql for Express 5: `app.get('/books', listRoute(books, (req) => ({ base })))`.
 * Imports no Express code at run time; the types come from `@types/express`.
 */
import type { Request, Response } from 'express';
import { writeJSONText } from './errors.ts';
import { abortOnClose, type ListEngine, type RouteOptions, runList, type ScopeFn } from './handler.ts';

export { type BodyLimitOptions, bodyLimit, DEFAULT_MAX_BODY_BYTES } from './body-limit.ts';
export type { ListEngine, ListScope, RouteOptions, ScopeFn } from './handler.ts';

/**
 * Build an Express handler that lists `engine` under the scope built per request, and answers the page as JSON
 * or the errorResponse (400 with the public error, 500 `internal_error`).
 *
 * @example app.get('/books', listRoute(books, (req) => ({ base: em.fork().createQueryBuilder(Book, 'b').where({ tenant: 1 }) })))
 */
export function listRoute<B, F, C>(
  engine: ListEngine<B, F, C>,
  scope: ScopeFn<Request, B, F, C>,
  options: RouteOptions = {},
): (req: Request, res: Response) => Promise<void> {
  return async (req, res) => {
    // originalUrl, not req.query: Express's parsed query merges repeated parameters and nests brackets.
    const { status, json, headers } = await runList(engine, scope, req, req.originalUrl, abortOnClose(res), options);
    writeJSONText(res, status, json, headers);
  };
}
