/** Every error code listql raises, with the HTTP status a client should see for it. */
export const ERROR_STATUS = {
  invalid_parameter: 400,
  invalid_token: 400,
  invalid_syntax: 400,
  limit_exceeded: 400,
  unknown_field: 400,
  field_not_filterable: 400,
  field_not_sortable: 400,
  field_not_selectable: 400,
  operator_not_allowed: 400,
  invalid_literal: 400,
  invalid_relationship: 400,
  invalid_cursor: 400,
  invalid_schema: 500,
  execution_failed: 500,
  /** The database stopped a statement at the engine's statement timeout: a public answer, "try a cheaper request". */
  query_timeout: 503,
} as const;

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

/** Build an `invalid_parameter` error naming the parameter. */
export function invalidParameter(parameter: string, message: string, source?: string, index?: number): ListError {
  if (source !== undefined && index !== undefined)
    return errorAt('invalid_parameter', message, parameter, source, index);
  return new ListError('invalid_parameter', message, { parameter });
}

/** Build an `invalid_cursor` error about the `cursor` parameter. */
export function invalidCursor(message: string): ListError {
  return new ListError('invalid_cursor', message, { parameter: 'cursor' });
}

/** What a walk (pages(), items()) answers to a prevCursor: it only follows nextCursor. */
export const WALK_BACKWARD =
  'this cursor is a prevCursor, which pages back, and pages() and items() only walk forward: start them without a ' +
  'cursor or with a nextCursor, or read backward pages with list()';

/** Build an `invalid_schema` error: a policy, config or metadata problem found at bind or engine construction. */
export function invalidSchema(message: string, cause?: unknown): ListError {
  return new ListError('invalid_schema', message, cause === undefined ? {} : { cause });
}

/**
 * Turn anything a list operation threw into a ListError: a ListError passes through, anything else (a driver, ORM
 * or programming error) becomes `execution_failed` with the original as its `cause`, for logs only.
 */
export function asListError(err: unknown): ListError {
  return isListError(err) ? err : new ListError('execution_failed', 'the list operation failed', { cause: err });
}
