import { errorAtPosition, type ListError } from '../errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../limits.ts';
import type { Span } from '../syntax/ast.ts';
import type { FieldRef, ResolvedFilter, ResolvedQuery } from './types.ts';

/** The bounds on the database work one request may ask for (see docs/security.md, Cost budget). */
export type Budget = Pick<Limits, 'maxSubqueries' | 'maxSubqueryDepth' | 'maxSortJoins' | 'maxInValuesTotal'>;

/** What a request asks the database to do, as the budget counts it. */
export interface RequestCost {
  /** Correlated sub-queries run per candidate row, data and count query together. */
  readonly subqueries: number;
  /** Deepest nesting of to-many sub-queries (any/all) in the filter. */
  readonly depth: number;
  /** Distinct to-one relations joined for the sort. */
  readonly sortJoins: number;
  /** Values in every `in` / `not in` list of the filter together. */
  readonly inValues: number;
}

type Parameter = 'filter' | 'sort';

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
 * for, where a to-one hop looks up one row. Returns the cost of an accepted request.
 *
 * @example checkBudget(resolveQuery(bound, parseHTTP({ filter: 'reviews/any(r: r/tags/any(t: t/name eq 1))' })), budget)
 */
export function checkBudget(resolved: ResolvedQuery, budget: Budget): RequestCost {
  const cost = { subqueries: 0, depth: 0, sortJoins: 0, inValues: 0 };
  // Sort paths are LEFT JOINed once per distinct relation path, whatever the number of keys through it.
  const joins = new Set<string>();
  for (const term of resolved.sort) {
    let path = '';
    for (const relation of term.target.relations) {
      path += `/${relation.property}`;
      joins.add(path);
    }
    if (joins.size > budget.maxSortJoins)
      throw exceeded(
        'sort',
        term.target.span,
        `the sort joins more than ${budget.maxSortJoins} relations (maxSortJoins)`,
      );
  }
  cost.sortJoins = joins.size;
  // Each sub-query runs once in the data query, once more in the count, and once more when the sort goes through a
  // relation: the data query then has to order every matching row (the join keeps it from stopping at the limit).
  const runs = [
    resolved.count === true ? 'with count=true' : '',
    joins.size > 0 ? 'a sort through a relation' : '',
  ].filter(Boolean);
  const weight = 1 + runs.length;

  /** Count `hops` sub-queries at quantifier nesting `depth`; return the nesting inside them. */
  const enter = (hops: number, depth: number, quantifier: boolean, span: Span): number => {
    // Only to-many hops multiply the rows each inner sub-query runs for; a to-one hop is a primary-key lookup.
    const nested = quantifier ? depth + 1 : depth;
    if (nested > budget.maxSubqueryDepth)
      throw exceeded(
        'filter',
        span,
        `the filter nests more than ${budget.maxSubqueryDepth} to-many relationship sub-queries (maxSubqueryDepth)`,
      );
    cost.depth = Math.max(cost.depth, nested);
    cost.subqueries += hops * weight;
    if (cost.subqueries > budget.maxSubqueries) {
      const why = runs.length > 0 ? `; each one runs ${weight} times: ${runs.join(', ')}` : '';
      throw exceeded(
        'filter',
        span,
        `the filter needs more than ${budget.maxSubqueries} relationship sub-queries (maxSubqueries${why})`,
      );
    }
    return nested;
  };

  /** Count one written comparison or list on `target` with `values` list values. */
  const leaf = (target: FieldRef, values: number, depth: number, span: Span): void => {
    enter(target.relations.length, depth, false, span);
    cost.inValues += values;
    if (cost.inValues > budget.maxInValuesTotal)
      throw exceeded(
        'filter',
        span,
        `the filter's in lists hold more than ${budget.maxInValuesTotal} values together (maxInValuesTotal)`,
      );
  };

  const visit = (node: ResolvedFilter, depth: number): void => {
    // A dialect rewrite (decimal-scale.ts) may split a comparison in two or drop list values: count what was written.
    const written = 'written' in node ? node.written : undefined;
    if (written) {
      leaf(written.target, written.values, depth, node.span);
      return;
    }
    switch (node.kind) {
      case 'compare':
      case 'like':
      case 'null':
        leaf(node.target, 0, depth, node.span);
        return;
      case 'in':
        leaf(node.target, node.values.length, depth, node.span);
        return;
      case 'not':
        visit(node.operand, depth);
        return;
      case 'and':
      case 'or':
        visit(node.left, depth);
        visit(node.right, depth);
        return;
      case 'quantifier':
        visit(node.predicate, enter(node.relations.length, depth, true, node.span));
        return;
      case 'relationNull':
        enter(node.relations.length, depth, false, node.span);
        return;
      default: {
        const never: never = node;
        throw new Error(`unknown filter node ${String(never)}`);
      }
    }
  };

  if (resolved.filter) visit(resolved.filter, 0);
  return cost;
}

function exceeded(parameter: Parameter, span: Span, message: string): ListError {
  return errorAtPosition('limit_exceeded', message, parameter, span);
}
