/**
 * `node bench/cursor-seal.ts`: what signing and sealing add to a cursor, in characters and in microseconds per
 * encode and decode, for a typical key (a decimal and an integer) and a long one. Plain, signed and sealed cursors
 * side by side; each figure is the fastest of several rounds (the least disturbed by other work on the machine). Not part of `npm run bench`: it needs no database.
 */
import { type CursorExpectation, type CursorValue, decodePosition, encodeCursor } from '../src/keyset/cursor-codec.ts';
import { type CursorSeal, cursorKeysOf, cursorSealOf } from '../src/keyset/cursor-seal.ts';
import { sortSignature } from '../src/keyset/sort-signature.ts';

const SIGNATURE = sortSignature(['Book', 'book', 'price', '', 'decimal', 'desc', 'book', 'id', '', 'integer', 'asc']);
const SECRET = 'bench-only-cursor-secret-of-at-least-32-bytes';
const ROUNDS = 7;
const PER_ROUND = 20_000;

const SHAPES: readonly { name: string; keys: CursorValue[] }[] = [
  { name: 'decimal + integer', keys: ['14.99', 1] },
  { name: 'string of 200 + integer', keys: ['x'.repeat(200), 123456] },
];

function sealOf(mode: 'signed' | 'sealed' | undefined, ttl?: number): CursorSeal | undefined {
  if (mode === undefined) return undefined;
  return cursorSealOf(cursorKeysOf({ cursorSecret: SECRET, cursorMode: mode, cursorTtl: ttl }), 'tenant-1');
}

function fastest(run: () => void): number {
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    for (let i = 0; i < PER_ROUND; i++) run();
    times.push(((performance.now() - start) * 1000) / PER_ROUND);
  }
  return Math.min(...times);
}

const rows: string[][] = [['key', 'mode', 'characters', 'over plain', 'encode µs', 'decode µs']];
for (const shape of SHAPES) {
  let plain = 0;
  for (const [label, mode, ttl] of [
    ['plain', undefined, undefined],
    ['signed', 'signed', undefined],
    ['signed + ttl', 'signed', 3600],
    ['sealed', 'sealed', undefined],
    ['sealed + ttl', 'sealed', 3600],
  ] as const) {
    const seal = sealOf(mode, ttl);
    const token = encodeCursor(SIGNATURE, shape.keys, seal);
    const expect: CursorExpectation = {
      signature: SIGNATURE,
      keys: shape.keys.map((k) => ({ type: typeof k === 'number' ? 'integer' : 'string', nullable: false })),
      maxCursorBytes: 4096,
      seal,
    };
    if (mode === undefined) plain = token.length;
    const encode = fastest(() => encodeCursor(SIGNATURE, shape.keys, seal));
    const decode = fastest(() => decodePosition(token, expect));
    rows.push([
      shape.name,
      label,
      String(token.length),
      String(token.length - plain),
      encode.toFixed(2),
      decode.toFixed(2),
    ]);
  }
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
console.log(`\nNode ${process.version}; fastest of ${ROUNDS} rounds of ${PER_ROUND.toLocaleString('en')} calls each.`);
