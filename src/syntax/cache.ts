import type { Limits } from '../limits.ts';

/**
 * A small least-recently-used map. Parsed filters are immutable data, so one AST can serve every request that
 * sends the same filter text under the same limits; the bound keeps memory flat whatever clients send.
 */
export class LruCache<V> {
  readonly #max: number;
  readonly #entries = new Map<string, V>();

  constructor(max: number) {
    this.#max = max;
  }

  /** Return the cached value and mark it most recently used. */
  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  /** Store a value, evicting the least recently used entry past the bound. */
  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  get size(): number {
    return this.#entries.size;
  }
}

const fingerprints = new WeakMap<Limits, string>();

/** Fingerprint the limits that decide whether a filter is accepted, so a cache key never crosses configurations. */
export function limitsKey(limits: Limits): string {
  let key = fingerprints.get(limits);
  if (key === undefined) {
    key = [
      limits.maxFilterBytes,
      limits.maxTokens,
      limits.maxLiteralBytes,
      limits.maxInValues,
      limits.maxNodes,
      limits.maxExpressionDepth,
      limits.maxPathDepth,
      limits.maxQuantifierDepth,
    ].join(',');
    fingerprints.set(limits, key);
  }
  return key;
}
