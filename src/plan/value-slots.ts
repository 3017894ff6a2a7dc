/**
 * Where a compiled filter's values went: the filter is compiled once with a marker in place of each value, then each
 * parameter of the result is read as a slot (a value, a LIKE/GLOB pattern around one, or a constant of the shape),
 * so later requests of the same shape only put their own values into the slots. Used by the filter cache (one mark)
 * and by the literal memo of remembered requests (another mark, so the two never read each other's markers).
 */
import type { ResolvedFilter } from '../bind/types.ts';
import type { Dialect } from '../dialect/index.ts';

/** Where a request's value goes: a parameter that is the literal, or a LIKE/GLOB pattern around it. */
export type Slot =
  | { readonly kind: 'const'; readonly value: unknown }
  | { readonly kind: 'value'; readonly index: number }
  | { readonly kind: 'pattern'; readonly index: number; readonly prefix: string; readonly suffix: string };

/**
 * The marker of value `index` under `mark`. Marks start with U+0000, which cannot appear in a literal (the grammar
 * refuses control characters), so a marker is never real data.
 */
export function markerOf(mark: string, index: number): string {
  return `${mark}${index}\u0000`;
}

/**
 * Read the parameters of a filter compiled with `count` markers of `mark` as slots; undefined when a parameter is
 * neither a marker nor a plain value, or when some marker landed nowhere (MySQL's startswith binds its pattern
 * twice, which is fine; a value dropped or folded into SQL text is not a shape these slots can serve).
 */
export function slotsOf(params: readonly unknown[], count: number, mark: string): Slot[] | undefined {
  const slots: Slot[] = [];
  const seen = new Set<number>();
  for (const param of params) {
    const slot = slotOf(param, count, mark);
    if (!slot) return undefined;
    if (slot.kind !== 'const') seen.add(slot.index);
    slots.push(slot);
  }
  return seen.size === count ? slots : undefined;
}

function slotOf(param: unknown, count: number, mark: string): Slot | undefined {
  if (typeof param === 'string' && param.includes(mark)) {
    const at = param.indexOf(mark);
    const end = param.indexOf('\u0000', at + mark.length);
    const index = Number(param.slice(at + mark.length, end));
    if (!(index >= 0 && index < count) || param.indexOf(mark, end) >= 0) return undefined;
    if (at === 0 && end === param.length - 1) return { kind: 'value', index };
    return { kind: 'pattern', index, prefix: param.slice(0, at), suffix: param.slice(end + 1) };
  }
  // Only plain values can be reused across requests; a raw fragment or any other object is compiled afresh.
  const plain =
    param === null || ['string', 'number', 'bigint', 'boolean'].includes(typeof param) || param instanceof Date;
  return plain ? { kind: 'const', value: param } : undefined;
}

/** The parameters of a request of the shape: its own values put into the slots. */
export function fillSlots(slots: readonly Slot[], values: readonly unknown[], dialect: Dialect): unknown[] {
  return slots.map((slot) => {
    switch (slot.kind) {
      case 'const':
        return slot.value;
      case 'value':
        return values[slot.index];
      case 'pattern':
        return slot.prefix + dialect.escapePattern(String(values[slot.index])) + slot.suffix;
      default: {
        const never: never = slot;
        return never;
      }
    }
  });
}

/**
 * The filter's values in the order written: each comparison's, each LIKE test's, each list's in turn. False when it
 * holds an aggregate test, whose values this does not place.
 */
export function valuesOf(filter: ResolvedFilter, out: unknown[]): boolean {
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

/**
 * A copy of the filter with each value replaced by the next of `next` (a marker), in the order valuesOf() collects
 * them (the order the filter cache's shape key collects them too).
 */
export function withValues(filter: ResolvedFilter, next: () => string): ResolvedFilter {
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
