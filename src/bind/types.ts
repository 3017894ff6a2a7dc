import type { EntityMetadata, EntityProperty, Platform } from '@mikro-orm/core';
import type { Span, ValueOperator } from '../syntax/ast.ts';

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
  /** Whether `fields=` may name it (true unless the policy says `selectable(false)`). */
  readonly selectable: boolean;
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
 * What the client wrote where a dialect rewrite changed a node (a decimal finer than its column's scale, see
 * decimal-scale.ts): one comparison or one `in` list on `target`. The cost budget counts this, not the rewrite.
 */
export interface WrittenLeaf {
  readonly target: FieldRef;
  /** Values of the written `in` / `not in` list; 0 for a comparison. */
  readonly values: number;
}

/** `=`, `<>`, `>`, `>=`, `<`, `<=` against a database value already converted through the property's type. */
export interface ResolvedCompare {
  readonly kind: 'compare';
  readonly target: FieldRef;
  readonly operator: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte';
  readonly value: unknown;
  readonly span: Span;
  /** Set when a dialect rewrite produced this node from what the client wrote. */
  readonly written?: WrittenLeaf;
}

/**
 * Substring test (`contains` …) or, for the `i` operators, a test ignoring ASCII case (`ieq`, `ine`, `icontains` …);
 * `value` is the unescaped string, already folded (A–Z to a–z) for the `i` operators.
 */
export interface ResolvedLike {
  readonly kind: 'like';
  readonly target: FieldRef;
  readonly operator: Extract<
    ValueOperator,
    'contains' | 'startswith' | 'endswith' | 'ieq' | 'ine' | 'icontains' | 'istartswith' | 'iendswith'
  >;
  readonly value: string;
  readonly span: Span;
}

/** `IN (...)`, or `NOT IN (...)` when negated; values already converted to database values. */
export interface ResolvedIn {
  readonly kind: 'in';
  readonly target: FieldRef;
  readonly negated: boolean;
  readonly values: readonly unknown[];
  readonly span: Span;
  /** Set when a dialect rewrite left values out of what the client wrote. */
  readonly written?: WrittenLeaf;
}

/** `IS NULL`, or `IS NOT NULL` when negated. */
export interface ResolvedNull {
  readonly kind: 'null';
  readonly target: FieldRef;
  readonly negated: boolean;
  readonly span: Span;
}

/**
 * `<to-one path> is null` (`negated`: `is not null`): whether the related row at the end of `relations` (to-one hops,
 * from `from`, a variable, or the root) is missing. A row hidden by a filter (soft delete, tenant) counts as missing.
 */
export interface ResolvedRelationNull {
  readonly kind: 'relationNull';
  readonly from?: string;
  readonly relations: readonly BoundRelation[];
  readonly negated: boolean;
  readonly span: Span;
}

export interface ResolvedNot {
  readonly kind: 'not';
  readonly operand: ResolvedFilter;
  readonly span: Span;
}

export interface ResolvedAnd {
  readonly kind: 'and';
  readonly left: ResolvedFilter;
  readonly right: ResolvedFilter;
  readonly span: Span;
  /** Set when a dialect rewrite split one written comparison or list in two. */
  readonly written?: WrittenLeaf;
}

export interface ResolvedOr {
  readonly kind: 'or';
  readonly left: ResolvedFilter;
  readonly right: ResolvedFilter;
  readonly span: Span;
  /** Set when a dialect rewrite split one written comparison or list in two. */
  readonly written?: WrittenLeaf;
}

/**
 * `any`/`all` over a to-many relation. `from` names the scope the relation path starts in (root when undefined);
 * `relations` are the hops (to-one hops, then exactly one to-many hop last). The predicate's refs use `variable`.
 */
export interface ResolvedQuantifier {
  readonly kind: 'quantifier';
  readonly quantifier: 'any' | 'all';
  readonly from?: string;
  readonly relations: readonly BoundRelation[];
  readonly variable: string;
  readonly predicate: ResolvedFilter;
  readonly span: Span;
}

export type ResolvedFilter =
  | ResolvedCompare
  | ResolvedLike
  | ResolvedIn
  | ResolvedNull
  | ResolvedRelationNull
  | ResolvedNot
  | ResolvedAnd
  | ResolvedOr
  | ResolvedQuantifier;

/** One requested sort key, resolved: always from the root, through to-one relations only. */
export interface ResolvedSortTerm {
  readonly target: FieldRef;
  readonly direction: 'asc' | 'desc';
}

/** A parsed query bound to a schema: typed, resolved, every value converted, ready to plan. */
export interface ResolvedQuery {
  readonly filter?: ResolvedFilter;
  readonly sort: readonly ResolvedSortTerm[];
  readonly limit?: number;
  readonly offset?: number;
  readonly cursor?: string;
  /** As requested: exact (`true`) or the planner's estimate (`'estimated'`). */
  readonly count?: boolean | 'estimated';
  readonly search?: string;
  /** `fields`: the root fields the items carry (the primary key always, besides), in the order requested. */
  readonly fields?: readonly SelectedField[];
}

/** A root property a request picked with `fields`: its item key and its MikroORM property name. */
export interface SelectedField {
  readonly publicName: string;
  readonly property: string;
}
