import { resolveSortTerm } from '../bind/resolve.ts';
import type { BoundSchema, ResolvedSortTerm } from '../bind/types.ts';
import { invalidSchema, isListError } from '../errors.ts';
import type { Limits } from '../limits.ts';
import { parseSort, sortTermText } from '../syntax/sort.ts';

/** An engine's default sort: its canonical text (what describe() shows) and its keys, resolved once. */
export interface DefaultSort {
  readonly text: string;
  readonly terms: readonly ResolvedSortTerm[];
}

/**
 * Check the `defaultSort` setting as a request's `sort` would be checked (grammar, limits, sortable public names
 * through to-one relations) and resolve it once; throws `invalid_schema` naming the problem and its byte offset.
 *
 * @example resolveDefaultSort(bound, '-createdAt', limits) // { text: '-createdAt', terms: [createdAt desc] }
 */
export function resolveDefaultSort(bound: BoundSchema, text: string, limits: Limits): DefaultSort {
  try {
    const parsed = parseSort(text, limits);
    const terms = parsed.map((term) => resolveSortTerm(bound, term));
    const canonical = parsed.map(sortTermText).join(',');
    return Object.freeze({ text: canonical, terms: Object.freeze(terms) });
  } catch (error) {
    if (!isListError(error)) throw error;
    const at = error.position === undefined ? '' : ` at byte ${error.position.offset}`;
    throw invalidSchema(`engine config: defaultSort '${text}' is not a valid sort${at}: ${error.message}`, error);
  }
}
