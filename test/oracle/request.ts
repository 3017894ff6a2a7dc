/**
 * One generated request: filter, sort and page, printed as query values or as a raw query string, and what the
 * reference says it must return.
 */
import fc from 'fast-check';
import { withAggregateKeys } from './aggregate-sorts.ts';
import { filterArb, type ShapeOptions, sortArb, spacingArb } from './arbitraries.ts';
import { printable } from './budget.ts';
import { evaluate } from './evaluate.ts';
import { countNodes, type GenFilter, printFilter, type Spacing } from './filter.ts';
import { type EntitySpec, type Row, type Visibility, visible } from './model.ts';
import { type GenSortTerm, printSort, sortRows } from './sort.ts';

export interface GenRequest {
  readonly filter?: GenFilter;
  readonly sort: readonly GenSortTerm[];
  readonly limit: number;
  readonly offset: number;
  readonly spacing: Spacing;
  /** Send it as a percent-encoded query string through fromQueryString instead of as values. */
  readonly raw: boolean;
}

/** The request's parameters as decoded query values; `offset` and empty parts are left out. */
export function requestValues(r: GenRequest, parts: { offset?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = { limit: String(r.limit) };
  if (r.filter) out['filter'] = printFilter(r.filter, r.spacing);
  if (r.sort.length) out['sort'] = printSort(r.sort);
  if (parts.offset !== false && r.offset > 0) out['offset'] = String(r.offset);
  return out;
}

/** Percent-encode query values as a browser would (`+` for space). */
export function toQueryString(values: Record<string, string>): string {
  return new URLSearchParams(values).toString();
}

/** Random requests over a root entity; with `sorts.aggregates`, sorts may hold aggregate keys (root lists only). */
export function requestArb(
  root: EntitySpec,
  shape: ShapeOptions,
  maxOffset: number,
  sortHops = shape.hops,
  sorts: { readonly aggregates?: boolean } = {},
): fc.Arbitrary<GenRequest> {
  const fieldSorts = sortArb(root, sortHops);
  return fc
    .record({
      filter: fc.option(filterArb(root, shape), { freq: 6, nil: undefined }),
      sort: sorts.aggregates ? withAggregateKeys(fieldSorts, root, shape) : fieldSorts,
      limit: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 100 })),
      offset: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat(maxOffset) }),
      spacing: spacingArb,
      raw: fc.boolean(),
    })
    .filter((r) => r.filter === undefined || withinLimits(r.filter, r.spacing))
    .map((r) => {
      const { filter, ...rest } = r;
      const out: GenRequest = filter === undefined ? rest : { ...rest, filter };
      return printable(out, (x) => (x.raw ? '?' : '') + toQueryString(requestValues(x)));
    });
}

const TOKEN = /'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_]*|-?[0-9][0-9.eE+-]*|[(),:/]/g;

/** Keep generated filters inside the default limits (8 KiB, 512 tokens, 100 nodes): the policy's own bounds. */
export function withinLimits(filter: GenFilter, spacing: Spacing): boolean {
  const text = printFilter(filter, spacing);
  return Buffer.byteLength(text) <= 8000 && countNodes(filter) <= 100 && (text.match(TOKEN)?.length ?? 0) <= 500;
}

/** Every root row the reference says matches, in the reference order (no paging). */
export function expectedRows(root: EntitySpec, rows: readonly Row[], r: GenRequest, visibility: Visibility): Row[] {
  const ctx = { root, visibility, variables: new Map() };
  const matching = rows.filter(
    (row) => visible(root, row, visibility) && (!r.filter || evaluate(r.filter, row, ctx) === true),
  );
  return sortRows(root, matching, r.sort, visibility);
}
