/**
 * The filter fragment of a request served by its template's memo (request-mask.ts): the template's fragment on a
 * scope, with this request's values where the template's values went. Where each went is learned once per remembered
 * shape, by computing the fragment (filterFragment, as every request does) of the template's resolved filter with a
 * marker in place of each value; a fragment whose values do not all land as whole parameters or inside one pattern
 * is computed afresh on every request, as before.
 */
import type { ResolvedFilter } from '../../bind/types.ts';
import type { SqlFragment } from '../../plan/fragment.ts';
import { type ApplyOptions, filterFragment } from '../../plan/plan-query.ts';
import { fillSlots, markerOf, type Slot, slotsOf, valuesOf, withValues } from '../../plan/value-slots.ts';
import type { ListContext } from '../config.ts';
import type { Scope } from '../scope.ts';
import type { ShapeMemo } from './listing-memo.ts';

/** The literal memo's marks (value-slots.ts): not the filter cache's, which compiles the marked filter in turn. */
const MARK = '\u0000lqr';

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
  return { sql: slots.sql, params: fillSlots(slots.slots, values, scope.keys.dialect) };
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
  const marked = withValues(filter, () => markerOf(MARK, next++));
  const fragment = filterFragment(scope.base, scope.bound, marked, options);
  if (fragment.sql.includes(MARK)) return undefined;
  const slots = slotsOf(fragment.params, values.length, MARK);
  return slots ? { sql: fragment.sql, slots } : undefined;
}
