/**
 * Signed and sealed cursors (docs/pagination.md, Signed and sealed cursors). With the engine's `cursorSecret`, every
 * cursor the engine hands out is authenticated, so a client can neither change its key values nor make one up:
 *
 * - `signed`: `header · [issued] · body · HMAC-SHA-256(scope · header · [issued] · body)[0..16]`; the key values
 *   stay readable.
 * - `sealed`: `header · nonce · XAES-256-GCM(nonce, header · scope; [issued] · body)`, a random 24-byte nonce per
 *   cursor; the key values are hidden (xaes-256-gcm.ts: AES-256-GCM with a key derived per cursor, so one secret
 *   seals any number of cursors).
 *
 * The signing and the sealing key are derived from each secret with HKDF-SHA-256, one per purpose. The request's
 * `ctx.cursorScope` is authenticated with the cursor but never written into it. Everything that fails
 * authentication gets one message, so a refusal tells a forger nothing; expiry is only said of an authentic cursor.
 */
import { createHmac, createSecretKey, hkdfSync, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import { invalidCursor, invalidSchema } from '../errors.ts';
import { XAES_NONCE, XAES_TAG, type XaesKey, xaesKey } from './xaes-256-gcm.ts';

/** The engine options of signed and sealed cursors (createEngine; docs/pagination.md, Signed and sealed cursors). */
export interface CursorOptions {
  /**
   * The secret cursors are signed or sealed with: at least 32 bytes (a string counts its UTF-8 bytes), random, and
   * kept out of the source (an environment variable, a secret store). A list rotates secrets: the first signs new
   * cursors, every one verifies. Without it cursors are plain base64url JSON, which a client can read and change
   * (docs/security.md, Cursors).
   */
  readonly cursorSecret?: string | Uint8Array | readonly (string | Uint8Array)[] | undefined;
  /**
   * `'sealed'` (the default with a secret): AES-256-GCM, the key values are hidden. `'signed'`: HMAC-SHA-256, the
   * key values stay readable to anyone who decodes the cursor, and a cursor without `cursorTtl` is the same for the
   * same position.
   */
  readonly cursorMode?: 'signed' | 'sealed' | undefined;
  /** Seconds a cursor is accepted after it was issued (whole seconds); without it cursors do not expire. */
  readonly cursorTtl?: number | undefined;
  /** The clock issue times and expiry read, in milliseconds since the epoch (default `Date.now`); for tests. */
  readonly cursorClock?: (() => number) | undefined;
}

/** The value a request binds its cursors to (`ctx.cursorScope`): a tenant, a user, or a list of such values. */
export type CursorScope = string | number | readonly (string | number)[];

/** One secret's key: an HMAC-SHA-256 key (signed) or an XAES-256-GCM key (sealed). */
export type CursorKey = { readonly mac: KeyObject } | { readonly aead: XaesKey };

/** The engine's cursor keys, derived once at createEngine: the first signs, every one verifies. */
export interface CursorKeys {
  readonly mode: 'signed' | 'sealed';
  readonly keys: readonly CursorKey[];
  readonly ttl: number | undefined;
  readonly now: () => number;
}

/** What one request signs or seals its cursors with: the engine's keys and the request's scope, length-prefixed. */
export interface CursorSeal extends CursorKeys {
  readonly scope: Buffer;
}

/** The shortest secret accepted, in bytes: a key of 256 bits. */
export const MIN_SECRET_BYTES = 32;

const TAG = 16;
const TIME = 4;
const SIGNED = 0x01;
const SEALED = 0x02;
/** Header flag: the cursor carries its issue time (only when the engine has a cursorTtl). */
const TIMED = 0x10;
const SALT = Buffer.from('listql/cursor-seal/v1', 'utf8');
const EMPTY = Buffer.alloc(0);

/** What a refused cursor says, whatever failed: nothing that tells a forger what to change. */
export const NOT_AUTHENTIC = 'the cursor is not authentic: it was changed, or issued with another secret or scope';
/** What an authentic cursor past `cursorTtl` says. */
export const EXPIRED = 'the cursor has expired: start again from the first page';

/** Validate the cursor options of an engine config and derive its keys; undefined without a secret. */
export function cursorKeysOf(options: CursorOptions): CursorKeys | undefined {
  const { cursorSecret, cursorMode, cursorTtl, cursorClock } = options;
  if (cursorMode !== undefined && cursorMode !== 'signed' && cursorMode !== 'sealed')
    bad("cursorMode must be 'signed' or 'sealed'");
  if (cursorTtl !== undefined && !(Number.isSafeInteger(cursorTtl) && cursorTtl >= 1 && cursorTtl <= 0xffffffff))
    bad('cursorTtl must be a whole number of seconds, at least 1');
  if (cursorClock !== undefined && typeof cursorClock !== 'function')
    bad('cursorClock must be a function returning milliseconds since the epoch, as Date.now does');
  if (cursorSecret === undefined) {
    const orphan = (['cursorMode', 'cursorTtl', 'cursorClock'] as const).find((name) => options[name] !== undefined);
    if (orphan) bad(`${orphan} needs cursorSecret: only a signed or sealed cursor can carry it`);
    return undefined;
  }
  const list = isList(cursorSecret);
  const secrets = list ? cursorSecret : [cursorSecret];
  if (secrets.length === 0) bad('cursorSecret must hold at least one secret');
  const mode = cursorMode ?? 'sealed';
  const keys = secrets.map((secret, i) => {
    const bytes = secretBytes(secret, list ? `cursorSecret[${i}]` : 'cursorSecret');
    const key = Buffer.from(hkdfSync('sha256', bytes, SALT, `listql/cursor/${mode}`, 32));
    return mode === 'signed' ? { mac: createSecretKey(key) } : { aead: xaesKey(key) };
  });
  return Object.freeze({ mode, keys: Object.freeze(keys), ttl: cursorTtl, now: cursorClock ?? Date.now });
}

/**
 * The seal of one request: the engine's keys bound to `ctx.cursorScope`. Undefined when the engine has no secret;
 * a scope without a secret is a configuration mistake (the binding could not hold), so it fails loudly.
 */
export function cursorSealOf(keys: CursorKeys | undefined, scope: unknown): CursorSeal | undefined {
  if (!keys) {
    if (scope !== undefined)
      throw invalidSchema('ctx.cursorScope needs the engine option cursorSecret: a plain cursor cannot be bound');
    return undefined;
  }
  const text = scope === undefined ? '' : JSON.stringify(checkScope(scope));
  const bytes = Buffer.from(text, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return { ...keys, scope: Buffer.concat([length, bytes]) };
}

/** Sign or seal a cursor body with the first key: the token, as unpadded base64url. */
export function sealBody(seal: CursorSeal, body: Buffer): string {
  const timed = seal.ttl !== undefined;
  const header = Buffer.of((seal.mode === 'signed' ? SIGNED : SEALED) | (timed ? TIMED : 0));
  const time = timed ? issuedAt(seal) : EMPTY;
  const key = seal.keys[0]!;
  if ('mac' in key) {
    const data = Buffer.concat([header, time, body]);
    return Buffer.concat([data, mac(key.mac, seal.scope, data)]).toString('base64url');
  }
  const nonce = freshNonce();
  const sealed = key.aead.seal(nonce, Buffer.concat([header, seal.scope]), Buffer.concat([time, body]));
  return Buffer.concat([header, nonce, sealed]).toString('base64url');
}

/**
 * Authenticate a token's bytes with every key (and, sealed, decrypt them), then check its age: the cursor body, or
 * `invalid_cursor`. Nothing of the body is read before it is proven authentic.
 */
export function openBody(seal: CursorSeal, bytes: Buffer): Buffer {
  const header = bytes[0] ?? 0;
  const timed = (header & TIMED) !== 0;
  const signed = seal.mode === 'signed';
  if ((header & ~TIMED) !== (signed ? SIGNED : SEALED)) fail(NOT_AUTHENTIC);
  if (bytes.length < 1 + (signed ? TAG : XAES_NONCE + XAES_TAG) + (timed ? TIME : 0)) fail(NOT_AUTHENTIC);
  const plain = signed ? verified(seal, bytes) : decrypted(seal, bytes);
  if (!plain) fail(NOT_AUTHENTIC);
  if (seal.ttl !== undefined && (!timed || nowSeconds(seal) - plain.readUInt32BE(0) > seal.ttl)) fail(EXPIRED);
  return timed ? plain.subarray(TIME) : plain;
}

/** The signed part (issue time and body) when one key's tag matches, compared in constant time. */
function verified(seal: CursorSeal, bytes: Buffer): Buffer | undefined {
  const data = bytes.subarray(0, bytes.length - TAG);
  const tag = bytes.subarray(bytes.length - TAG);
  for (const key of seal.keys)
    if ('mac' in key && timingSafeEqual(mac(key.mac, seal.scope, data), tag)) return data.subarray(1);
  return undefined;
}

/** The plaintext (issue time and body) when one key opens the sealed bytes (GCM compares the tag itself). */
function decrypted(seal: CursorSeal, bytes: Buffer): Buffer | undefined {
  const aad = Buffer.concat([bytes.subarray(0, 1), seal.scope]);
  const nonce = bytes.subarray(1, 1 + XAES_NONCE);
  const sealed = bytes.subarray(1 + XAES_NONCE);
  for (const key of seal.keys) {
    const plain = 'aead' in key ? key.aead.open(nonce, aad, sealed) : undefined;
    if (plain) return plain;
  }
  return undefined;
}

/** The signed mode's tag: HMAC-SHA-256 over the length-prefixed scope and the signed bytes, cut to 128 bits. */
function mac(key: KeyObject, scope: Buffer, data: Buffer): Buffer {
  return createHmac('sha256', key).update(scope).update(data).digest().subarray(0, TAG);
}

let pool = Buffer.alloc(0);
let taken = 0;

/** A random nonce, cut from a pool filled by the system's generator 256 nonces at a time (one call each is slower). */
function freshNonce(): Buffer {
  if (taken + XAES_NONCE > pool.length) {
    pool = randomBytes(XAES_NONCE * 256);
    taken = 0;
  }
  taken += XAES_NONCE;
  return pool.subarray(taken - XAES_NONCE, taken);
}

function issuedAt(seal: CursorSeal): Buffer {
  const time = Buffer.alloc(TIME);
  time.writeUInt32BE(nowSeconds(seal));
  return time;
}

function nowSeconds(seal: CursorSeal): number {
  const seconds = Math.floor(seal.now() / 1000);
  if (!(seconds >= 0 && seconds <= 0xffffffff)) throw new Error('listql: cursorClock gave a time outside 1970–2106');
  return seconds;
}

function checkScope(scope: unknown): CursorScope {
  const scalar = (v: unknown) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
  if (scalar(scope) || (Array.isArray(scope) && scope.every(scalar))) return scope as CursorScope;
  throw invalidSchema('ctx.cursorScope must be a string, a finite number, or a list of them');
}

function secretBytes(secret: unknown, name: string): Buffer {
  const bytes =
    typeof secret === 'string'
      ? Buffer.from(secret, 'utf8')
      : secret instanceof Uint8Array
        ? Buffer.from(secret)
        : bad(`${name} must be a string or a Uint8Array`);
  if (bytes.length < MIN_SECRET_BYTES)
    bad(`${name} has ${bytes.length} bytes: a cursor secret needs at least ${MIN_SECRET_BYTES} random bytes`);
  return bytes;
}

function isList<T>(value: T | readonly T[]): value is readonly T[] {
  return Array.isArray(value);
}

function bad(message: string): never {
  throw invalidSchema(`engine config: ${message}`);
}

function fail(message: string): never {
  throw invalidCursor(message);
}
