import { executionFailed, invalidCursor } from '../errors.ts';
import { type CursorSeal, NOT_AUTHENTIC, openBody, sealBody } from './cursor-seal.ts';

/**
 * How one cursor key is written in JSON. Integers and floats are JSON numbers; bigints, decimals, timestamps and
 * dates are strings so they stay exact; booleans are JSON booleans; `null` is SQL NULL (allowed when `nullable`).
 */
export type CursorKeyType = 'integer' | 'float' | 'bigint' | 'decimal' | 'string' | 'boolean' | 'timestamp' | 'date';

/** The expected shape of one key: its JSON type, whether NULL may appear, and which values its column holds. */
export interface CursorKeySpec {
  readonly type: CursorKeyType;
  readonly nullable: boolean;
  /** Tell whether a non-null value of the right type is one the column can hold, in the engine's own form. */
  readonly holds?: (value: string | number | boolean) => boolean;
}

/** What a cursor must match to be accepted: the current effective sort's signature and key shapes. */
export interface CursorExpectation {
  readonly signature: string;
  /** The signature of a backward cursor of the same sort; without it, backward cursors are refused. */
  readonly backwardSignature?: string;
  readonly keys: readonly CursorKeySpec[];
  readonly maxCursorBytes: number;
  /** The request's seal when the engine has a `cursorSecret`: only cursors it signed or sealed are read. */
  readonly seal?: CursorSeal | undefined;
}

/** A cursor key value as carried in JSON. */
export type CursorValue = string | number | boolean | null;

const BASE64URL = /^[A-Za-z0-9_-]*$/;
const INTEGER = /^-?(0|[1-9][0-9]*)$/;
const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})?$/;
/** One strict UTF-8 decoder for every token: decode() without `stream` keeps no state between calls. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Encode a cursor token. Plain (no seal): cursor v1, unpadded base64url of the canonical JSON
 * `{"v":1,"s":…,"k":[…]}`. With the request's seal: the compact body (the signature's bytes, then the keys' JSON)
 * signed or sealed (cursor-seal.ts).
 */
export function encodeCursor(signature: string, keys: readonly CursorValue[], seal?: CursorSeal): string {
  for (const key of keys) {
    if (typeof key === 'number' && !Number.isFinite(key)) {
      throw executionFailed(
        'a sort key holds a non-finite number, which a cursor cannot encode; exclude NaN and Infinity from sorted float columns',
      );
    }
  }
  if (seal) return sealBody(seal, compactBody(signature, keys));
  return Buffer.from(JSON.stringify({ v: 1, s: signature, k: keys }), 'utf8').toString('base64url');
}

/** The body a seal protects: one byte of signature length, the signature's bytes, the keys as canonical JSON. */
function compactBody(signature: string, keys: readonly CursorValue[]): Buffer {
  const sig = Buffer.from(signature, 'base64url');
  if (sig.toString('base64url') !== signature || sig.length > 255)
    throw new Error('listql: a cursor signature must be base64url of at most 255 bytes');
  return Buffer.concat([Buffer.of(sig.length), sig, Buffer.from(JSON.stringify(keys), 'utf8')]);
}

/** A decoded cursor: its key values, and whether it pages back (rows before it) rather than forward. */
export interface CursorPosition {
  readonly keys: CursorValue[];
  readonly backward: boolean;
}

/** Decode and strictly check a forward cursor token before any query runs; anything unexpected is `invalid_cursor`. */
export function decodeCursor(token: string, expect: CursorExpectation): CursorValue[] {
  const { backwardSignature: _, ...forward } = expect;
  return decodePosition(token, forward).keys;
}

/**
 * Decode and strictly check a forward or backward cursor token before any query runs: its signature names the
 * direction. Anything unexpected is `invalid_cursor`. With a seal, only a token it authenticates is read at all
 * (and, with cursorTtl, one not expired): any other is refused with one message, whatever was wrong with it.
 */
export function decodePosition(token: string, expect: CursorExpectation): CursorPosition {
  if (Buffer.byteLength(token, 'utf8') > expect.maxCursorBytes) fail('the cursor is longer than allowed');
  if (token.length === 0 || !BASE64URL.test(token) || token.length % 4 === 1) fail('the cursor is not base64url');
  const { s, k } = expect.seal ? readSealed(token, expect.seal) : readPlain(token);
  const backward = expect.backwardSignature !== undefined && s === expect.backwardSignature;
  if (s !== expect.signature && !backward) fail('the cursor was made for another endpoint or sort');
  if (k.length !== expect.keys.length) fail('the cursor has the wrong number of keys');
  k.forEach((value, i) => {
    const spec = expect.keys[i]!;
    if (!keyFits(value, spec)) fail('the cursor holds a key of the wrong type');
    if (value !== null && spec.holds && !spec.holds(value as string | number | boolean))
      fail('the cursor holds a key its column cannot hold');
  });
  return { keys: k as CursorValue[], backward };
}

/** A plain v1 token's signature and keys, in canonical form only. */
function readPlain(token: string): { s: string; k: unknown[] } {
  let doc: unknown;
  try {
    doc = JSON.parse(UTF8.decode(Buffer.from(token, 'base64url')));
  } catch {
    fail('the cursor is malformed');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) fail('the cursor is malformed');
  const { v, s, k } = doc as Record<string, unknown>;
  if (v !== 1) fail('the cursor is of an unsupported version');
  if (typeof s !== 'string' || !Array.isArray(k)) fail('the cursor is malformed');
  // Canonical form: re-encoding must give back the very same bytes (key order, spacing, number forms, padding bits).
  if (encodeCanonical(s, k) !== token) fail('the cursor is not in canonical form');
  return { s, k };
}

/** A signed or sealed token's signature and keys, read only once the token is proven authentic and fresh. */
function readSealed(token: string, seal: CursorSeal): { s: string; k: unknown[] } {
  const bytes = Buffer.from(token, 'base64url');
  // Stray padding bits would give one cursor several spellings: refused like any other change.
  if (bytes.toString('base64url') !== token) fail(NOT_AUTHENTIC);
  const body = openBody(seal, bytes);
  const length = body[0] ?? 0;
  let k: unknown;
  try {
    k = JSON.parse(UTF8.decode(body.subarray(1 + length)));
  } catch {
    fail('the cursor is malformed');
  }
  if (body.length < 1 + length || !Array.isArray(k)) fail('the cursor is malformed');
  return { s: body.subarray(1, 1 + length).toString('base64url'), k };
}

function encodeCanonical(signature: string, keys: unknown[]): string | undefined {
  try {
    return Buffer.from(JSON.stringify({ v: 1, s: signature, k: keys }), 'utf8').toString('base64url');
  } catch {
    return undefined;
  }
}

/** Tell whether a value has the JSON shape a cursor key of this spec must have. */
export function keyFits(value: unknown, spec: CursorKeySpec): boolean {
  if (value === null) return spec.nullable;
  switch (spec.type) {
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'float':
      return typeof value === 'number' && Number.isFinite(value);
    case 'bigint':
      return typeof value === 'string' && INTEGER.test(value);
    case 'decimal':
      return typeof value === 'string' && DECIMAL.test(value);
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'timestamp':
      return typeof value === 'string' && TIMESTAMP.test(value);
    case 'date':
      return typeof value === 'string' && DATE.test(value);
    default: {
      const never: never = spec.type;
      return never;
    }
  }
}

function fail(message: string): never {
  throw invalidCursor(message);
}
