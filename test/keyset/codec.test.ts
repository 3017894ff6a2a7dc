import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ListError } from '../../src/errors.ts';
import {
  type CursorExpectation,
  type CursorValue,
  decodeCursor,
  decodePosition,
  encodeCursor,
} from '../../src/keyset/cursor-codec.ts';
import { sortSignature } from '../../src/keyset/sort-signature.ts';

const PARTS = ['Product', 'product', 'price', '', 'decimal', 'desc', 'product', 'id', '', 'integer', 'asc'];
const SIG = sortSignature(PARTS);
const EXPECT: CursorExpectation = {
  signature: SIG,
  keys: [
    { type: 'decimal', nullable: true },
    { type: 'integer', nullable: false },
  ],
  maxCursorBytes: 4096,
};
const b64 = (json: string) => Buffer.from(json, 'utf8').toString('base64url');
const good = encodeCursor(SIG, ['10.50', 7]);

test('the signature is 24 base64url characters and depends on every part and its boundaries', () => {
  assert.match(SIG, /^[A-Za-z0-9_-]{24}$/);
  assert.is.not(sortSignature(['a', 'bc']), sortSignature(['ab', 'c']));
  assert.is.not(sortSignature(['Product', 'asc']), sortSignature(['Product', 'desc']));
  assert.is(sortSignature(['x']), sortSignature(['x']));
});

test('a token is unpadded base64url of the canonical JSON and round-trips', () => {
  assert.is(Buffer.from(good, 'base64url').toString(), `{"v":1,"s":"${SIG}","k":["10.50",7]}`);
  assert.not.match(good, /[=+/]/);
  assert.equal(decodeCursor(good, EXPECT), ['10.50', 7]);
  assert.equal(decodeCursor(encodeCursor(SIG, [null, 1]), EXPECT), [null, 1]);
});

test('the signature names the direction: a backward token decodes as backward, and only where one is expected', () => {
  const BACK = sortSignature([...PARTS, 'backward']);
  const expect = { ...EXPECT, backwardSignature: BACK };
  const back = encodeCursor(BACK, ['10.50', 7]);
  assert.is.not(BACK, SIG);
  assert.equal(decodePosition(back, expect), { keys: ['10.50', 7], backward: true });
  assert.equal(decodePosition(good, expect), { keys: ['10.50', 7], backward: false });
  for (const [token, where] of [
    [back, { ...EXPECT }],
    [back, expect],
  ] as const) {
    assert.throws(
      () => (where === expect ? decodeCursor(token, where) : decodePosition(token, where)),
      (e: unknown) => e instanceof ListError && e.code === 'invalid_cursor',
      'a backward token where only forward ones are read',
    );
  }
});

const rejected: [string, string, Partial<CursorExpectation>?][] = [
  ['padded', `${good}${'='.repeat((4 - (good.length % 4)) % 4 || 4)}`],
  ['with padding char', `${good}=`],
  ['outside the alphabet', `${good.slice(0, 5)}+${good.slice(6)}`],
  ['a slash', `${good.slice(0, 5)}/${good.slice(6)}`],
  ['truncated', good.slice(0, good.length - 3)],
  ['empty', ''],
  ['not JSON', b64('hello')],
  ['a JSON array', b64(`[1,"${SIG}",[]]`)],
  ['re-ordered keys', b64(`{"s":"${SIG}","v":1,"k":["10.50",7]}`)],
  ['whitespace', b64(`{"v":1, "s":"${SIG}","k":["10.50",7]}`)],
  ['an extra property', b64(`{"v":1,"s":"${SIG}","k":["10.50",7],"x":1}`)],
  ['a duplicated property', b64(`{"v":1,"v":1,"s":"${SIG}","k":["10.50",7]}`)],
  ['a non-canonical number', b64(`{"v":1,"s":"${SIG}","k":["10.50",7.0]}`)],
  ['an exponent number', b64(`{"v":1,"s":"${SIG}","k":["10.50",7e0]}`)],
  ['version 2', b64(`{"v":2,"s":"${SIG}","k":["10.50",7]}`)],
  ['version as a string', b64(`{"v":"1","s":"${SIG}","k":["10.50",7]}`)],
  ['another sort', encodeCursor(sortSignature(['Product', 'name']), ['10.50', 7])],
  ['too few keys', encodeCursor(SIG, ['10.50'])],
  ['too many keys', encodeCursor(SIG, ['10.50', 7, 8])],
  ['a decimal as a number', encodeCursor(SIG, [10.5, 7])],
  ['a malformed decimal', encodeCursor(SIG, ['1e2', 7])],
  ['a fractional integer', encodeCursor(SIG, ['10.50', 7.5])],
  ['an unsafe integer', encodeCursor(SIG, ['10.50', 2 ** 60])],
  ['null in a NOT NULL key', encodeCursor(SIG, ['10.50', null])],
  ['a boolean key', encodeCursor(SIG, ['10.50', true])],
  ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')],
  ['over maxCursorBytes', good, { maxCursorBytes: good.length - 1 }],
];

for (const [name, token, override] of rejected) {
  test(`rejects a cursor: ${name}`, () => {
    try {
      decodeCursor(token, { ...EXPECT, ...override });
      assert.unreachable('should have thrown');
    } catch (err) {
      assert.instance(err, ListError);
      assert.is((err as ListError).code, 'invalid_cursor');
      assert.is((err as ListError).parameter, 'cursor');
    }
  });
}

test('a cursor exactly at maxCursorBytes is accepted', () => {
  assert.equal(decodeCursor(good, { ...EXPECT, maxCursorBytes: good.length }), ['10.50', 7]);
});

test('every key type accepts its canonical form', () => {
  const keys: [CursorExpectation['keys'][number]['type'], CursorValue][] = [
    ['integer', -3],
    ['float', 0.1],
    ['bigint', '-9223372036854775808'],
    ['decimal', '-0.0001'],
    ['string', "O'Brien"],
    ['boolean', false],
    ['timestamp', '2024-01-15T10:00:00.123456Z'],
    ['date', '2024-02-29'],
  ];
  const expect: CursorExpectation = {
    signature: SIG,
    keys: keys.map(([type]) => ({ type, nullable: false })),
    maxCursorBytes: 4096,
  };
  const values = keys.map(([, v]) => v);
  assert.equal(decodeCursor(encodeCursor(SIG, values), expect), values);
});

test('a key of the right type that its column cannot hold is refused; NULL is never checked', () => {
  const seen: unknown[] = [];
  const expect: CursorExpectation = {
    ...EXPECT,
    keys: [
      { type: 'decimal', nullable: true, holds: (v) => seen.push(v) > 0 && v !== '99.99' },
      { type: 'integer', nullable: false, holds: (v) => seen.push(v) > 0 && typeof v === 'number' && v < 100 },
    ],
  };
  assert.equal(decodeCursor(encodeCursor(SIG, [null, 7]), expect), [null, 7]);
  assert.equal(seen, [7], 'holds sees non-null keys only');
  for (const keys of [
    ['99.99', 7],
    ['10.50', 100],
  ] as CursorValue[][]) {
    assert.throws(
      () => decodeCursor(encodeCursor(SIG, keys), expect),
      (err: unknown) => (err as ListError).code === 'invalid_cursor' && (err as ListError).parameter === 'cursor',
    );
  }
});

test('a non-finite float key cannot become a cursor', () => {
  for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
    assert.throws(
      () => encodeCursor(SIG, [bad]),
      (err: unknown) => (err as ListError).code === 'execution_failed',
    );
  }
});

test.run();
