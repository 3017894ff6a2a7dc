/**
 * Bounded memos. listql remembers what it derives from client input (parsed filters, compiled statements, planned
 * shapes, cursor plans, …) in plain Maps whose keys clients choose, so each map holds at most a fixed number of
 * entries and forgets its oldest past that: memory stays flat whatever clients send. A Map iterates in insertion
 * order, so its first key is the oldest, the one set longest ago; where a memo renews an entry on use (getRenewed,
 * setNewest), the least recently used.
 *
 * Functions over a plain Map rather than a class of their own: a lookup stays `map.get()`, the map's type stays
 * `Map`, and each memo keeps its bound where it is declared, as a named constant with its reason.
 */

/**
 * Set `key`, then forget the oldest entry when the map holds more than `max` (at least 1): a memo given only new
 * keys keeps its `max` newest. A key already there keeps its place. Returns the key forgotten, if any.
 *
 * @example setBounded(templates, sql, template, TEMPLATES_PER_DIALECT)
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): K | undefined {
  map.set(key, value);
  return map.size > max ? forgetOldest(map) : undefined;
}

/**
 * Set `key` as the newest entry (a key already there moves to the end), then forget the oldest past `max` (at least
 * 1): what a least-recently-used memo does when it stores, or when it renews a hit it had to check first.
 * Returns the key forgotten, if any.
 */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, max: number): K | undefined {
  map.delete(key);
  map.set(key, value);
  return map.size > max ? forgetOldest(map) : undefined;
}

/**
 * The value under `key`; when there is one (null counts), it becomes the newest entry: a least-recently-used hit.
 * The map does not grow, so no bound is needed.
 */
export function getRenewed<K, V>(map: Map<K, V>, key: K): V | undefined {
  const value = map.get(key);
  if (value !== undefined) {
    map.delete(key);
    map.set(key, value);
  }
  return value;
}

/** The map `maps` holds for `owner` (a bound schema, a dialect, a connection, …), made empty on first use. */
export function mapFor<O extends object, K, V>(maps: WeakMap<O, Map<K, V>>, owner: O): Map<K, V> {
  let map = maps.get(owner);
  if (map === undefined) {
    map = new Map();
    maps.set(owner, map);
  }
  return map;
}

function forgetOldest<K, V>(map: Map<K, V>): K {
  const oldest = map.keys().next().value as K;
  map.delete(oldest);
  return oldest;
}

/**
 * A 30-bit FNV-1a hash of a text's UTF-16 units: what the memos that keep a key from its second sending remember of
 * a key seen once (a small integer: nothing the garbage collector has to keep or move).
 */
export function textHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
}
