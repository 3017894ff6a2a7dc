import { SecondSendingMemo } from '../bounded-map.ts';
import type { Limits } from '../limits.ts';
import type { FilterNode } from './ast.ts';

/**
 * Accepted filters by limits and exact text. Parsed filters are immutable data, so one AST can serve every request
 * that sends the same filter text under the same limits; the bound keeps memory flat whatever clients send.
 *
 * A filter is kept from the second time it is parsed, not the first (SecondSendingMemo: a text parsed once is noted
 * as a hash). Keeping every AST made nearly every parse outlive the young generation: V8 then allocates the parser's
 * nodes straight in the old generation (allocation-site pretenuring), where the ASTs of filters sent once (a new
 * literal in each request) pile up until a full collection. Measured on the 2-core bench machine, per parse of a
 * filter never seen before: the typical filter 18 to 50 us before, 4 to 8 us after; a 100-node filter 31 to 233 us
 * before (depending on what V8 decided in that process), 25 to 46 us after.
 */
const MAX_PARSED = 512;

/** Filter keys parsed once, noted as hashes until this many have gathered. */
const MAX_SEEN = 4096;

const parsed = new SecondSendingMemo<FilterNode>(MAX_PARSED, MAX_SEEN);

/** The key of a filter text under these limits. */
export function filterKey(text: string, limits: Limits): string {
  return `${limitsKey(limits)}\u0000${text}`;
}

/** The AST remembered under a filterKey(), if any. */
export function cachedFilter(key: string): FilterNode | undefined {
  return parsed.get(key);
}

/** Remember an accepted filter's AST under its filterKey(), from the second time that key is parsed. */
export function cacheFilter(key: string, node: FilterNode): void {
  parsed.note(key, node);
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
