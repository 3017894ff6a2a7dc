import { exceeded, QUANTIFIER_UNITS, visit } from './cost-filter.ts';
import { round } from './cost-page.ts';
import { withoutOwnClauses } from './cross-filter.ts';
import type { FacetTarget, ResolvedFacet, ResolvedFilter } from './types.ts';

/**
 * What grouping the scope's rows by a facet's value weighs, in the budget's unit (one correlated sub-query over every
 * row of the scope), besides its run of the filter: a root column is read where the rows are (half a unit); a
 * relation's key needs a join per row, through the pivot for a many-to-many (one unit). See docs/facets.md, Cost.
 */
export const FACET_GROUP_UNITS = Object.freeze({ field: 1 / 2, relation: 1 });

/** The running cost of a request, as checkBudget() keeps it. */
interface Cost {
  work: number;
  fixed: number;
}

/**
 * Charge each facet like an exact count of the filter without its own clauses (withoutOwnClauses), plus its
 * grouping (FACET_GROUP_UNITS); fail, positioned at the facet's name in `facets`, at the first facet that takes the
 * request over maxSubqueries, saying what it needs and what came before it.
 */
export function chargeFacets(
  facets: readonly ResolvedFacet[],
  filter: ResolvedFilter | undefined,
  maxSubqueries: number,
  cost: Cost,
  hopUnits: number | undefined,
): void {
  for (const facet of facets) {
    const before = cost.work + cost.fixed;
    const own = facetFilterUnits(withoutOwnClauses(filter, facet.target), hopUnits);
    const grouping = groupUnits(facet.target);
    cost.work += own + grouping;
    const total = round(cost.work + cost.fixed);
    if (total > maxSubqueries) {
      const filtered = own > 0 ? `, and ${round(own)} for the filter without its own clauses` : '';
      throw exceeded(
        'facets',
        facet.span,
        `facet '${facet.name}' needs ${round(own + grouping)} (${round(grouping)} for its grouping${filtered}), ` +
          `${round(before)} before it: ${total} is ${round(total - maxSubqueries)} over maxSubqueries (${maxSubqueries})`,
      );
    }
  }
}

/** What grouping by a facet's target weighs. */
export function groupUnits(target: FacetTarget): number {
  return target.kind === 'field' ? FACET_GROUP_UNITS.field : FACET_GROUP_UNITS.relation;
}

/** The units of one run of a facet's filter, as the top filter's runs are counted (comparisons included). */
function facetFilterUnits(filter: ResolvedFilter | undefined, hopUnits: number | undefined): number {
  if (filter === undefined) return 0;
  const unbounded = Number.POSITIVE_INFINITY;
  const cost = { work: 0, fixed: 0, depth: 0, sortJoins: 0, inValues: 0 };
  const tally = { subqueries: 0, subqueryUnits: 0, comparisons: 0, comparisonUnits: 0 };
  const budget = { maxSubqueries: unbounded, maxSubqueryDepth: unbounded, maxInValuesTotal: unbounded };
  const runs = [{ why: 'a facet', times: 1 }];
  visit(
    {
      budget,
      parameter: 'filter',
      runs,
      fixed: [],
      tally,
      cost,
      comparisons: true,
      quantifierUnits: QUANTIFIER_UNITS,
      hopUnits,
    },
    filter,
    0,
    undefined,
  );
  return cost.work;
}
