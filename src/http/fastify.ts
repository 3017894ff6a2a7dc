/**
 * listql for Fastify 5: `app.get('/books', listRoute(books, (request) => ({ base })))`.
 * Imports no Fastify code at run time.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { JSON_CONTENT_TYPE } from './errors.ts';
import { abortOnClose, type ListEngine, type RouteOptions, runList, type ScopeFn } from './handler.ts';

export type { ListEngine, ListScope, RouteOptions, ScopeFn } from './handler.ts';

/**
 * Build a Fastify handler that lists `engine` under the scope built per request, and answers the page as JSON
 * or the errorResponse (400 with the public error, 500 `internal_error`).
 *
 * @example app.get('/books', listRoute(books, (request) => ({ base: em.fork().createQueryBuilder(Book, 'b') })))
 */
export function listRoute<B, F, C>(
  engine: ListEngine<B, F, C>,
  scope: ScopeFn<FastifyRequest, B, F, C>,
  options: RouteOptions = {},
): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  return async (request, reply) => {
    // The raw target, not request.query: the parsed query object merges repeated parameters.
    const url = request.raw.url ?? request.url;
    const { status, json, headers } = await runList(engine, scope, request, url, abortOnClose(reply.raw), options);
    if (headers) reply.headers(headers);
    // A pre-serialized string skips Fastify's serializer, so the body is exactly what the other adapters send.
    return reply.code(status).header('content-type', JSON_CONTENT_TYPE).send(json);
  };
}
