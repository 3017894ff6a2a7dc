/**
 * Route parameter decorators: the request's list query, read from the raw query string, and an AbortSignal that
 * fires when the client disconnects. Both are functions returning decorators, usable with or without the
 * decorator syntax.
 */
import type { ServerResponse } from 'node:http';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { abortOnClose } from '../http/handler.ts';
import type { QueryValues } from '../syntax/parameters.ts';
import { fromQueryString } from '../syntax/query-string.ts';
import { nodeResponse, type PlatformRequest, type PlatformResponse, rawRequestUrl } from './http-objects.ts';

/**
 * Inject the request's list query (`filter`, `sort`, `limit`, …) decoded from the raw query string, so a repeated
 * parameter reaches the engine as an array and is refused there (Nest's `@Query()` would merge it).
 *
 * @example list(@ListQuery() query: QueryValues) { return this.books.from(base).list(query) }
 */
export const ListQuery: () => ParameterDecorator = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): QueryValues =>
    fromQueryString(rawRequestUrl(ctx.switchToHttp().getRequest<PlatformRequest>())),
);

/** One signal per response, so every parameter that asks for it (and the error filter) sees the same one. */
const signals = new WeakMap<ServerResponse, AbortSignal>();

/** Return the request's disconnect signal, creating it on first use. */
export function requestSignal(res: PlatformResponse): AbortSignal {
  const node = nodeResponse(res);
  let signal = signals.get(node);
  if (signal === undefined) {
    signal = abortOnClose(node);
    signals.set(node, signal);
  }
  return signal;
}

/** Return the signal of a response if a route asked for one, without creating it. */
export function knownSignal(res: PlatformResponse): AbortSignal | undefined {
  return signals.get(nodeResponse(res));
}

/**
 * Inject an AbortSignal that aborts when the client disconnects before the answer is written; pass it to
 * `list(query, { signal })` to cancel the query.
 *
 * @example list(@ListQuery() query: QueryValues, @ListSignal() signal: AbortSignal) { return scoped.list(query, { signal }) }
 */
export const ListSignal: () => ParameterDecorator = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): AbortSignal =>
    requestSignal(ctx.switchToHttp().getResponse<PlatformResponse>()),
);
