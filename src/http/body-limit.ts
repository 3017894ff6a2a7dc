/**
 * A bound on request bodies for Node servers (`node:http`, Express, Connect, NestJS on Express): a body larger than
 * the limit is refused with `413 {"code":"limit_exceeded",…}` before more of it is read, and one within the limit
 * is read (never more than the limit held in memory) and handed to the next handler as `req.body`, a string.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { limitExceeded } from '../errors.ts';
import { JSON_CONTENT_TYPE, stringifyJSON } from './errors.ts';

/** The default bound of `bodyLimit`: 100 KiB, as Express's own body parsers. */
export const DEFAULT_MAX_BODY_BYTES = 100 * 1024;

/** Options of `bodyLimit`. */
export interface BodyLimitOptions {
  /** The largest body accepted, in bytes (default `DEFAULT_MAX_BODY_BYTES`, 100 KiB). */
  readonly maxBytes?: number;
}

/** A Node request that `bodyLimit` may give the body it read. */
export type BodyRequest = IncomingMessage & { body?: unknown };

/**
 * Build a middleware that refuses a request body over `maxBytes` with 413 `limit_exceeded` (declared by
 * content-length, or counted as it streams) and closes the connection; a body within the limit becomes `req.body`
 * (UTF-8 text), which graphql-http's and Express's handlers take as already read.
 *
 * @example app.use(bodyLimit({ maxBytes: 64 * 1024 })); app.all('/graphql', createHandler({ schema }))
 */
export function bodyLimit(
  options: BodyLimitOptions = {},
): (req: BodyRequest, res: ServerResponse, next: (err?: unknown) => void) => void {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0)
    throw new RangeError(`bodyLimit: maxBytes must be a whole number of bytes, got ${maxBytes}`);
  return (req, res, next) => {
    // A body another middleware already read, or none at all: nothing to bound.
    if (req.body !== undefined || !hasBody(req)) return next();
    if (Number(req.headers['content-length'] ?? 0) > maxBytes) return refuse(req, res, maxBytes);
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stop();
        refuse(req, res, maxBytes);
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      req.body = Buffer.concat(chunks, size).toString('utf8');
      next();
    };
    // A client that went away mid-body gets no answer: there is no one to read it.
    const stop = () => {
      req.off('data', onData).off('end', onEnd).off('error', stop);
    };
    req.on('data', onData).on('end', onEnd).on('error', stop);
  };
}

/** Whether a request carries a body (RFC 9112: a transfer-encoding, or a content-length above 0). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** How long, and how many more bytes, a refused body is read and dropped before the connection is cut. */
const LINGER_MS = 2000;
const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * Answer 413 with the rest of the body dropped unread, then close the connection once the client stopped sending or
 * after a bound (LINGER_MS, LINGER_BYTES): dropping all of it would let one client make the server read gigabytes.
 * The answer is written at once but ended only then, because Node closes the connection when a response ends, and
 * a close while the client still sends resets the connection, which loses the answer on its way to the client.
 */
function refuse(req: IncomingMessage, res: ServerResponse, maxBytes: number): void {
  const { code, message } = limitExceeded(`request body is larger than ${maxBytes} bytes`).toJSON();
  const text = stringifyJSON({ code, message });
  res.writeHead(413, { 'content-type': JSON_CONTENT_TYPE, 'content-length': Buffer.byteLength(text) }).write(text);
  let dropped = 0;
  let ended = false;
  const end = (cut: boolean) => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    req.off('data', onData);
    res.end();
    if (cut) req.socket.destroy();
  };
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) end(true);
  };
  const timer = setTimeout(() => end(true), LINGER_MS).unref();
  req.on('data', onData).once('end', () => end(false));
  req.socket.once('close', () => end(false));
  req.resume();
}
