/**
 * The few request and response members listql/nestjs reads, on both Nest platforms: Express hands over its own
 * request and response, Fastify its request and reply, each wrapping Node's objects in `raw`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JSON_CONTENT_TYPE, writeJSONText } from '../http/errors.ts';

/** An Express request or a Fastify request, as far as listql reads them. */
export interface PlatformRequest {
  readonly raw?: IncomingMessage;
  readonly originalUrl?: string;
  readonly url?: string;
}

/** A Fastify reply, as far as listql writes it. */
interface FastifyReplyLike {
  readonly raw: ServerResponse;
  readonly sent: boolean;
  code(status: number): FastifyReplyLike;
  header(name: string, value: string): FastifyReplyLike;
  send(payload: string): unknown;
}

/** An Express response (a Node ServerResponse) or a Fastify reply. */
export type PlatformResponse = ServerResponse | FastifyReplyLike;

/**
 * Return the raw request target: Nest's parsed `query` object merges or nests parameters and re-decodes invalid
 * UTF-8, so it is never used.
 * Express keeps the full target in `originalUrl` (its `url` loses a mount path); Fastify in `request.raw.url`.
 */
export function rawRequestUrl(req: PlatformRequest): string {
  return req.raw?.url ?? req.originalUrl ?? req.url ?? '';
}

function isFastifyReply(res: PlatformResponse): res is FastifyReplyLike {
  return 'raw' in res && typeof (res as FastifyReplyLike).code === 'function';
}

/** Return Node's own response under an Express response or a Fastify reply. */
export function nodeResponse(res: PlatformResponse): ServerResponse {
  return isFastifyReply(res) ? res.raw : res;
}

/** Set listql's JSON content type on the response, through the platform. */
export function setJSONContentType(res: PlatformResponse): void {
  if (isFastifyReply(res)) res.header('content-type', JSON_CONTENT_TYPE);
  else res.setHeader('content-type', JSON_CONTENT_TYPE);
}

/** Send a status and a JSON text through the platform, with listql's JSON content type and any `headers` given. */
export function sendJSONText(
  res: PlatformResponse,
  status: number,
  text: string,
  headers?: Readonly<Record<string, string>>,
): void {
  if (!isFastifyReply(res)) {
    writeJSONText(res, status, text, headers);
    return;
  }
  if (res.sent) return;
  for (const [name, value] of Object.entries(headers ?? {})) res.header(name, value);
  // Through the reply, not its raw response, so Fastify's hooks and bookkeeping see the answer.
  res.code(status).header('content-type', JSON_CONTENT_TYPE).send(text);
}
