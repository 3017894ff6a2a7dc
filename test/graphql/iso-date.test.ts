/**
 * The compiled writer's datetime text (src/graphql/iso-date.ts) is `Date.prototype.toISOString()`'s, character for
 * character: every day's first and last millisecond from 1970 to 2500 (leap and non-leap centuries), every 7th
 * day's to 9999, random instants, and the instants it leaves
 * to toISOString (before 1970, from the year 10000, invalid dates, which throw the same RangeError).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isoString } from '../../src/graphql/iso-date.ts';

const DAY = 86_400_000;

function same(ms: number): void {
  const date = new Date(ms);
  let expected: string;
  try {
    expected = date.toISOString();
  } catch (err) {
    assert.throws(
      () => isoString(date),
      (thrown: unknown) => thrown instanceof RangeError,
      String(ms),
    );
    assert.instance(err, RangeError);
    return;
  }
  assert.is(isoString(date), expected, String(ms));
}

test('every day from 1970 to 2500 and every 7th to 9999, at its first and its last millisecond', () => {
  for (let day = 0; day < 2_932_897; day += day < 193_700 ? 1 : 7) {
    same(day * DAY);
    same((day + 1) * DAY - 1);
  }
});

test('random instants, and the edges of the range written here', () => {
  let seed = 7;
  const next = () => {
    seed = (seed * 16_807) % 2_147_483_647;
    return seed / 2_147_483_647;
  };
  for (let i = 0; i < 200_000; i++) same(Math.floor(next() * 253_402_300_800_000));
  for (let i = 0; i < 20_000; i++) same(Math.floor((next() - 0.5) * 2 * 8.64e15));
  for (const ms of [0, -0, 1, -1, 951_782_400_000, 253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15])
    same(ms);
  for (const invalid of [Number.NaN, Number.POSITIVE_INFINITY, 8.64e15 + 1]) same(invalid);
});

test.run();
