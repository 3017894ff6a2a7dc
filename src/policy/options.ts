import type { Operator } from '../bind/types.ts';

/** Every operator a policy may declare, in a stable order. */
export const OPERATORS: readonly Operator[] = Object.freeze([
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'startswith',
  'endswith',
  'in',
  'nin',
  'null',
]);

/** `filterable(...)`: the operators listed, or the field type's defaults when `operators` is undefined. */
export interface FilterableOption {
  readonly kind: 'filterable';
  readonly operators?: readonly Operator[];
}

/** `sortable()`. */
export interface SortableOption {
  readonly kind: 'sortable';
}

/** A capability given to an exposed field. */
export type FieldOption = FilterableOption | SortableOption;

/**
 * Allow filtering on a field with the operators given, or with the type's sensible defaults when none are given
 * (see docs/policy.md). Operators are checked against the field's type at bind time.
 *
 * @example schema(Book).expose('title', filterable('eq', 'contains'))   // title eq 'x', title contains 'x'
 */
export function filterable(...operators: Operator[]): FieldOption {
  if (operators.length === 0) return Object.freeze({ kind: 'filterable' });
  return Object.freeze({ kind: 'filterable', operators: Object.freeze([...operators]) });
}

const SORTABLE: SortableOption = Object.freeze({ kind: 'sortable' });

/** Allow sorting by a field (`sort=name,-createdAt`). */
export function sortable(): FieldOption {
  return SORTABLE;
}
