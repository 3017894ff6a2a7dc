import type { EntityMetadata, EntityProperty, Platform } from '@mikro-orm/core';
import type { Span } from '../syntax/ast.ts';
import type { Operator } from './options.ts';

/** Field kinds listql can filter and sort (docs/policy.md); every other MikroORM type is refused at bind. */
export type FieldKind =
  | 'string'
  | 'enum'
  | 'uuid'
  | 'integer'
  | 'bigint'
  | 'decimal'
  | 'float'
  | 'boolean'
  | 'datetime'
  | 'date';

/** A scalar property, resolved against metadata once at bind time. */
export interface BoundField {
  readonly publicName: string;
  /** MikroORM property name. */
  readonly property: string;
  /** Database column (one column per scalar). */
  readonly column: string;
  readonly kind: FieldKind;
  readonly nullable: boolean;
  /** Operators the policy allows; empty when the field is not filterable. */
  readonly operators: ReadonlySet<Operator>;
  readonly filterable: boolean;
  readonly sortable: boolean;
  /** Whether clients may sort it case-insensitively (`sort=title:ci`; `sortable({ caseInsensitive: true })`). */
  readonly sortCaseInsensitive?: boolean;
  /** Whether `fields=` may name it (true unless the policy says `selectable(false)`). */
  readonly selectable: boolean;
  /** Whether `facets=` may name it (`facetable()`). */
  readonly facetable?: boolean;
  /** Allowed values of an enum field. */
  readonly enumItems?: readonly (string | number)[];
  /** For integer and bigint fields: the values the MikroORM type allows (integer 32-bit, smallint 16 …). */
  readonly range?: { readonly min: bigint; readonly max: bigint };
  /** For datetime fields: whether the column keeps a time zone (literals must then carry an offset). */
  readonly timezone?: boolean;
  /** The MikroORM property, for type conversion through `customType`. */
  readonly prop: EntityProperty;
}

/** A relation the policy exposes, resolved against metadata once at bind time. */
export interface BoundRelation {
  readonly publicName: string;
  /** MikroORM property name on the owning entity. */
  readonly property: string;
  /** `one` for m:1 and 1:1 (either side), `many` for 1:m and m:n (either side). */
  readonly cardinality: 'one' | 'many';
  /** The MikroORM property (kind, owner, joinColumns, pivotTable …). */
  readonly prop: EntityProperty;
  /** The nested bound schema of the target. */
  readonly target: BoundSchema;
  /** To-one only: `relation(…, { nullCheck: true })` lets clients write `<relation> is null` / `is not null`. */
  readonly nullCheck?: boolean;
  /** How clients may select the related objects (`fields=author(name)`); undefined when they may not. */
  readonly selection?: BoundSelection;
  /** How clients may count the related rows by key (`facets=author`); undefined when they may not. */
  readonly facet?: BoundFacet;
  /** To-many only: the aggregates clients may compute over it; undefined when the policy opts into none. */
  readonly aggregates?: BoundAggregates;
}

/** A relation's facet, checked at bind: the target's key column, and the nested field returned beside each key. */
export interface BoundFacet {
  /** The target's one primary-key column: a facet value is the related row's key. */
  readonly keyColumn: string;
  /** The MikroORM key property, whose type converts the value for the answer. */
  readonly keyProperty: string;
  /** `{ label: 'name' }`: a field of the nested policy returned beside each key. */
  readonly label?: BoundField;
}

/** A to-many relation's aggregates, checked at bind: whether `count()` is allowed, and the fields of each measure. */
export interface BoundAggregates {
  readonly count: boolean;
  /** Public field names of the target, per function (`sum`, `avg`: numeric; `min`, `max`: not boolean). */
  readonly fields: Readonly<Record<'sum' | 'avg' | 'min' | 'max', ReadonlySet<string>>>;
}

/**
 * A selectable relation's settings, checked at bind (`relation(…, selectable({ … }))`). A to-many relation gives each
 * parent a page within these bounds; a to-one relation gives one object per parent (limits 1, no count, no sort).
 */
export interface BoundSelection {
  /** Most items per parent a request may ask for (`<path>.limit`); 1 for a to-one relation. */
  readonly maxLimit: number;
  /** Items per parent when the request gives no `<path>.limit`; 1 for a to-one relation. */
  readonly defaultLimit: number;
  /** The policy's `defaultSort`, resolved against the nested policy: each parent's order without `<path>.sort`. */
  readonly defaultSort?: readonly ResolvedSortTerm[];
  /** The same default order as a canonical `sort` value (`-stars,reviewer`), as describe() shows it. */
  readonly defaultSortText?: string;
  /** Whether `<path>.count=true` may ask for each parent's total. */
  readonly allowCount: boolean;
}

/**
 * A reference to a field, from a scope: the root (`variable` undefined) or a quantifier variable.
 * `relations` are the to-one hops taken from the scope's entity before reaching `field`.
 */
export interface FieldRef {
  readonly variable?: string;
  readonly relations: readonly BoundRelation[];
  readonly field: BoundField;
  readonly span: Span;
}

/**
 * An aggregate over a to-many relation, resolved: from the root or a quantifier variable (`from`), through to-one
 * hops to the to-many relation last in `relations`, of `field` of its target (absent for count), over the related
 * rows the inner `predicate` (its refs use `variable`) keeps. `valueKind` and `nullable` describe its value: count is
 * a never-NULL bigint; sum and avg of no rows are NULL.
 */
export interface ResolvedAggregate {
  readonly function: 'count' | 'sum' | 'avg' | 'min' | 'max';
  readonly from?: string;
  readonly relations: readonly BoundRelation[];
  readonly field?: BoundField;
  readonly variable?: string;
  /** The inner filter (the bind layer's ResolvedFilter; typed loosely here, where the filter tree is not declared). */
  readonly predicate?: unknown;
  readonly valueKind: FieldKind;
  readonly nullable: boolean;
  /** The call as written canonically (`reviews/avg(stars, r: r/stars gte 4)`): signed in cursors, keyed in caches. */
  readonly text: string;
  readonly span: Span;
}

/** One sort key, resolved: a field from the root through to-one relations only, or an aggregate (`aggregate`). */
export type ResolvedSortTerm = FieldSortTerm | AggregateSortTerm;

/** A sort key by a field. */
export interface FieldSortTerm extends SortTermOrder {
  readonly target: FieldRef;
  readonly aggregate?: undefined;
}

/** A sort key by an aggregate (`sort=-reviews/count()`). */
export interface AggregateSortTerm extends SortTermOrder {
  readonly target?: undefined;
  readonly aggregate: ResolvedAggregate;
}

/** The order of one sort key. */
export interface SortTermOrder {
  readonly direction: 'asc' | 'desc';
  /** NULLs first (`:nullsfirst`); absent: last, the default. */
  readonly nullsFirst?: true;
  /** Case-insensitive (`:ci`): the field allows it. */
  readonly caseInsensitive?: true;
}

/** One column of the root primary key, used for tie-breakers and cursors. */
export interface BoundKeyColumn {
  /** Property name of the key (an m:1 key property may span several columns). */
  readonly property: string;
  readonly column: string;
}

/** A policy resolved against one ORM's metadata: what clients may reach, and how it maps to SQL. */
export interface BoundSchema {
  /** Entity class name. */
  readonly entityName: string;
  readonly meta: EntityMetadata;
  readonly platform: Platform;
  /** Exposed scalar fields by public name. */
  readonly fields: ReadonlyMap<string, BoundField>;
  /** Exposed relations by public name. */
  readonly relations: ReadonlyMap<string, BoundRelation>;
  /** Every primary-key column, in metadata order. */
  readonly primaryKey: readonly BoundKeyColumn[];
}
