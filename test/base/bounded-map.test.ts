import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { getRenewed, mapFor, setBounded, setNewest } from '../../src/bounded-map.ts';

const keys = (map: Map<string, number>) => [...map.keys()].join(',');

test('setBounded keeps the newest max entries, forgetting the oldest set, and names it', () => {
  const map = new Map<string, number>();
  assert.is(setBounded(map, 'a', 1, 2), undefined);
  assert.is(setBounded(map, 'b', 2, 2), undefined);
  assert.is(map.get('a'), 1, 'a lookup does not renew');
  assert.is(setBounded(map, 'c', 3, 2), 'a');
  assert.is(keys(map), 'b,c');
  assert.is(setBounded(map, 'd', 4, 2), 'b');
  assert.is(keys(map), 'c,d');
});

test('setBounded replaces a key already there in its place, forgetting nothing', () => {
  const map = new Map([
    ['a', 1],
    ['b', 2],
  ]);
  assert.is(setBounded(map, 'a', 10, 2), undefined);
  assert.is(keys(map), 'a,b');
  assert.is(map.get('a'), 10);
  assert.is(setBounded(map, 'c', 3, 2), 'a', 'the replaced key is still the oldest');
});

test('a bound of one keeps the last key set', () => {
  const map = new Map<string, number>();
  setBounded(map, 'a', 1, 1);
  assert.is(setBounded(map, 'b', 2, 1), 'a');
  assert.is(keys(map), 'b');
});

test('getRenewed and setNewest make a least-recently-used memo', () => {
  const map = new Map<string, number>();
  setNewest(map, 'a', 1, 2);
  setNewest(map, 'b', 2, 2);
  assert.is(getRenewed(map, 'a'), 1, 'a is now the most recent');
  assert.is(keys(map), 'b,a');
  assert.is(setNewest(map, 'c', 3, 2), 'b');
  assert.is(keys(map), 'a,c');
  assert.is(setNewest(map, 'a', 11, 2), undefined, 'setting a key already there forgets nothing');
  assert.is(keys(map), 'c,a');
  assert.is(map.get('a'), 11);
  assert.is(getRenewed(map, 'missing'), undefined);
  assert.is(keys(map), 'c,a', 'a miss changes nothing');
});

test('getRenewed renews a null value: null is a remembered answer, undefined is none', () => {
  const map = new Map<string, number | null>([
    ['a', null],
    ['b', 2],
  ]);
  assert.is(getRenewed(map, 'a'), null);
  assert.equal([...map.keys()], ['b', 'a']);
});

test('a memo past its bound, under a stream of new keys, never holds more than max', () => {
  const fifo = new Map<number, number>();
  const lru = new Map<number, number>();
  for (let i = 0; i < 1000; i++) {
    setBounded(fifo, i, i, 64);
    setNewest(lru, i, i, 64);
    getRenewed(lru, 0);
    assert.ok(fifo.size <= 64 && lru.size <= 64);
  }
  assert.is(fifo.size, 64);
  assert.is(fifo.has(0), false, 'a FIFO memo forgets its first key');
  assert.is(lru.has(0), true, 'an LRU memo keeps the key it renews');
  assert.is(fifo.keys().next().value, 1000 - 64);
});

test('mapFor makes one map per owner on first use and hands the same one back', () => {
  const maps = new WeakMap<object, Map<string, number>>();
  const one = {};
  const other = {};
  const map = mapFor(maps, one);
  assert.is(maps.get(one), map);
  assert.is(mapFor(maps, one), map);
  assert.is.not(mapFor(maps, other), map);
  assert.is(map.size, 0);
});

test.run();
