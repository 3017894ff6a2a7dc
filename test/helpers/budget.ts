/**
 * A cost budget no generated request reaches: for tests of correctness over arbitrary requests (property tests,
 * isolation), which check what a request returns, not whether the default budget accepts it (engine-budget.test.ts).
 */
export const NO_BUDGET = Object.freeze({
  maxSubqueries: 1_000_000,
  maxSubqueryDepth: 1_000,
  maxSortJoins: 1_000,
  maxInValuesTotal: 1_000_000,
});
