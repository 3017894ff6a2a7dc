import { type ListError, limitExceeded } from '../errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../limits.ts';
import { chargeFacets } from './cost-facets.ts';
import { aggregateWork, exceeded, type FilterWalk, QUANTIFIER_UNITS, statementNeeds, visit } from './cost-filter.ts';
import { type FixedCharge, fixedCharges, type PageFacts, round, runsOf } from './cost-page.ts';
import { type FilterTally, fixedOver } from './limit-messages.ts';
import type { ResolvedQuery, ResolvedSelection, ResolvedSortTerm } from './types.ts';

export { COMPARISON_UNITS, QUANTIFIER_UNITS } from './cost-filter.ts';
export type { PageFacts } from './cost-page.ts';

/** The bounds on the database work one request may ask for (see docs/security.md, Cost budget). */
export type Budget = Pick<Limits, 'maxSubqueries' | 'maxSubqueryDepth' | 'maxSortJoins' | 'maxInValuesTotal'>;

/** What a request asks the database to do, as the budget counts it (nested lists' filters and sorts included). */
export interface RequestCost {
  /**
   * The filters' work in the budget's unit (one correlated sub-query over every row of the scope): their sub-queries
   * and comparisons, each filter times the runs of it (its page, each branch of a UNION ALL page, the count).
   */
  readonly subqueries: number;
  /** Everything held against maxSubqueries: the filters' work, plus a sort through relations and an offset. */
  readonly units: number;
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
 * Measure a resolved request, as the client wrote it, against the budget and reject it, before any query, with a
 * positioned `limit_exceeded` that names the budget it crosses and by how much. The unit is one correlated sub-query
 * evaluated over every row of the scope: each to-one hop of a filter path is one, each any/all QUANTIFIER_UNITS, and
 * comparisons weigh fractions of one (COMPARISON_UNITS). The filter counts once per run: the data page (once per
 * branch where a page is read as a UNION ALL of branches, see cost-page.ts) and `count=true`. A sort through relations
 * and an offset add their own units. Depth counts nested any/all only. Nested lists (`reviews.filter`) are charged
 * their sub-queries into the same total, each level's filter once more with count=true. `page` tells the database and
 * the order the page is read in; without it the request is priced as one statement. Returns the cost.
 *
 * @example checkBudget(resolveQuery(bound, parseHTTP({ filter: 'reviews/any(r: r/tags/any(t: t/name eq 1))' })), budget)
 */
export function checkBudget(resolved: ResolvedQuery, budget: Budget, page?: PageFacts): RequestCost {
  const sortJoins = countSortJoins(resolved.sort, budget, 'sort');
  const fixed = fixedCharges(resolved, sortJoins, page);
  const runs = runsOf(resolved, page);
  const tally: FilterTally = { subqueries: 0, subqueryUnits: 0, comparisons: 0, comparisonUnits: 0 };
  const cost = { work: 0, fixed: 0, depth: 0, sortJoins, inValues: 0 };
  // A budget set below the default keeps the default's share per statement: the request's own bound is tighter.
  const share = page?.dialect?.statementShare;
  const of = Math.max(budget.maxSubqueries, DEFAULT_LIMITS.maxSubqueries);
  const label = page?.dialect?.label ?? 'this database';
  const statement = share === undefined ? undefined : { units: of * share, share, of, label };
  for (const charge of fixed) {
    cost.fixed += charge.units;
    if (cost.fixed > budget.maxSubqueries) throw fixedExceeded(resolved, charge, fixed, budget);
    if (statement && round(cost.fixed) > statement.units)
      throw fixedExceeded(resolved, charge, fixed, budget, statementNeeds(cost.fixed, statement));
  }
  const walk: FilterWalk = {
    ...{ budget, parameter: 'filter', runs, fixed, tally, cost, statement },
    ...{ comparisons: true, quantifierUnits: QUANTIFIER_UNITS, hopUnits: page?.dialect?.hopCost },
  };
  if (resolved.filter) visit(walk, resolved.filter, 0, undefined);
  chargeSortAggregates(resolved, walk);
  for (const level of resolved.selections ?? []) chargeLevel(level, budget, cost);
  // Each facet runs the filter once more (without its own clauses) and groups the rows it keeps: cost-facets.ts.
  if (resolved.facets)
    chargeFacets(resolved.facets, resolved.filter, budget.maxSubqueries, cost, page?.dialect?.hopCost);
  const { depth, inValues } = cost;
  return { subqueries: round(cost.work), units: round(cost.work + cost.fixed), depth, sortJoins, inValues };
}

/**
 * Charge one nested list and the lists below it. A level's page is one statement for all its parents that reads every
 * matching row to number them per parent, so its sort adds no run; its count statement runs the filter once more.
 * Its statements read the related rows of one page of parents, not the whole scope: its comparisons are not charged.
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
      const runs = [
        { why: 'the level', times: 1 },
        ...(list.count ? [{ why: `${level.path}.count=true`, times: 1 }] : []),
      ];
      const before = cost.work + cost.fixed;
      const unbounded = { ...budget, maxSubqueries: Number.POSITIVE_INFINITY };
      const tally = { subqueries: 0, subqueryUnits: 0, comparisons: 0, comparisonUnits: 0 };
      visit(
        { budget: unbounded, parameter, runs, fixed: [], tally, cost, comparisons: false, quantifierUnits: 1 },
        list.filter,
        0,
        undefined,
      );
      const total = round(cost.work + cost.fixed);
      if (total > budget.maxSubqueries) {
        const needs = round(total - before);
        const twice = runs.length > 1 ? ` (each twice: with ${runs[1]!.why})` : '';
        throw exceeded(
          parameter,
          list.filter.span,
          `${parameter} needs ${needs} relationship sub-queries${twice}, ${round(before)} before it: ${total} is ` +
            `${round(total - budget.maxSubqueries)} over maxSubqueries (${budget.maxSubqueries})`,
        );
      }
    }
  }
  for (const child of level.children) chargeLevel(child, budget, cost);
}

/**
 * How many evaluations of its sub-query one aggregate sort key is charged, on every page. The key is computed for
 * every row of the scope before the first row can be returned (no index gives rows in an aggregate's order, so no page
 * stops early), and after a cursor the keyset predicate evaluates it again per row. At 100,000 books a page took
 * 0.3–0.4 s (first) and 0.5–2.1 s (after a cursor) on the three databases: over the one-second bound of the default
 * limits on a continuation page, and over SQLite's share of a statement on both. Six evaluations (9 units) put one
 * aggregate key over the default budget, and every page is charged alike, so a first page is never accepted whose
 * next page would be refused: an endpoint that sorts by aggregates raises maxSubqueries to what its scopes allow
 * (docs/performance.md, Aggregates).
 */
export const AGGREGATE_SORT_USES = 6;

/** Charge each aggregate sort key as AGGREGATE_SORT_USES evaluations of a filter's aggregate, on every page. */
function chargeSortAggregates(resolved: ResolvedQuery, walk: FilterWalk): void {
  resolved.sort.forEach((term) => {
    if (!term.aggregate) return;
    const why = `${term.aggregate.text} evaluated over every row of the scope, charged ${AGGREGATE_SORT_USES} times`;
    const runs = [{ why, times: AGGREGATE_SORT_USES }];
    aggregateWork({ ...walk, parameter: 'sort', runs }, term.aggregate, 0, term.aggregate.span);
  });
}

/** Count the distinct relation paths a sort LEFT JOINs (once per path, whatever the keys through it). */
function countSortJoins(sort: readonly ResolvedSortTerm[], budget: Budget, parameter: string): number {
  const joins = new Set<string>();
  for (const term of sort) {
    // An aggregate key joins nothing: it is a sub-query, charged as one (chargeSortAggregates).
    if (term.aggregate) continue;
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

/** The error of a sort or an offset whose own charge crosses maxSubqueries, before any filter. */
function fixedExceeded(
  resolved: ResolvedQuery,
  charge: FixedCharge,
  fixed: readonly FixedCharge[],
  budget: Budget,
  statement?: string,
): ListError {
  const upTo = fixed.slice(0, fixed.indexOf(charge) + 1);
  const parts = upTo.map((f) => `${round(f.units)} for ${f.why}`).join(', ');
  const message = statement ? `${statement} before its filter: ${parts}` : fixedOver(upTo, budget.maxSubqueries);
  const through = resolved.sort.find((t) => t.target !== undefined && t.target.relations.length > 0);
  if (charge.parameter === 'sort' && through?.target) return exceeded('sort', through.target.span, message);
  return limitExceeded(message, charge.parameter);
}

// The rows and statements of nested levels, which need the top page's size, are priced beside: tree-cost.ts.
export { checkTreeBudget, type TreeCost } from './tree-cost.ts';
