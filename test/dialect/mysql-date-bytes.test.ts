/**
 * DATETIME and TIMESTAMP values read as bytes (dialect/mysql/date-bytes.ts) are written as exactly the text mysql2's
 * own reader gives with `dateStrings` (its Packet.readDateTimeString()), followed by the fraction padding textLike()
 * applies: over every length the binary protocol sends (0, 4, 7, 11 bytes), every declared fraction (0 to 6, and
 * MariaDB's 31 for "not fixed"), and parts inside and far outside the ranges a server stores (zero dates, months and
 * days of zero, years below 1000, bytes up to 255, microseconds past 999,999). No database: the reference is mysql2's
 * reader itself, fed the same bytes; the suite on a real MariaDB is test/engine/walk-dates.test.ts. The Date a walk's
 * rows get instead of that text (utcDateOfBytes()) is compared with the row writer's reading of the text, over calendar
 * edges (leap years, short months) and every part out of range.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dateTimeText, padFraction, utcDateOfBytes } from '../../src/dialect/mysql/date-bytes.ts';
import { utcDateText } from '../../src/orm/date-text.ts';

const require = createRequire(import.meta.url);
// mysql2's exports map hides its lib/ folder; its packet reader is loaded by file.
const Packet = require(join(dirname(require.resolve('mysql2')), 'lib/packets/packet.js')) as new (
  id: number,
  buffer: Buffer,
  start: number,
  end: number,
) => { readDateTimeString(decimals: number, timeSep: null, columnType: number): string };

const DATETIME = 12;
const TIMESTAMP = 7;

/** What the statement gave before: mysql2's text of the bytes, then textLike()'s padding of a declared fraction. */
function reference(bytes: Uint8Array, decimals: number, columnType: number): string {
  // A packet's payload starts after its 4-byte header (mysql2 reads from `start + 4`): the value's length byte, then it.
  const buffer = Buffer.from([0, 0, 0, 0, bytes.length, ...bytes]);
  const text = new Packet(0, buffer, 0, buffer.length).readDateTimeString(decimals, null, columnType);
  return decimals > 0 && decimals <= 6 ? padFraction(text, decimals) : text;
}

function bytesOf(length: number, parts: readonly number[]): Uint8Array {
  const [y, m, d, h, min, s, micros] = parts as [number, number, number, number, number, number, number];
  const all = [y & 0xff, y >> 8, m, d, h, min, s, micros & 0xff, (micros >>> 8) & 0xff, (micros >>> 16) & 0xff];
  return Uint8Array.from([...all, micros >>> 24].slice(0, length));
}

const YEARS = [0, 1, 50, 99, 100, 999, 1000, 1970, 2024, 9999, 10_000, 65_535];
const SMALL = [0, 1, 9, 10, 12, 13, 28, 29, 31, 59, 99, 100, 255];
const MICROS = [0, 1, 5, 10, 120_000, 123_456, 500_000, 999_999, 1_000_000, 4_294_967_295];
const DECIMALS = [0, 1, 2, 3, 4, 5, 6, 7, 31];
const LENGTHS = [0, 4, 7, 11];

/** A small deterministic generator: the same cases on every run. */
function* cases(count: number): Generator<[number, number[]]> {
  let seed = 20_240_115;
  const next = (n: number) => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    // The high bits: the low bits of this generator repeat every few draws (every case would get one length).
    return (seed >>> 16) % n;
  };
  const pick = <T>(values: readonly T[]) => values[next(values.length)]!;
  for (let i = 0; i < count; i++)
    yield [pick(LENGTHS), [pick(YEARS), pick(SMALL), pick(SMALL), pick(SMALL), pick(SMALL), pick(SMALL), pick(MICROS)]];
}

test('the same text as mysql2 for every length, fraction and part, in and out of range', () => {
  let checked = 0;
  const lengths = new Set<number>();
  for (const [length, parts] of cases(20_000))
    for (const decimals of DECIMALS)
      for (const type of [DATETIME, TIMESTAMP]) {
        const bytes = bytesOf(length, parts);
        lengths.add(length);
        const expected = reference(bytes, decimals, type);
        const actual = dateTimeText(bytes, decimals);
        if (actual !== expected)
          assert.unreachable(`${JSON.stringify({ length, parts, decimals, type })}: ${actual} ≠ ${expected}`);
        checked++;
      }
  assert.ok(checked > 300_000);
  assert.equal([...lengths].sort(), [0, 11, 4, 7]);
});

test('plain values, fractions kept or padded as the column declares', () => {
  const at = bytesOf(11, [2024, 1, 15, 10, 0, 0, 120_000]);
  assert.is(dateTimeText(at, 3), '2024-01-15 10:00:00.120');
  assert.is(dateTimeText(at, 6), '2024-01-15 10:00:00.120000');
  assert.is(dateTimeText(bytesOf(7, [2024, 1, 15, 10, 0, 0, 0]), 3), '2024-01-15 10:00:00.000');
  assert.is(dateTimeText(bytesOf(7, [2024, 1, 15, 10, 0, 0, 0]), 0), '2024-01-15 10:00:00');
  assert.is(dateTimeText(bytesOf(4, [2024, 1, 15, 0, 0, 0, 0]), 0), '2024-01-15 00:00:00');
  assert.is(dateTimeText(bytesOf(0, [0, 0, 0, 0, 0, 0, 0]), 0), '0000-00-00 00:00:00');
  assert.is(dateTimeText(bytesOf(7, [2020, 0, 10, 1, 2, 3, 0]), 2), '2020-00-10 01:02:03.00');
});

test('a Date from the bytes is the one the row writer reads from their text, and only where it reads one', () => {
  const years = [0, 999, 1000, 1900, 1970, 2000, 2023, 2024, 2100, 2400, 9999, 10_000, 65_535];
  const months = [0, 1, 2, 3, 4, 6, 9, 11, 12, 13];
  const days = [0, 1, 28, 29, 30, 31, 32];
  const times = [
    [0, 0, 0, 0],
    [23, 59, 59, 999_999],
    [12, 30, 15, 123_456],
    [24, 0, 0, 5],
    [0, 60, 0, 0],
    [0, 0, 60, 0],
    [1, 2, 3, 1_000_000],
  ];
  let dates = 0;
  let texts = 0;
  for (const y of years)
    for (const m of months)
      for (const d of days)
        for (const [h, min, sec, micros] of times)
          for (const length of LENGTHS)
            for (const decimals of DECIMALS) {
              const bytes = bytesOf(length, [y, m, d, h!, min!, sec!, micros!]);
              const expected = utcDateText(dateTimeText(bytes, decimals));
              const actual = utcDateOfBytes(bytes, decimals);
              const label = JSON.stringify({ length, y, m, d, h, min, sec, micros, decimals });
              if (actual === undefined) {
                // The text is kept and read as before; a plain value must not take this way.
                if (expected !== undefined && !(length === 11 && (decimals === 0 || micros! > 999_999)))
                  assert.unreachable(`${label}: no Date, where its text reads as one`);
                texts++;
              } else {
                if (expected?.getTime() !== actual.getTime()) assert.unreachable(`${label}: ${actual.toISOString()}`);
                dates++;
              }
            }
  assert.ok(dates > 10_000 && texts > 10_000, `${dates} Dates, ${texts} texts`);
  assert.is(
    utcDateOfBytes(bytesOf(11, [2024, 2, 29, 23, 59, 59, 999_999]), 6)?.toISOString(),
    '2024-02-29T23:59:59.999Z',
  );
  assert.is(
    utcDateOfBytes(bytesOf(11, [2024, 1, 15, 10, 0, 0, 120_000]), 1)?.toISOString(),
    '2024-01-15T10:00:00.100Z',
  );
  assert.is(utcDateOfBytes(bytesOf(4, [2023, 2, 29, 0, 0, 0, 0]), 0), undefined);
  assert.is(utcDateOfBytes(bytesOf(0, [0, 0, 0, 0, 0, 0, 0]), 0), undefined);
});

test.run();
