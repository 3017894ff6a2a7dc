import type {
  BoundFacet,
  BoundField,
  BoundRelation,
  FieldRef,
  ResolvedAggregate,
  ResolvedSortTerm,
} from '../policy/bound-schema.ts';
import type { Span, ValueOperator } from '../syntax/ast.ts';

// The bound schema is what a policy becomes against one ORM's metadata (src/policy/); the resolved tree refers to it.
// A field reference and a sort key are declared there too, as a selectable relation's default sort is resolved at bind.
export type {
  AggregateSortTerm,
  BoundFacet,
  BoundField,
  BoundKeyColumn,
  BoundRelation,
  BoundSchema,
  BoundSelection,
  FieldKind,
  FieldRef,
  ResolvedAggregate,
  ResolvedSortTerm,
} from '../policy/bound-schema.ts';
export type { Operator } from '../policy/options.ts';

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

/**
 * An aggregate tested in a filter (`reviews/count() gt 5`, `reviews/max(stars) is null`). A number compared with
 * count, sum or avg is a decimal string bound through the dialect's cast to `numberKind`; a value compared with min or
 * max is converted through the field's type, as in a comparison.
 */
export interface ResolvedAggregateTest {
  readonly kind: 'aggregate';
  readonly aggregate: ResolvedAggregate;
  readonly test:
    | { readonly kind: 'compare'; readonly operator: ResolvedCompare['operator']; readonly value: unknown }
    | { readonly kind: 'in'; readonly negated: boolean; readonly values: readonly unknown[] }
    | { readonly kind: 'null'; readonly negated: boolean };
  /** Set for count, sum and avg: how each value is cast (see Dialect.numberParameter). */
  readonly numberKind?: 'integer' | 'decimal' | 'float';
  readonly span: Span;
}

export type ResolvedFilter =
  | ResolvedAggregateTest
  | ResolvedCompare
  | ResolvedLike
  | ResolvedIn
  | ResolvedNull
  | ResolvedRelationNull
  | ResolvedNot
  | ResolvedAnd
  | ResolvedOr
  | ResolvedQuantifier;

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
  /** Nested selections of related objects (`author(name)`, `reviews(stars)`), in the order requested. */
  readonly selections?: readonly ResolvedSelection[];
  /** `facets`: the values to count beside the page, in the order requested (docs/facets.md). */
  readonly facets?: readonly ResolvedFacet[];
}

/** What a facet counts: a root field's values, or a relation's related keys (with a label field of the target). */
export type FacetTarget =
  | { readonly kind: 'field'; readonly field: BoundField }
  | { readonly kind: 'relation'; readonly relation: BoundRelation; readonly facet: BoundFacet };

/** One facet of a request: its public name, how many values to return, and what it counts. */
export interface ResolvedFacet {
  readonly name: string;
  /** The top N values to return. */
  readonly limit: number;
  readonly target: FacetTarget;
  /** Where its name stands in `facets` (cost errors point there). */
  readonly span: Span;
}

/**
 * One nested selection, resolved against the policy: which relation, under which item key, what its items carry,
 * and (to-many) the list parameters of each parent's page. A level runs one statement for all its parents.
 */
export interface ResolvedSelection {
  /** The item key the nested result appears under (the alias, else the relation's public name). */
  readonly key: string;
  /** Dotted path of output keys from the root (`reviews`, `reviews.author`): how its parameters are named. */
  readonly path: string;
  readonly relation: BoundRelation;
  /** The target's fields the nested items carry (the target's primary key always, besides), in order requested. */
  readonly fields: readonly SelectedField[];
  /** Selections nested inside this one. */
  readonly children: readonly ResolvedSelection[];
  /** Where the relation's name stands in `fields` (cost errors point there); absent for a selection built in code. */
  readonly span?: Span;
  /**
   * To-many only: each parent's page (filter and sort resolved against the target policy, the relation's
   * defaultSort when no sort was given, paging within the relation's own defaultLimit/maxLimit). Absent for to-one.
   */
  readonly list?: ResolvedNestedList;
}

/** The list parameters of a nested to-many selection, resolved and checked (limit ≤ the relation's maxLimit). */
export interface ResolvedNestedList {
  readonly filter?: ResolvedFilter;
  readonly sort: readonly ResolvedSortTerm[];
  /** Rows per parent (the relation's defaultLimit when none was given). */
  readonly limit: number;
  readonly offset: number;
  /** A nested cursor: it names the parent whose list it continues (other parents' lists start at the beginning). */
  readonly cursor?: string;
  readonly count: boolean;
}

/** A property a request picked with `fields` (at the root or in a selection): its item key and its property name. */
export interface SelectedField {
  readonly publicName: string;
  readonly property: string;
  /**
   * Set on the key of a to-one relation the row holds (m:1, owning 1:1) when only a nested selection of that relation
   * (`author(name)`) needs it: select its columns to find the related rows, but do not write it into the item, whose
   * key for the relation is the selection's (alias or relation name), carrying the object or null. When the same
   * property is also picked by name (`author`, or `writer` under another key) it appears once, without this flag.
   */
  readonly implied?: true;
}
