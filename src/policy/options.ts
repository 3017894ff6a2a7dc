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

/** `sortable()`, or `sortable({ caseInsensitive: true })`. */
export interface SortableOption {
  readonly kind: 'sortable';
  /** Clients may also sort the field case-insensitively (`sort=title:ci`); string fields only. */
  readonly caseInsensitive?: boolean;
}

/** The options of `sortable(...)`. */
export interface SortableOptions {
  /** Allow `:ci`, a case-insensitive order (letters A–Z folded to lower case); string fields only. */
  readonly caseInsensitive?: boolean;
}

/** `selectable()` or `selectable(false)`: whether `fields=` may name the field (every exposed field may by default). */
export interface SelectableOption {
  readonly kind: 'selectable';
  readonly enabled: boolean;
}

/** `facetable()`: clients may count the field's values beside a page (`facets=year`, docs/facets.md). */
export interface FacetableOption {
  readonly kind: 'facetable';
}

/** A capability given to an exposed field. */
export type FieldOption = FilterableOption | SortableOption | SelectableOption | FacetableOption;

const FACETABLE: FacetableOption = Object.freeze({ kind: 'facetable' });

/**
 * Let clients ask for the field's most frequent values and their counts beside a page (`facets=year`), counted under
 * the request's filter without its own clauses on this field (docs/facets.md).
 *
 * @example schema(Book).expose('year', filterable(), facetable()) // facets=year, facets=year:5
 */
export function facetable(): FacetableOption {
  return FACETABLE;
}

/**
 * A relation's facet (`relation('author', authorPolicy, { facet: { label: 'name' } })`): its values are the related
 * rows' primary keys; `label` names a field of the nested policy returned beside each key.
 */
export interface RelationFacetOptions {
  /** A field the nested policy exposes, returned beside each key (`{ value: 3, label: 'Ann', count: 5 }`). */
  readonly label?: string;
}

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

/**
 * Allow sorting by a field (`sort=name,-createdAt`), in either NULL placement (`:nullsfirst`, `:nullslast`), and
 * with `caseInsensitive: true` case-insensitively too (`sort=title:ci`, string fields only).
 *
 * @example schema(Book).expose('title', sortable({ caseInsensitive: true })) // sort=title, sort=title:ci
 */
export function sortable(options: SortableOptions = {}): SortableOption {
  return options.caseInsensitive ? Object.freeze({ kind: 'sortable', caseInsensitive: true }) : SORTABLE;
}

/**
 * The list options of a selectable to-many relation (`selectable({ maxLimit: 20, defaultSort: '-stars' })`): each
 * parent's page of related items takes `<path>.limit`, `.offset`, `.sort`, `.filter`, `.cursor` and, when allowed,
 * `.count`. A to-one relation gives one object per parent and takes none of them (bind refuses them there).
 */
export interface RelationSelectOptions {
  /** Most items `<path>.limit` may ask for per parent (default 50). */
  readonly maxLimit?: number;
  /** Items per parent when the request gives no `<path>.limit` (default 10, or maxLimit when smaller). */
  readonly defaultLimit?: number;
  /** The order when the request gives no `<path>.sort`: a `sort` value of the nested policy (checked at bind). */
  readonly defaultSort?: string;
  /** Whether `<path>.count=true` may ask for each parent's total (default false). */
  readonly allowCount?: boolean;
}

/**
 * The aggregates clients may compute over a to-many relation, in `filter` and `sort` (`reviews/count() gt 5`,
 * `sort=-reviews/avg(stars)`): `count` of the related rows, and `sum`, `avg`, `min`, `max` of the listed fields of
 * the nested policy (public names; numeric fields for sum and avg, any sortable kind but boolean for min and max).
 */
export interface RelationAggregates<F extends string = string> {
  readonly count?: boolean;
  readonly sum?: readonly F[];
  readonly avg?: readonly F[];
  readonly min?: readonly F[];
  readonly max?: readonly F[];
}

/**
 * `selectable({ … })` on a relation: the related objects may be selected (`fields=reviews(stars)`), with these list
 * options. A distinct kind from the field option, so `expose()` does not take it.
 */
export interface RelationSelectableOption {
  readonly kind: 'selectableRelation';
  readonly select: RelationSelectOptions;
}

const SELECTABLE: SelectableOption = Object.freeze({ kind: 'selectable', enabled: true });
const NOT_SELECTABLE: SelectableOption = Object.freeze({ kind: 'selectable', enabled: false });

/**
 * Let clients pick a field with `fields=` (the default for every exposed field), or, with `false`, keep it out of
 * `fields` (it stays in full items, and filterable or sortable as declared); see docs/language.md, Fields.
 * As the third argument of `relation()`, `selectable()` lets clients select the related objects themselves
 * (`fields=author(name)`), and `selectable({ maxLimit, defaultLimit, defaultSort, allowCount })` does so for a
 * to-many relation with the list options of each parent's page (docs/policy.md, Selecting related objects).
 *
 * @example schema(Book).expose('title', sortable(), selectable()).expose('body', selectable(false))
 * @example schema(Book).relation('reviews', reviewPolicy, selectable({ maxLimit: 20, defaultSort: '-stars' }))
 */
export function selectable(enabled?: boolean): SelectableOption;
export function selectable(options: RelationSelectOptions): RelationSelectableOption;
export function selectable(
  options: boolean | RelationSelectOptions = true,
): SelectableOption | RelationSelectableOption {
  if (typeof options === 'object' && options !== null)
    return Object.freeze({ kind: 'selectableRelation', select: Object.freeze({ ...options }) });
  return options ? SELECTABLE : NOT_SELECTABLE;
}
