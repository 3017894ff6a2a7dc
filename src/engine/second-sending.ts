import { textHash } from '../bounded-map.ts';

/**
 * A bounded memo that keeps a value from its key's second sending on, per engine: the parse memo (request-text.ts)
 * and the literal memo (request-mask.ts) both keep requests this way. A stream of never-repeated keys (a new literal,
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
