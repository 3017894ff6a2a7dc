import { isListError, type ListErrorJSON } from '../errors.ts';

/** The body of every 500: the same for all server-side failures, so nothing about the cause reaches a client. */
export interface InternalErrorJSON {
  readonly code: 'internal_error';
  readonly message: 'internal server error';
}

/** An HTTP status and the JSON body to send for an error. */
export interface ErrorResponse {
  readonly status: number;
  readonly body: ListErrorJSON | InternalErrorJSON;
  /** Headers to send with it: `retry-after` (seconds) for `overloaded`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The content type of every JSON body listql writes. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

const INTERNAL: ErrorResponse = Object.freeze({
  status: 500,
  body: Object.freeze({ code: 'internal_error', message: 'internal server error' } as const),
});

/**
 * Map any thrown value to an HTTP response: a client ListError and a 503 (`query_timeout`, `replica_lost`, …) keep
 * their status and public JSON (code, message, parameter, position), and `overloaded` adds its `retry-after` header;
 * `invalid_schema`, `execution_failed` and every other error become a generic 500, so no cause, SQL or stack trace
 * ever leaves the server.
 *
 * @example errorResponse(err) // { status: 400, body: { code: 'invalid_syntax', message: '…', parameter: 'filter', position: {…} } }
 */
export function errorResponse(err: unknown): ErrorResponse {
  if (isListError(err) && ((err.status >= 400 && err.status < 500) || err.status === 503)) {
    // `overloaded` tells when to come back (docs/security.md, Fair share).
    const retryAfter = err.retryAfter;
    if (retryAfter === undefined) return { status: err.status, body: err.toJSON() };
    return { status: err.status, body: err.toJSON(), headers: { 'retry-after': String(retryAfter) } };
  }
  return INTERNAL;
}

/** The parts of a Node `ServerResponse` (and so of an Express response) that writing JSON needs. */
export interface NodeResponseLike {
  statusCode: number;
  readonly headersSent: boolean;
  setHeader(name: string, value: string | number): unknown;
  end(chunk?: string): unknown;
}

/**
 * Serialize a response body as JSON. A bigint becomes its decimal string (as listql's cursors and decimal
 * columns already are), where JSON.stringify would throw. A body without one is serialized without a replacer,
 * which V8 does about twice as fast; the first bigint makes that attempt throw, and the body is serialized again
 * with the replacer (the same text: a replacer sees each value after its toJSON(), as the plain call does).
 */
export function stringifyJSON(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch {
    return JSON.stringify(body, bigintAsString);
  }
}

function bigintAsString(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * Write a status and a JSON text to a Node `ServerResponse` or an Express response, with
 * `content-type: application/json; charset=utf-8` and any `headers` given. Uses only Node's own response methods.
 */
export function writeJSONText(
  res: NodeResponseLike,
  status: number,
  text: string,
  headers?: Readonly<Record<string, string>>,
): void {
  // Too late for a status once headers are out: end the response rather than corrupt it.
  if (res.headersSent) {
    res.end();
    return;
  }
  res.statusCode = status;
  res.setHeader('content-type', JSON_CONTENT_TYPE);
  res.setHeader('content-length', Buffer.byteLength(text));
  for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
  res.end(text);
}

/**
 * Write the errorResponse of `err` to a Node `ServerResponse` or an Express response.
 *
 * @example catch (err) { writeError(res, err) } // 400 {"code":"invalid_cursor",…} or 500 {"code":"internal_error",…}
 */
export function writeError(res: NodeResponseLike, err: unknown): void {
  const { status, body, headers } = errorResponse(err);
  writeJSONText(res, status, stringifyJSON(body), headers);
}
