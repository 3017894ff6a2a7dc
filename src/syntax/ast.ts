import type { Position } from '../errors.ts';

/**
 * Where a node stands in its parameter's decoded value. The start is a full Position (UTF-8 byte offset,
 * 1-based line and byte column), so later stages can raise located errors without the source text;
 * `end` is the exclusive UTF-8 byte offset of the node's last byte.
 */
export interface Span extends Position {
  readonly end: number;
}

/** A name as written: a field, relation or variable segment of a path. */
export interface Ident {
  readonly name: string;
  readonly span: Span;
}

/**
 * A `/`-separated path. Inside a quantifier the parser guarantees `segments[0]` is an active variable
 * (and that at least one segment follows it); outside any quantifier no segment is a variable.
 */
export interface Path {
  readonly segments: readonly Ident[];
  readonly span: Span;
}

/** A string literal; `value` has `''` already turned into `'`. */
export interface StringLiteral {
  readonly kind: 'string';
  readonly value: string;
  readonly span: Span;
}

/** A number literal, kept as its exact source text: the field's type decides what it means. */
export interface NumberLiteral {
  readonly kind: 'number';
  readonly text: string;
  readonly span: Span;
}

/** `true` or `false`. */
export interface BooleanLiteral {
  readonly kind: 'boolean';
  readonly value: boolean;
  readonly span: Span;
}

export type Literal = StringLiteral | NumberLiteral | BooleanLiteral;

/** Operators written `<path> <op> <literal>`; the `i` ones ignore ASCII case (docs/language.md). */
export type ValueOperator =
  | 'eq'
  | 'ne'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'contains'
  | 'startswith'
  | 'endswith'
  | CaseInsensitiveOperator;

/** The case-insensitive operators: opt-in per string field, matching with ASCII letters folded to lower case. */
export type CaseInsensitiveOperator = 'ieq' | 'ine' | 'icontains' | 'istartswith' | 'iendswith';

/** `<path> <op> <literal>`. */
export interface ComparisonNode {
  readonly kind: 'comparison';
  readonly path: Path;
  readonly operator: ValueOperator;
  readonly operatorSpan: Span;
  readonly value: Literal;
  readonly span: Span;
}

/** `<path> in (...)`, or `<path> not in (...)` when `negated`. */
export interface MembershipNode {
  readonly kind: 'membership';
  readonly path: Path;
  readonly negated: boolean;
  readonly operatorSpan: Span;
  readonly values: readonly Literal[];
  readonly span: Span;
}

/** `<path> is null`, or `<path> is not null` when `negated`. */
export interface NullCheckNode {
  readonly kind: 'nullCheck';
  readonly path: Path;
  readonly negated: boolean;
  readonly operatorSpan: Span;
  readonly span: Span;
}

/** `not <operand>`. */
export interface NotNode {
  readonly kind: 'not';
  readonly operand: FilterNode;
  readonly span: Span;
}

/** `<left> and <right>` (left-associative). */
export interface AndNode {
  readonly kind: 'and';
  readonly left: FilterNode;
  readonly right: FilterNode;
  readonly span: Span;
}

/** `<left> or <right>` (left-associative). */
export interface OrNode {
  readonly kind: 'or';
  readonly left: FilterNode;
  readonly right: FilterNode;
  readonly span: Span;
}

/** `<path>/any(<variable>: <predicate>)` or `<path>/all(...)`. `path` is the relation path, without `any`/`all`. */
export interface QuantifierNode {
  readonly kind: 'quantifier';
  readonly quantifier: 'any' | 'all';
  readonly path: Path;
  readonly variable: Ident;
  readonly predicate: FilterNode;
  readonly span: Span;
}

/** The aggregate functions over a to-many relation: `count()`, and `sum`, `avg`, `min`, `max` of a related field. */
export type AggregateFunction = 'count' | 'sum' | 'avg' | 'min' | 'max';

/**
 * `<path>/count()`, `<path>/avg(stars)`, `<path>/count(r: <predicate>)`: one value per row, computed over the related
 * rows of `path` (to-one hops, then one to-many relation). `field` names a field of the related policy (absent for
 * count); `variable` and `predicate` are the optional inner filter, in quantifier form, over the related rows.
 */
export interface AggregateCall {
  readonly function: AggregateFunction;
  readonly path: Path;
  readonly field?: Ident;
  readonly variable?: Ident;
  readonly predicate?: FilterNode;
  /** From the path's first byte to the closing parenthesis. */
  readonly span: Span;
}

/** What an aggregate is tested with: one operator and literal, an `in` list, or `is null` (each as in comparisons). */
export type AggregateTest =
  | { readonly kind: 'value'; readonly operator: ValueOperator; readonly value: Literal }
  | { readonly kind: 'membership'; readonly negated: boolean; readonly values: readonly Literal[] }
  | { readonly kind: 'nullCheck'; readonly negated: boolean };

/** `<aggregate> <op> <literal>`, `<aggregate> in (…)`, `<aggregate> is null` (docs/language.md, Aggregates). */
export interface AggregateNode {
  readonly kind: 'aggregate';
  readonly call: AggregateCall;
  readonly test: AggregateTest;
  readonly operatorSpan: Span;
  readonly span: Span;
}

export type FilterNode =
  | ComparisonNode
  | MembershipNode
  | NullCheckNode
  | NotNode
  | AndNode
  | OrNode
  | QuantifierNode
  | AggregateNode;

/**
 * One term of `sort`: a path and its direction (`-` prefix means descending), and its `:` modifiers: `:ci` (compare
 * case-insensitively) and `:nullsfirst` / `:nullslast` (where NULLs go; last when not said).
 */
export interface SortTerm {
  /** The field's path; for an aggregate term, the relation path of `aggregate` (the same object). */
  readonly path: Path;
  /** Set when the term sorts by an aggregate (`-reviews/count()`, `reviews/avg(stars)`). */
  readonly aggregate?: AggregateCall;
  readonly direction: 'asc' | 'desc';
  /** Where NULLs sort, when the term says (`:nullsfirst`, `:nullslast`). */
  readonly nulls?: 'first' | 'last';
  /** `:ci`: order by the value with its letters A–Z folded to lower case. */
  readonly caseInsensitive?: true;
  readonly span: Span;
}

/**
 * One name of `facets`: a field or relation whose values are to be counted, and, when written (`year:5`), how many
 * of its most frequent values to return.
 */
export interface FacetTerm {
  readonly name: Ident;
  /** `:N`: the top N values (at most maxFacetValues); absent: the default. */
  readonly limit?: number;
  readonly span: Span;
}

/** The result of parseHTTP: every known parameter, validated for syntax and limits, none yet bound to a schema. */
export interface ParsedQuery {
  readonly filter?: FilterNode;
  readonly sort?: readonly SortTerm[];
  readonly limit?: number;
  readonly offset?: number;
  readonly cursor?: string;
  /** `count=true` (exact), `count=false`, or `count=estimated` (the database planner's estimate). */
  readonly count?: boolean | 'estimated';
  readonly search?: string;
  /**
   * `fields`: root field names, in the order written, no output key twice; a name may carry a nested selection
   * (`author(name)`, `reviews(stars,body)`, `best:reviews(stars)`).
   */
  readonly fields?: readonly FieldSelection[];
  /**
   * The list parameters of nested to-many selections, by dotted output-key path (`reviews`, `reviews.comments`,
   * `best`): `reviews.filter=…&reviews.limit=3` gives `{ reviews: { filter, limit } }`. Which paths a request may
   * name is decided against its `fields` and the policy, when the request is bound.
   */
  readonly nested?: Readonly<Record<string, NestedParameters>>;
  /** `facets`: the facets to count beside the page, in the order written, each name once (docs/facets.md). */
  readonly facets?: readonly FacetTerm[];
}

/**
 * One entry of `fields`: a name (`span` covers it), optionally an alias written before it (`best:reviews(…)`), and,
 * when it names a relation with parentheses, the nested selection inside them.
 */
export interface FieldSelection extends Ident {
  /** `alias:` written before a nested selection: the item key the nested result appears under. */
  readonly alias?: Ident;
  /** The names inside `( … )`; absent when the name was written without parentheses. Never empty. */
  readonly children?: readonly FieldSelection[];
}

/** The list parameters a nested to-many selection takes, named `<path>.<parameter>` in a request. */
export interface NestedParameters {
  readonly filter?: FilterNode;
  readonly sort?: readonly SortTerm[];
  readonly limit?: number;
  readonly offset?: number;
  readonly cursor?: string;
  /** `count=true` only (exact, per parent); `estimated` is refused for nested lists. */
  readonly count?: boolean;
}
