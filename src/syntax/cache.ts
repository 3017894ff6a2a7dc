import { getRenewed, setNewest } from '../bounded-map.ts';
import type { Limits } from '../limits.ts';
import type { FilterNode } from './ast.ts';

/**
 * Accepted filters by limits and exact text, least recently used forgotten first. Parsed filters are immutable data,
 * so one AST can serve every request that sends the same filter text under the same limits; the bound keeps memory
 * flat whatever clients send.
 */
const MAX_PARSED = 512;
const parsed = new Map<string, FilterNode>();

/** The key of a filter text under these limits. */
export function filterKey(text: string, limits: Limits): string {
  return `${limitsKey(limits)}\u0000${text}`;
}

/** The AST remembered under a filterKey(), if any; it becomes the most recently used. */
export function cachedFilter(key: string): FilterNode | undefined {
  return getRenewed(parsed, key);
}

/** Remember an accepted filter's AST under its filterKey(). */
export function cacheFilter(key: string, node: FilterNode): void {
  setNewest(parsed, key, node, MAX_PARSED);
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
