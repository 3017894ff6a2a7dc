/** Bounds on request size and shape (see docs/language.md, Limits). Every bound is a positive integer. */
export interface Limits {
  /** All parameter names and values together, in UTF-8 bytes. */
  readonly maxQueryBytes: number;
  /** The `filter` value, in UTF-8 bytes. */
  readonly maxFilterBytes: number;
  /** Tokens in `filter` (identifiers, keywords, literals, punctuation). */
  readonly maxTokens: number;
  /** One string literal's decoded value, in UTF-8 bytes. */
  readonly maxLiteralBytes: number;
  /** Literals in one `in` / `not in` list. */
  readonly maxInValues: number;
  /** Terms in `sort`. */
  readonly maxSortTerms: number;
  /** The `search` value, in UTF-8 bytes. */
  readonly maxSearchBytes: number;
  /** AST nodes in `filter`. */
  readonly maxNodes: number;
  /** Nesting of AST nodes in `filter`; a chain of one logical operator counts once. */
  readonly maxExpressionDepth: number;
  /** Segments in one path, variable included. */
  readonly maxPathDepth: number;
  /** Nesting of `any`/`all`. */
  readonly maxQuantifierDepth: number;
  /** The encoded cursor, in bytes. */
  readonly maxCursorBytes: number;
  /**
   * Cost budget, in correlated sub-queries over the scope: each to-one hop of a filter path is one, each any/all 1.5,
   * comparisons fractions of one, the filter once per run (the page, each UNION ALL branch, `count=true`), a sort
   * through relations and an offset besides. See docs/security.md, Cost budget.
   */
  readonly maxSubqueries: number;
  /** Cost budget: nesting of any/all (to-many sub-queries) in `filter`; to-one hops do not nest deeper. */
  readonly maxSubqueryDepth: number;
  /** Cost budget: distinct to-one relations `sort` joins. */
  readonly maxSortJoins: number;
  /** Cost budget: values in all `in` / `not in` lists of `filter` together. */
  readonly maxInValuesTotal: number;
  /**
   * Nesting of related-object selections in `fields`: `reviews(author(books(title)))` is 3. A policy whose selectable
   * relations nest deeper is refused at createEngine; a deeper request is `limit_exceeded` at the name that crosses.
   */
  readonly maxSelectionDepth: number;
  /**
   * Cost budget of a request that selects related objects: the rows it may answer at every level together, the top
   * page plus, per nested level, its parents × (offset + limit) for a list and its parents × 1 for a to-one object.
   * Checked before any statement; a request without nested selections is bounded by `maxLimit` alone.
   */
  readonly maxTreeRows: number;
  /** Names in `facets` (docs/facets.md): each runs one grouped statement over the scope. */
  readonly maxFacets: number;
  /** Values one facet may return (`facets=year:N`); a facet without `:N` returns DEFAULT_FACET_VALUES, at most this. */
  readonly maxFacetValues: number;
}

/** Open parentheses nested at once in `filter`; fixed, not configurable. */
export const MAX_OPEN_PARENTHESES = 128;

/** The default request bounds (listed in docs/language.md, Limits). */
export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxQueryBytes: 16 * 1024,
  maxFilterBytes: 8 * 1024,
  maxTokens: 512,
  maxLiteralBytes: 4 * 1024,
  maxInValues: 100,
  maxSortTerms: 5,
  maxSearchBytes: 256,
  maxNodes: 100,
  maxExpressionDepth: 16,
  maxPathDepth: 8,
  maxQuantifierDepth: 4,
  maxCursorBytes: 4096,
  maxSubqueries: 8,
  maxSubqueryDepth: 2,
  maxSortJoins: 2,
  maxInValuesTotal: 200,
  maxSelectionDepth: 3,
  maxTreeRows: 2000,
  maxFacets: 5,
  maxFacetValues: 50,
});

/** Values a facet returns when `facets` gives it no `:N` (or maxFacetValues, when that is smaller). */
export const DEFAULT_FACET_VALUES = 10;

/** Defaults of the paging bounds (see docs/pagination.md, Limits). */
export const DEFAULT_PAGING = Object.freeze({ defaultLimit: 20, maxLimit: 100, maxOffset: 100_000 });
