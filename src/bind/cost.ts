import { errorAtPosition, type ListError } from '../errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../limits.ts';
import type { Span } from '../syntax/ast.ts';
import type { FieldRef, ResolvedFilter, ResolvedQuery, ResolvedSelection, ResolvedSortTerm } from './types.ts';

/** The bounds on the database work one request may ask for (see docs/security.md, Cost budget). */
export type Budget = Pick<Limits, 'maxSubqueries' | 'maxSubqueryDepth' | 'maxSortJoins' | 'maxInValuesTotal'>;

/** What a request asks the database to do, as the budget counts it (nested lists' filters and sorts included). */
export interface RequestCost {
  /** Correlated sub-queries run per candidate row, data and count queries of every level together. */
  readonly subqueries: number;
  /** Deepest nesting of to-many sub-queries (any/all) in one filter. */
  readonly depth: number;
  /** Distinct to-one relations joined for the sorts (each level's counted on its own against maxSortJoins). */
  readonly sortJoins: number;
  /** Values in every `in` / `not in` list of the filters together. */
  readonly inValues: number;
}

/** Fill a partial budget (apply()'s `options.limits`) with the defaults; undefined entries keep theirs. */
export function budgetOf(overrides: Partial<Limits> | undefined): Budget {
  const pick = (key: keyof Budget): number => overrides?.[key] ?? DEFAULT_LIMITS[key];
  return {
    maxSubqueries: pick('maxSubqueries'),
    maxSubqueryDepth: pick('maxSubqueryDepth'),
    maxSortJoins: pick('maxSortJoins'),
    maxInValuesTotal: pick('maxInValuesTotal'),
  };
}

/**
 * Measure a resolved request, as the client wrote it, against the budget and reject it, before any query, with a positioned
 * `limit_exceeded` that names the budget it crosses. Each to-one hop of a filter path and each hop of an any/all is
 * one correlated sub-query (an EXISTS evaluated per candidate row); `count=true` runs them all a second time, and
 * a sort through a relation makes the data query evaluate them for every matching row, so each counts once more
 * for either. Depth counts nested any/all only: each multiplies the rows the sub-queries inside it run
 * for, where a to-one hop looks up one row. Nested lists (`reviews.filter`, `reviews.sort`) are charged the same way
 * into the same totals, each level's filter once more when it has `count=true`, after the root's. Returns the cost
 * of an accepted request.
 *
 * @example checkBudget(resolveQuery(bound, parseHTTP({ filter: 'reviews/any(r: r/tags/any(t: t/name eq 1))' })), budget)
 */
export function checkBudget(resolved: ResolvedQuery, budget: Budget): RequestCost {
  const sortJoins = countSortJoins(resolved.sort, budget, 'sort');
  // Each sub-query runs once in the data query, once more in the count, and once more when the sort goes through a
  // relation: the data query then has to order every matching row (the join keeps it from stopping at the limit).
  const runs = [resolved.count === true ? 'with count=true' : '', sortJoins > 0 ? 'a sort through a relation' : ''];
  const cost = { subqueries: 0, depth: 0, sortJoins, inValues: 0 };
  const walk: FilterWalk = { budget, parameter: 'filter', runs: runs.filter(Boolean), cost };
  if (resolved.filter) visit(walk, resolved.filter, 0);
  for (const level of resolved.selections ?? []) chargeLevel(level, budget, cost);
  return cost;
}

/**
 * Charge one nested list and the lists below it. A level's page is one statement for all its parents that reads every
 * matching row to number them per parent, so its sort adds no run; its count statement runs the filter once more.
 * The level's sub-queries are counted first and then held against what the request already needs, so the error
 * says which list crosses the budget and by how much.
 */
function chargeLevel(level: ResolvedSelection, budget: Budget, cost: FilterWalk['cost']): void {
  const list = level.list;
  if (list) {
    // The policy's own defaultSort for the relation is the developer's choice, not charged to the client.
    if (list.sort !== level.relation.selection?.defaultSort)
      cost.sortJoins += countSortJoins(list.sort, budget, `${level.path}.sort`);
    if (list.filter) {
      const parameter = `${level.path}.filter`;
      const runs = list.count ? [`with ${level.path}.count=true`] : [];
      const before = cost.subqueries;
      const unbounded = { ...budget, maxSubqueries: Number.POSITIVE_INFINITY };
      visit({ budget: unbounded, parameter, runs, cost }, list.filter, 0);
      if (cost.subqueries > budget.maxSubqueries) {
        const needs = cost.subqueries - before;
        const twice = runs.length > 0 ? ` (each twice: ${runs[0]})` : '';
        throw exceeded(
          parameter,
          list.filter.span,
          `${parameter} needs ${needs} relationship sub-queries${twice}, ${before} before it: ${cost.subqueries} is ` +
            `${cost.subqueries - budget.maxSubqueries} over maxSubqueries (${budget.maxSubqueries})`,
        );
      }
    }
  }
  for (const child of level.children) chargeLevel(child, budget, cost);
}

/** Count the distinct relation paths a sort LEFT JOINs (once per path, whatever the keys through it). */
function countSortJoins(sort: readonly ResolvedSortTerm[], budget: Budget, parameter: string): number {
  const joins = new Set<string>();
  for (const term of sort) {
    let path = '';
    for (const relation of term.target.relations) {
      path += `/${relation.property}`;
      joins.add(path);
    }
    if (joins.size > budget.maxSortJoins)
      throw exceeded(
        parameter,
        term.target.span,
        `the sort joins more than ${budget.maxSortJoins} relations (maxSortJoins)`,
      );
  }
  return joins.size;
}

/** The state of one filter's count: the budget, why each sub-query runs more than once, and the running cost. */
interface FilterWalk {
  readonly budget: Budget;
  /** The parameter errors name: `filter`, or a nested list's (`reviews.filter`). */
  readonly parameter: string;
  readonly runs: readonly string[];
  readonly cost: { subqueries: number; depth: number; sortJoins: number; inValues: number };
}

/** Count `hops` sub-queries at quantifier nesting `depth`; return the nesting inside them. */
function enter(walk: FilterWalk, hops: number, depth: number, quantifier: boolean, span: Span): number {
  const { budget, cost, runs, parameter } = walk;
  // Only to-many hops multiply the rows each inner sub-query runs for; a to-one hop is a primary-key lookup.
  const nested = quantifier ? depth + 1 : depth;
  if (nested > budget.maxSubqueryDepth)
    throw exceeded(
      parameter,
      span,
      `the filter nests more than ${budget.maxSubqueryDepth} to-many relationship sub-queries (maxSubqueryDepth)`,
    );
  cost.depth = Math.max(cost.depth, nested);
  const weight = 1 + runs.length;
  cost.subqueries += hops * weight;
  if (cost.subqueries > budget.maxSubqueries) {
    const why = runs.length > 0 ? `; each one runs ${weight} times: ${runs.join(', ')}` : '';
    throw exceeded(
      parameter,
      span,
      `the filter needs more than ${budget.maxSubqueries} relationship sub-queries (maxSubqueries${why})`,
    );
  }
  return nested;
}

/** Count one written comparison or list on `target` with `values` list values. */
function leaf(walk: FilterWalk, target: FieldRef, values: number, depth: number, span: Span): void {
  enter(walk, target.relations.length, depth, false, span);
  walk.cost.inValues += values;
  if (walk.cost.inValues > walk.budget.maxInValuesTotal)
    throw exceeded(
      walk.parameter,
      span,
      `${walk.parameter === 'filter' ? "the filter's in lists" : 'the in lists of all filters'} hold more than ` +
        `${walk.budget.maxInValuesTotal} values together (maxInValuesTotal)`,
    );
}

/** Count a filter node and everything below it. */
function visit(walk: FilterWalk, node: ResolvedFilter, depth: number): void {
  // A dialect rewrite (decimal-scale.ts) may split a comparison in two or drop list values: count what was written.
  const written = 'written' in node ? node.written : undefined;
  if (written) leaf(walk, written.target, written.values, depth, node.span);
  else if (node.kind === 'compare' || node.kind === 'like' || node.kind === 'null')
    leaf(walk, node.target, 0, depth, node.span);
  else if (node.kind === 'in') leaf(walk, node.target, node.values.length, depth, node.span);
  else if (node.kind === 'not') visit(walk, node.operand, depth);
  else if (node.kind === 'and' || node.kind === 'or') {
    visit(walk, node.left, depth);
    visit(walk, node.right, depth);
  } else if (node.kind === 'quantifier')
    visit(walk, node.predicate, enter(walk, node.relations.length, depth, true, node.span));
  else if (node.kind === 'relationNull') enter(walk, node.relations.length, depth, false, node.span);
  else {
    const never: never = node;
    throw new Error(`unknown filter node ${String(never)}`);
  }
}

function exceeded(parameter: string, span: Span, message: string): ListError {
  return errorAtPosition('limit_exceeded', message, parameter, span);
}

// The rows and statements of nested levels, which need the top page's size, are priced beside: tree-cost.ts.
export { checkTreeBudget, type TreeCost } from './tree-cost.ts';
