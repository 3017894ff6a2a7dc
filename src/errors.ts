// size: the error table (one row per stable code) and its named factories belong together: one file to read for every error a client can see.
/** One row of the error table: the HTTP status a client should see, and when the code is raised. */
export interface ErrorRow {
  readonly status: number;
  readonly description: string;
}

/**
 * Every error code listql raises, in one table: code → HTTP status → description. docs/errors.md documents each
 * code at length; test/errors/table.test.ts checks that its table lists these codes with these statuses.
 */
export const ERROR_TABLE = {
  invalid_parameter: {
    status: 400,
    description: 'A list parameter is malformed, empty, repeated, unknown (when rejected) or not allowed here.',
  },
  invalid_token: {
    status: 400,
    description: 'A lexical failure in filter: a byte that starts no token, a bad number, an unterminated string.',
  },
  invalid_syntax: { status: 400, description: 'A grammar failure in filter, including the whitespace rules.' },
  limit_exceeded: { status: 400, description: 'The request crosses a bound of the limits table or the cost budget.' },
  unknown_field: { status: 400, description: 'A name the policy does not expose (a hidden one looks the same).' },
  field_not_filterable: { status: 400, description: 'The field is exposed but not filterable.' },
  field_not_sortable: { status: 400, description: 'The field is exposed but not sortable (or not with `:ci`).' },
  field_not_selectable: {
    status: 400,
    description:
      'fields names a field or relation that items do not carry, or selects a relation the policy does not open.',
  },
  field_not_facetable: {
    status: 400,
    description: 'facets names a field or relation the policy exposes but did not open to facets.',
  },
  operator_not_allowed: { status: 400, description: 'The operator is not declared for the field.' },
  invalid_literal: { status: 400, description: "The literal does not fit the field's type." },
  invalid_relationship: {
    status: 400,
    description: 'A relation used the wrong way: a to-many path without any/all, a variable out of scope.',
  },
  invalid_cursor: {
    status: 400,
    description: 'The cursor is malformed, too long, or made for another endpoint, sort or direction.',
  },
  invalid_schema: {
    status: 500,
    description: 'A policy, configuration or metadata problem, found at bind() or createEngine().',
  },
  execution_failed: {
    status: 500,
    description: 'The database or a callback failed, or the operation was aborted; the cause stays server-side.',
  },
  query_timeout: {
    // A public answer, not a fault: "try a cheaper request".
    status: 503,
    description: 'A statement ran past the statement timeout, or the request past its deadline: it costs too much.',
  },
  replica_lost: {
    // A public answer, not a fault: "send the request again".
    status: 503,
    description: 'The read replica serving the request stopped answering and the request could not move elsewhere.',
  },
  overloaded: { status: 503, description: 'Too much expensive work runs or waits: refused before any statement.' },
} as const satisfies Readonly<Record<string, ErrorRow>>;

/** Every error code listql raises, with the HTTP status a client should see for it. */
export const ERROR_STATUS = statusColumn(ERROR_TABLE);

/** Take the status column of the error table, keeping each status as a literal type. */
function statusColumn<T extends Readonly<Record<string, ErrorRow>>>(
  table: T,
): { readonly [C in keyof T]: T[C]['status'] } {
  return Object.fromEntries(Object.entries(table).map(([code, row]) => [code, row.status])) as never;
}

/** A stable, public error code. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Where in a parameter's decoded value an error starts: UTF-8 byte offset, 1-based line and byte column. */
export interface Position {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/** The JSON shape of a ListError: exactly these fields, never a cause or a stack. */
export interface ListErrorJSON {
  code: ErrorCode;
  message: string;
  parameter?: string;
  position?: Position;
}

/** Options for a ListError beyond its code and message. */
export interface ListErrorOptions {
  readonly parameter?: string | undefined;
  readonly position?: Position | undefined;
  /** For logs only: never serialized. */
  readonly cause?: unknown;
}

/** The one error type listql throws: plain data keyed by a stable `code`. */
export class ListError extends Error {
  readonly code: ErrorCode;
  // `declare`: absent unless set, so `'parameter' in err` and logs tell the truth.
  declare readonly parameter?: string;
  declare readonly position?: Position;
  /** `overloaded` only: seconds until the request may be sent again (HTTP `Retry-After`; not in toJSON). */
  declare readonly retryAfter?: number;

  constructor(code: ErrorCode, message: string, options: ListErrorOptions = {}) {
    // A client error is an answer, not a fault: skip the stack trace, which costs more than rejecting the input
    // (an over-limit filter must be rejected in microseconds). Server errors keep theirs for the logs.
    const limit = Error.stackTraceLimit;
    if (ERROR_STATUS[code] < 500) Error.stackTraceLimit = 0;
    try {
      super(message, options.cause === undefined ? undefined : { cause: options.cause });
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = 'ListError';
    this.code = code;
    if (options.parameter !== undefined) this.parameter = options.parameter;
    if (options.position !== undefined) this.position = options.position;
  }

  /** The HTTP status that fits this error's code. */
  get status(): number {
    return ERROR_STATUS[this.code];
  }

  /** Serialize to the public shape: code, message, parameter and position only. */
  toJSON(): ListErrorJSON {
    const out: ListErrorJSON = { code: this.code, message: this.message };
    if (this.parameter !== undefined) out.parameter = this.parameter;
    if (this.position !== undefined) out.position = { ...this.position };
    return out;
  }
}

/** Tell whether a value is a ListError (also across module copies). */
export function isListError(value: unknown): value is ListError {
  return value instanceof ListError || (value instanceof Error && value.name === 'ListError' && 'code' in value);
}

/** Compute the position of a UTF-16 index within `source`, counted in UTF-8 bytes. */
export function positionAt(source: string, index: number): Position {
  let offset = 0;
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(index, 0), source.length);
  for (let i = 0; i < end; i++) {
    const c = source.charCodeAt(i);
    if (c < 0x80) offset += 1;
    else if (c < 0x800) offset += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = source.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        offset += 4;
        i++;
      } else offset += 3;
    } else offset += 3;
    if (c === 0x0a) {
      line++;
      lineStart = offset;
    }
  }
  return { offset, line, column: offset - lineStart + 1 };
}

/** Build a ListError located at a UTF-16 index of a parameter's value. */
export function errorAt(code: ErrorCode, message: string, parameter: string, source: string, index: number): ListError {
  return new ListError(code, message, { parameter, position: positionAt(source, index) });
}

/**
 * Build a ListError located at a position of a parameter's value (or at the parameter only, without one). Only the
 * offset, line and column are kept: a span passed here does not leak its `end` into the public error.
 */
export function errorAtPosition(
  code: ErrorCode,
  message: string,
  parameter: string,
  position: Position | undefined,
): ListError {
  if (position === undefined) return new ListError(code, message, { parameter });
  const { offset, line, column } = position;
  return new ListError(code, message, { parameter, position: { offset, line, column } });
}

/** Build an `invalid_parameter` error naming the parameter. */
export function invalidParameter(parameter: string, message: string, source?: string, index?: number): ListError {
  if (source !== undefined && index !== undefined)
    return errorAt('invalid_parameter', message, parameter, source, index);
  return new ListError('invalid_parameter', message, { parameter });
}

/** Build an `invalid_cursor` error about the `cursor` parameter, or a nested list's (`reviews.cursor`). */
export function invalidCursor(message: string, parameter = 'cursor'): ListError {
  return new ListError('invalid_cursor', message, { parameter });
}

/** What a walk (pages(), items()) answers to a prevCursor: it only follows nextCursor. */
export const WALK_BACKWARD =
  'this cursor is a prevCursor, which pages back, and pages() and items() only walk forward: start them without a ' +
  'cursor or with a nextCursor, or read backward pages with list()';

/** Build an `invalid_schema` error: a policy, config or metadata problem found at bind or engine construction. */
export function invalidSchema(message: string, cause?: unknown): ListError {
  return new ListError('invalid_schema', message, cause === undefined ? {} : { cause });
}

/** Build a `limit_exceeded` error about a whole request or parameter (located ones come from errorAtPosition). */
export function limitExceeded(message: string, parameter?: string): ListError {
  return new ListError('limit_exceeded', message, parameter === undefined ? {} : { parameter });
}

/** Build an `execution_failed` error; the cause (a driver or callback error) is for logs only. */
export function executionFailed(message: string, cause?: unknown): ListError {
  return new ListError('execution_failed', message, cause === undefined ? {} : { cause });
}

/** Build the `execution_failed` error of a statement the database refused or failed to run. */
export function queryFailed(cause: unknown): ListError {
  return executionFailed('the query failed', cause);
}

/**
 * Build the `query_timeout` error of a statement the database stopped after `timeout` milliseconds, or with `request`,
 * of a request whose statements together ran past its deadline (`requestTimeout`): no further one started.
 */
export function queryTimeout(timeout: number, cause: unknown, request = false): ListError {
  const ran = request
    ? `the request's queries ran longer than ${timeout} ms together and were stopped`
    : `the query ran longer than ${timeout} ms and was stopped`;
  return new ListError(
    'query_timeout',
    `${ran}: try a cheaper request (a narrower filter, fewer relationship conditions or sort keys, or no count)`,
    { cause },
  );
}

/**
 * Build the `replica_lost` error of a request whose read replica stopped answering (refused or dropped its
 * connection) when it could not move to another server: it had already read from that replica (a walk past its
 * first page), or no other server was in rotation. The cause (the driver's error) is for logs only.
 */
export function replicaLost(message: string, cause?: unknown): ListError {
  return new ListError('replica_lost', message, cause === undefined ? {} : { cause });
}

/** Build the `overloaded` error of a request refused by admission (docs/security.md, Fair share); seconds to wait. */
export function overloaded(message: string, retryAfter: number): ListError {
  return Object.assign(new ListError('overloaded', message), { retryAfter });
}

/**
 * Turn anything a list operation threw into a ListError: a ListError passes through, anything else (a driver, ORM
 * or programming error) becomes `execution_failed` with the original as its `cause`, for logs only.
 */
export function asListError(err: unknown): ListError {
  return isListError(err) ? err : executionFailed('the list operation failed', err);
}
