/**
 * Bounded memos. listql remembers what it derives from client input (parsed filters, compiled statements, planned
 * shapes, cursor plans, …) in plain Maps whose keys clients choose, so each map holds at most a fixed number of
 * entries and forgets its oldest past that: memory stays flat whatever clients send. A Map iterates in insertion
 * order, so its first key is the oldest, the one set longest ago; where a memo renews an entry on use (getRenewed,
 * setNewest), the least recently used.
 *
 * Functions over a plain Map rather than a class of their own: a lookup stays `map.get()`, the map's type stays
 * `Map`, and each memo keeps its bound where it is declared, as a named constant with its reason. The one class,
 * SecondSendingMemo at the end, is for memos of keys that clients often send only once.
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
 * A bounded memo that keeps a value from its key's second sending on: the filter parse cache (syntax/cache.ts), and
 * per engine the parse memo (engine/request-text.ts) and the literal memo (engine/request-mask.ts), keep this way. A stream of never-repeated keys (a new literal,
 * a new cursor each time) then keeps nothing alive, and costs the garbage collector nothing more than before.
 *
 * Two generations instead of a strict LRU order: a hit in the young one costs one lookup (no reordering), a hit in
 * the old one moves the entry to the young one, and when the young one is full it becomes the old one (whose
 * entries, unused since, are dropped). At most `max` entries are kept.
 *
 * Keys seen once are kept as 30-bit hashes (small integers: nothing the garbage collector has to keep or move),
 * forgotten all at once when `maxSeen` have gathered. Two keys of one hash only make the second remembered at its
 * first sending: the memo itself is keyed by the whole key.
 */
export class SecondSendingMemo<V> {
  #young = new Map<string, V>();
  #old = new Map<string, V>();
  #seen = new Set<number>();
  readonly #max: number;
  readonly #maxSeen: number;

  constructor(max: number, maxSeen: number) {
    this.#max = max;
    this.#maxSeen = maxSeen;
  }

  /** The value remembered for `key`, if any. */
  get(key: string): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) {
      this.#old.delete(key);
      this.#keep(key, old);
    }
    return old;
  }

  /** Note `key`'s value: remembered (and true returned) when the key was seen before, else only noted. */
  note(key: string, value: V): boolean {
    const hash = textHash(key);
    if (this.#seen.delete(hash)) {
      this.#keep(key, value);
      return true;
    }
    if (this.#seen.size >= this.#maxSeen) this.#seen = new Set();
    this.#seen.add(hash);
    return false;
  }

  #keep(key: string, value: V): void {
    if (this.#young.size >= this.#max / 2) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }
}

/** FNV-1a over the text's UTF-16 units, cut to 30 bits. */
function textHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
}
