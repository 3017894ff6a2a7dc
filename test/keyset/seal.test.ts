/**
 * Signed and sealed cursor tokens, without a database: XAES-256-GCM against the specification's vectors, the exact
 * size of each envelope, every changed byte refused with one message, secrets, rotation, scopes and expiry, and
 * the checks of the engine options. The same behaviour through the engine, on every dialect, is in
 * test/engine/sealed-cursors.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isListError, ListError } from '../../src/errors.ts';
import {
  type CursorExpectation,
  type CursorValue,
  decodePosition,
  encodeCursor,
} from '../../src/keyset/cursor-codec.ts';
import {
  type CursorOptions,
  type CursorSeal,
  cursorKeysOf,
  cursorSealOf,
  EXPIRED,
  NOT_AUTHENTIC,
} from '../../src/keyset/cursor-seal.ts';
import { sortSignature } from '../../src/keyset/sort-signature.ts';
import { xaesKey } from '../../src/keyset/xaes-256-gcm.ts';

const SECRET_A = 'test-secret-A-0123456789abcdefghijklmnop';
const SECRET_B = 'test-secret-B-0123456789abcdefghijklmnop';
const SIG = sortSignature(['Product', 'product', 'name', '', 'string', 'asc', 'product', 'id', '', 'integer', 'asc']);
const BACK = sortSignature([
  'Product',
  'product',
  'name',
  '',
  'string',
  'asc',
  'product',
  'id',
  '',
  'integer',
  'asc',
  'backward',
]);
const KEYS: CursorValue[] = ['Zanzibar-7731', 42];

function seal(options: CursorOptions, scope?: unknown): CursorSeal {
  return cursorSealOf(cursorKeysOf(options), scope)!;
}

function expect(s: CursorSeal | undefined, max = 4096): CursorExpectation {
  return {
    signature: SIG,
    backwardSignature: BACK,
    keys: [
      { type: 'string', nullable: false },
      { type: 'integer', nullable: false },
    ],
    maxCursorBytes: max,
    seal: s,
  };
}

/** Decode a token, returning the ListError it throws (or undefined when it is accepted). */
function refusal(token: string, where: CursorExpectation): ListError | undefined {
  try {
    decodePosition(token, where);
    return undefined;
  } catch (err) {
    if (!isListError(err)) throw err;
    return err;
  }
}

const MODES = ['signed', 'sealed'] as const;

test('XAES-256-GCM gives the specification’s test vectors (c2sp.org/XAES-256-GCM) and opens them', () => {
  const nonce = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWX');
  const plain = Buffer.from('XAES-256-GCM');
  const one = xaesKey(Buffer.alloc(32, 1));
  const three = xaesKey(Buffer.alloc(32, 3));
  const aad = Buffer.from('c2sp.org/XAES-256-GCM');
  assert.is(
    one.seal(nonce, Buffer.alloc(0), plain).toString('hex'),
    'ce546ef63c9cc60765923609b33a9a1974e96e52daf2fcf7075e2271',
  );
  assert.is(three.seal(nonce, aad, plain).toString('hex'), '986ec1832593df5443a179437fd083bf3fdb41abd740a21f71eb769d');
  const sealed = three.seal(nonce, aad, plain);
  assert.is(three.open(nonce, aad, sealed)?.toString(), 'XAES-256-GCM');
  assert.is(three.open(nonce, Buffer.from('other'), sealed), undefined, 'another AAD');
  assert.is(one.open(nonce, aad, sealed), undefined, 'another key');
  assert.is(three.open(Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWY'), aad, sealed), undefined, 'another nonce');
});

test('envelope sizes: signed is 7 bytes under plain, sealed 17 over; an issue time adds 4', () => {
  // Plain: {"v":1,"s":"<24>","k":<keys>} = 43 bytes + keys. Signed: header 1 + body (1 + 18 + keys) + tag 16.
  // Sealed: header 1 + nonce 24 + body (1 + 18 + keys) + tag 16. The keys' JSON here: ["Zanzibar-7731",42] = 20.
  const raw = (token: string) => Buffer.from(token, 'base64url').length;
  assert.is(raw(encodeCursor(SIG, KEYS)), 63);
  assert.is(raw(encodeCursor(SIG, KEYS, seal({ cursorSecret: SECRET_A, cursorMode: 'signed' }))), 56);
  assert.is(raw(encodeCursor(SIG, KEYS, seal({ cursorSecret: SECRET_A, cursorMode: 'sealed' }))), 80);
  assert.is(raw(encodeCursor(SIG, KEYS, seal({ cursorSecret: SECRET_A, cursorMode: 'signed', cursorTtl: 60 }))), 60);
  assert.is(raw(encodeCursor(SIG, KEYS, seal({ cursorSecret: SECRET_A, cursorTtl: 60 }))), 84);
  assert.is(encodeCursor(SIG, KEYS).length, 84, 'characters: ceil(63 × 4 / 3)');
  assert.is(encodeCursor(SIG, KEYS, seal({ cursorSecret: SECRET_A })).length, 107, 'ceil(80 × 4 / 3)');
});

for (const mode of MODES) {
  const s = seal({ cursorSecret: SECRET_A, cursorMode: mode });

  test(`${mode}: forward and backward tokens round-trip; only sealed ones hide the keys`, () => {
    const after = encodeCursor(SIG, KEYS, s);
    const before = encodeCursor(BACK, KEYS, s);
    assert.match(after, /^[A-Za-z0-9_-]+$/);
    assert.equal(decodePosition(after, expect(s)), { keys: KEYS, backward: false });
    assert.equal(decodePosition(before, expect(s)), { keys: KEYS, backward: true });
    const bytes = Buffer.from(after, 'base64url').toString('latin1');
    assert.is(bytes.includes('Zanzibar-7731'), mode === 'signed', 'the key value in the decoded bytes');
    assert.is(bytes.includes(Buffer.from(SIG, 'base64url').toString('latin1')), mode === 'signed');
  });

  test(`${mode}: every changed byte, a cut and an extension are refused with one message`, () => {
    const token = encodeCursor(SIG, KEYS, s);
    const bytes = Buffer.from(token, 'base64url');
    for (let i = 0; i < bytes.length; i++) {
      for (const bit of [0x01, 0x80]) {
        const changed = Buffer.from(bytes);
        changed[i]! ^= bit;
        const err = refusal(changed.toString('base64url'), expect(s));
        assert.is(err?.message, NOT_AUTHENTIC, `byte ${i}, bit ${bit}`);
        assert.is(err?.code, 'invalid_cursor');
        assert.is(err?.parameter, 'cursor');
      }
    }
    for (const other of [
      bytes.subarray(0, -1),
      bytes.subarray(1),
      Buffer.concat([bytes, Buffer.of(0)]),
      Buffer.alloc(0, 0),
    ])
      if (other.length > 0) assert.is(refusal(other.toString('base64url'), expect(s))?.message, NOT_AUTHENTIC);
  });

  test(`${mode}: another secret, another mode, a plain token and stray padding bits are refused`, () => {
    const other = mode === 'signed' ? 'sealed' : 'signed';
    const token = encodeCursor(SIG, KEYS, s);
    assert.is(refusal(token, expect(seal({ cursorSecret: SECRET_B, cursorMode: mode })))?.message, NOT_AUTHENTIC);
    assert.is(refusal(token, expect(seal({ cursorSecret: SECRET_A, cursorMode: other })))?.message, NOT_AUTHENTIC);
    assert.is(refusal(encodeCursor(SIG, KEYS), expect(s))?.message, NOT_AUTHENTIC, 'a plain cursor');
    assert.is(refusal(token, expect(undefined))?.code, 'invalid_cursor', 'a sealed cursor where plain ones are read');
    // The last character carries unused bits when the byte count is not a multiple of 3: set one.
    if (Buffer.from(token, 'base64url').length % 3 !== 0) {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const last = alphabet.indexOf(token.at(-1)!);
      const stray = token.slice(0, -1) + alphabet[last ^ 1];
      assert.equal(Buffer.from(stray, 'base64url'), Buffer.from(token, 'base64url'), 'same bytes');
      assert.is(refusal(stray, expect(s))?.message, NOT_AUTHENTIC);
    }
  });

  test(`${mode}: rotation: the first secret signs, every secret verifies`, () => {
    const old = encodeCursor(SIG, KEYS, seal({ cursorSecret: SECRET_A, cursorMode: mode }));
    const rotated = seal({ cursorSecret: [SECRET_B, SECRET_A], cursorMode: mode });
    assert.equal(decodePosition(old, expect(rotated)).keys, KEYS, 'the old secret still verifies');
    const fresh = encodeCursor(SIG, KEYS, rotated);
    assert.equal(decodePosition(fresh, expect(seal({ cursorSecret: SECRET_B, cursorMode: mode }))).keys, KEYS);
    assert.is(refusal(fresh, expect(seal({ cursorSecret: SECRET_A, cursorMode: mode })))?.message, NOT_AUTHENTIC);
  });

  test(`${mode}: a cursor is bound to its scope, which it does not carry`, () => {
    const scoped = (scope: unknown) => seal({ cursorSecret: SECRET_A, cursorMode: mode }, scope);
    const token = encodeCursor(SIG, KEYS, scoped('tenant-7'));
    assert.equal(decodePosition(token, expect(scoped('tenant-7'))).keys, KEYS);
    for (const other of ['tenant-8', undefined, ['tenant-7'], '"tenant-7"', ''])
      assert.is(refusal(token, expect(scoped(other)))?.message, NOT_AUTHENTIC, JSON.stringify(other));
    assert.not.ok(Buffer.from(token, 'base64url').toString('latin1').includes('tenant-7'));
    // 7 and '7' are different scopes; a list is one value.
    assert.ok(refusal(encodeCursor(SIG, KEYS, scoped(7)), expect(scoped('7'))));
    assert.equal(decodePosition(encodeCursor(SIG, KEYS, scoped([1, 'a'])), expect(scoped([1, 'a']))).keys, KEYS);
  });

  test(`${mode}: with cursorTtl a cursor carries its issue time and expires after it`, () => {
    let now = 1_700_000_000_500;
    const timed = seal({ cursorSecret: SECRET_A, cursorMode: mode, cursorTtl: 60, cursorClock: () => now });
    const token = encodeCursor(SIG, KEYS, timed);
    now += 60_000;
    assert.equal(decodePosition(token, expect(timed)).keys, KEYS, 'at 60 s');
    now += 1000;
    assert.is(refusal(token, expect(timed))?.message, EXPIRED, 'at 61 s');
    assert.equal(decodePosition(token, expect(seal({ cursorSecret: SECRET_A, cursorMode: mode }))).keys, KEYS);
    const untimed = encodeCursor(SIG, KEYS, seal({ cursorSecret: SECRET_A, cursorMode: mode }));
    assert.is(refusal(untimed, expect(timed))?.message, EXPIRED, 'issued before cursorTtl was set');
    const changed = Buffer.from(token, 'base64url');
    changed[mode === 'signed' ? 1 : 30]! ^= 1;
    assert.is(refusal(changed.toString('base64url'), expect(timed))?.message, NOT_AUTHENTIC, 'authentic first');
  });

  test(`${mode}: maxCursorBytes bounds the sealed token`, () => {
    const token = encodeCursor(SIG, KEYS, s);
    assert.ok(refusal(token, expect(s, token.length)) === undefined);
    assert.is(refusal(token, expect(s, token.length - 1))?.message, 'the cursor is longer than allowed');
  });
}

test('sealed cursors of one position differ (a random nonce each); signed ones without cursorTtl do not', () => {
  const sealed = seal({ cursorSecret: SECRET_A });
  const signed = seal({ cursorSecret: SECRET_A, cursorMode: 'signed' });
  assert.is.not(encodeCursor(SIG, KEYS, sealed), encodeCursor(SIG, KEYS, sealed));
  assert.is(encodeCursor(SIG, KEYS, signed), encodeCursor(SIG, KEYS, signed));
});

const BAD_OPTIONS: readonly [string, CursorOptions, RegExp][] = [
  ['a 31-byte secret', { cursorSecret: 'x'.repeat(31) }, /cursorSecret has 31 bytes: .*at least 32/],
  ['31 bytes of 3-byte characters counted as bytes', { cursorSecret: '€'.repeat(10) + 'x' }, /has 31 bytes/],
  ['a short Uint8Array', { cursorSecret: new Uint8Array(16) }, /cursorSecret has 16 bytes/],
  ['a short secret in a list', { cursorSecret: [SECRET_A, 'short'] }, /cursorSecret\[1\] has 5 bytes/],
  ['an empty list', { cursorSecret: [] }, /at least one secret/],
  ['a number', { cursorSecret: 12345 as never }, /must be a string or a Uint8Array/],
  [
    'another mode',
    { cursorSecret: SECRET_A, cursorMode: 'encrypted' as never },
    /cursorMode must be 'signed' or 'sealed'/,
  ],
  ['a zero ttl', { cursorSecret: SECRET_A, cursorTtl: 0 }, /cursorTtl must be a whole number/],
  ['a fractional ttl', { cursorSecret: SECRET_A, cursorTtl: 1.5 }, /cursorTtl must be a whole number/],
  [
    'a clock that is not a function',
    { cursorSecret: SECRET_A, cursorClock: 5 as never },
    /cursorClock must be a function/,
  ],
  ['cursorTtl without a secret', { cursorTtl: 60 }, /cursorTtl needs cursorSecret/],
  ['cursorMode without a secret', { cursorMode: 'signed' }, /cursorMode needs cursorSecret/],
];

for (const [name, options, message] of BAD_OPTIONS)
  test(`the options are checked: ${name}`, () => {
    try {
      cursorKeysOf(options);
      assert.unreachable('should have thrown');
    } catch (err) {
      assert.instance(err, ListError);
      assert.is((err as ListError).code, 'invalid_schema');
      assert.match((err as ListError).message, /^engine config: /);
      assert.match((err as ListError).message, message);
      assert.not.ok((err as ListError).message.includes(SECRET_A), 'the secret is never quoted');
    }
  });

test('a 32-byte secret is enough; no secret gives plain cursors; a scope without a secret is a mistake', () => {
  assert.ok(cursorKeysOf({ cursorSecret: 'x'.repeat(32) }));
  assert.ok(cursorKeysOf({ cursorSecret: new Uint8Array(32) }));
  assert.is(cursorKeysOf({}), undefined);
  assert.is(cursorSealOf(undefined, undefined), undefined);
  assert.throws(
    () => cursorSealOf(undefined, 'tenant'),
    (err: unknown) => isListError(err) && err.code === 'invalid_schema' && /cursorSecret/.test(err.message),
  );
  for (const bad of [{}, null, Number.NaN, [['nested']], true])
    assert.throws(
      () => cursorSealOf(cursorKeysOf({ cursorSecret: SECRET_A }), bad),
      (err: unknown) => isListError(err) && err.code === 'invalid_schema',
      JSON.stringify(bad),
    );
});

test.run();
