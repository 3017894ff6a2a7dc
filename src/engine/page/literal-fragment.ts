/**
 * The filter fragment of a request served by its template's memo (request-mask.ts): the template's fragment on a
 * scope, with this request's values where the template's values went. Where each went is learned once per remembered
 * shape, by computing the fragment (filterFragment, as every request does) of the template's resolved filter with a
 * marker in place of each value; a fragment whose values do not all land as whole parameters or inside one pattern
 * is computed afresh on every request, as before.
 */
import type { ResolvedFilter } from '../../bind/types.ts';
import type { Dialect } from '../../dialect/index.ts';
import type { SqlFragment } from '../../plan/fragment.ts';
import { type ApplyOptions, filterFragment } from '../../plan/plan-query.ts';
import type { ListContext } from '../config.ts';
import type { Scope } from '../scope.ts';
import type { ShapeMemo } from './listing-memo.ts';

/** U+0000 never appears in a literal (the grammar refuses control characters). */
const MARK = '\u0000lqr';

type Slot =
  | { readonly kind: 'const'; readonly value: unknown }
  | { readonly kind: 'value'; readonly index: number }
  | { readonly kind: 'pattern'; readonly index: number; readonly prefix: string; readonly suffix: string };

interface Slots {
  readonly sql: string;
  readonly slots: readonly Slot[];
}

/** Per remembered shape: where its filter's values go, or null when they cannot be placed (computed afresh). */
const placed = new WeakMap<ShapeMemo, Slots | null>();

/**
 * The fragment of `filter` (a request's resolved filter, of the same structure as the template's) on a scope whose
 * shape `known` remembers; `options` holds the filter conditions rememberedShape() has just read and compared.
 */
export function literalFragment<C extends ListContext>(
  scope: Scope<C>,
  known: ShapeMemo,
  filter: ResolvedFilter,
  options: ApplyOptions,
): SqlFragment {
  let slots = placed.get(known);
  if (slots === undefined) {
    slots = placeValues(scope, filter, options) ?? null;
    placed.set(known, slots);
  }
  if (slots === null || slots.sql !== known.filter?.sql)
    return filterFragment(scope.base, scope.bound, filter, options);
  const values: unknown[] = [];
  if (!valuesOf(filter, values)) return filterFragment(scope.base, scope.bound, filter, options);
  return { sql: slots.sql, params: fill(slots.slots, values, scope.keys.dialect) };
}

/** Compute the fragment of the filter with markers for its values, and note where each marker landed. */
function placeValues<C extends ListContext>(
  scope: Scope<C>,
  filter: ResolvedFilter,
  options: ApplyOptions,
): Slots | undefined {
  const values: unknown[] = [];
  if (!valuesOf(filter, values)) return undefined;
  let next = 0;
  const marked = withValues(filter, () => `${MARK}${next++}\u0000`);
  const fragment = filterFragment(scope.base, scope.bound, marked, options);
  if (fragment.sql.includes(MARK)) return undefined;
  const slots: Slot[] = [];
  const seen = new Set<number>();
  for (const param of fragment.params) {
    const slot = slotOf(param, values.length);
    if (!slot) return undefined;
    if (slot.kind !== 'const') seen.add(slot.index);
    slots.push(slot);
  }
  return seen.size === values.length ? { sql: fragment.sql, slots } : undefined;
}

function slotOf(param: unknown, count: number): Slot | undefined {
  if (typeof param === 'string' && param.includes(MARK)) {
    const at = param.indexOf(MARK);
    const end = param.indexOf('\u0000', at + MARK.length);
    const index = Number(param.slice(at + MARK.length, end));
    if (!(index >= 0 && index < count) || param.indexOf(MARK, end) >= 0) return undefined;
    if (at === 0 && end === param.length - 1) return { kind: 'value', index };
    return { kind: 'pattern', index, prefix: param.slice(0, at), suffix: param.slice(end + 1) };
  }
  const plain =
    param === null || ['string', 'number', 'bigint', 'boolean'].includes(typeof param) || param instanceof Date;
  return plain ? { kind: 'const', value: param } : undefined;
}

function fill(slots: readonly Slot[], values: readonly unknown[], dialect: Dialect): unknown[] {
  return slots.map((slot) =>
    slot.kind === 'const'
      ? slot.value
      : slot.kind === 'value'
        ? values[slot.index]
        : slot.prefix + dialect.escapePattern(String(values[slot.index])) + slot.suffix,
  );
}

/**
 * The filter's values in the order written: each comparison's, each LIKE test's, each list's in turn. False when it
 * holds an aggregate test, whose values this does not place.
 */
function valuesOf(filter: ResolvedFilter, out: unknown[]): boolean {
  switch (filter.kind) {
    case 'compare':
    case 'like':
      out.push(filter.value);
      return true;
    case 'in':
      out.push(...filter.values);
      return true;
    case 'not':
      return valuesOf(filter.operand, out);
    case 'and':
    case 'or':
      return valuesOf(filter.left, out) && valuesOf(filter.right, out);
    case 'quantifier':
      return valuesOf(filter.predicate, out);
    case 'aggregate':
      return false;
    default:
      return true;
  }
}

/** A copy of the filter with each value replaced by the next of `next`, in the order valuesOf() collects them. */
function withValues(filter: ResolvedFilter, next: () => string): ResolvedFilter {
  switch (filter.kind) {
    case 'compare':
    case 'like':
      return { ...filter, value: next() };
    case 'in':
      return { ...filter, values: filter.values.map(() => next()) };
    case 'not':
      return { ...filter, operand: withValues(filter.operand, next) };
    case 'and':
    case 'or': {
      const left = withValues(filter.left, next);
      return { ...filter, left, right: withValues(filter.right, next) };
    }
    case 'quantifier':
      return { ...filter, predicate: withValues(filter.predicate, next) };
    default:
      return filter;
  }
}
