import { VALUE_OPERATORS } from '../syntax/keywords.ts';

/** Operators a policy can declare for a field; `nin` is written `not in`, `null` enables `is null`/`is not null`. */
export type Operator =
  | 'eq'
  | 'ne'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'contains'
  | 'startswith'
  | 'endswith'
  | 'ieq'
  | 'ine'
  | 'icontains'
  | 'istartswith'
  | 'iendswith'
  | 'in'
  | 'nin'
  | 'null';

/** Every operator a policy may declare, in a stable order. */
export const OPERATORS: readonly Operator[] = Object.freeze([...VALUE_OPERATORS, 'in', 'nin', 'null']);

/** `filterable(...)`: the operators listed, or the field type's defaults when `operators` is undefined. */
export interface FilterableOption<O extends Operator = Operator> {
  readonly kind: 'filterable';
  readonly operators?: readonly O[];
}

/** `sortable()`. */
export interface SortableOption {
  readonly kind: 'sortable';
}

/** `selectable()` or `selectable(false)`: whether `fields=` may name the field (every exposed field may by default). */
export interface SelectableOption {
  readonly kind: 'selectable';
  readonly enabled: boolean;
}

/** A capability given to an exposed field. */
export type FieldOption = FilterableOption | SortableOption | SelectableOption;

/**
 * Allow filtering on a field with the operators given, or with the type's sensible defaults when none are given
 * (see docs/policy.md). Operators are checked against the field's type at bind time. The case-insensitive ones
 * (`ieq`, `ine`, `icontains`, `istartswith`, `iendswith`) are never defaults: list them to enable them.
 *
 * @example schema(Book).expose('title', filterable('eq', 'contains'))   // title eq 'x', title contains 'x'
 */
export function filterable<const O extends Operator[]>(...operators: O): FilterableOption<O[number]> {
  if (operators.length === 0) return Object.freeze({ kind: 'filterable' });
  return Object.freeze({ kind: 'filterable', operators: Object.freeze([...operators]) });
}

const SORTABLE: SortableOption = Object.freeze({ kind: 'sortable' });

/** Allow sorting by a field (`sort=name,-createdAt`). */
export function sortable(): SortableOption {
  return SORTABLE;
}

const SELECTABLE: SelectableOption = Object.freeze({ kind: 'selectable', enabled: true });
const NOT_SELECTABLE: SelectableOption = Object.freeze({ kind: 'selectable', enabled: false });

/**
 * Let clients pick a field with `fields=` (the default for every exposed field), or, with `false`, keep it out of
 * `fields` (it stays in full items, and filterable or sortable as declared); see docs/language.md, Fields.
 *
 * @example schema(Book).expose('title', sortable(), selectable()).expose('body', selectable(false))
 */
export function selectable(enabled = true): SelectableOption {
  return enabled ? SELECTABLE : NOT_SELECTABLE;
}
