/**
 * The bookstore's HTTP server. Node reads at most 16 KiB of request line and headers by default and answers a
 * longer request itself, with an empty 431, before any application code runs: listql's own `maxQueryBytes`
 * (16 KiB of parameters) would never be reached. The server reads up to 64 KiB, so listql answers an over-long
 * query with its JSON `limit_exceeded`; a request past even that gets the same JSON error from `clientError`.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorResponse, ListError } from '../../src/index.ts'; // in an application: from 'listql'

/** Bytes of request line and headers the server reads before refusing a request (Node's default is 16 KiB). */
export const MAX_HEADER_BYTES = 64 * 1024;

/** Create the HTTP server of `app`, with room for long queries and JSON answers to requests past that room. */
export function createBookstoreServer(app: RequestListener): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app);
  server.on('clientError', answerClientError);
  return server;
}

/** Answer a request Node could not parse, as Node would, but with listql's JSON error when it is too long. */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  if (err.code !== 'HPE_HEADER_OVERFLOW') {
    const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    return;
  }
  const message = `request line and headers are longer than ${MAX_HEADER_BYTES} bytes`;
  const { status, body } = errorResponse(new ListError('limit_exceeded', message));
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} Bad Request\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}
