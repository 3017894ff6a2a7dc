import { errorAtPosition, type ListError } from '../errors.ts';
import type { Limits } from '../limits.ts';
import type { Span } from '../syntax/ast.ts';
import type { FixedCharge, Run } from './cost-page.ts';
import { round } from './cost-page.ts';
import { budgetOver, type FilterTally } from './limit-messages.ts';
import type { ResolvedAggregate, ResolvedFilter } from './types.ts';

/**
 * One filter as the cost budget walks it (cost.ts): every sub-query and comparison charged per run of the filter, and
 * the error at the node where the running total crosses maxSubqueries.
 */

/** The bounds a filter's walk checks. */
export type FilterBudget = Pick<Limits, 'maxSubqueries' | 'maxSubqueryDepth' | 'maxInValuesTotal'>;

/**
 * What one to-many sub-query (`any`/`all`) of the top filter weighs: the budget's unit is one correlated sub-query over
 * every row of the scope, and the to-many ones were measured at 1 to 1.3 times the time that unit stands for (one
 * eighth of a second at the reference scale), their related rows read besides; a to-one hop (a key lookup) weighs 1.
 */
export const QUANTIFIER_UNITS = 3 / 2;

/**
 * What one comparison costs per run, in the budget's unit: a pattern test (`contains`, `startswith`, `endswith` and
 * every `i` operator) scans the text, a plain comparison (`eq`, `gt`, `in`, `is null` …) reads a value. At the root
 * a plain comparison is free (measured well under 1/100); inside a quantifier every comparison runs once per related
 * row, and the first is part of its sub-query (the sub-query's unit was measured with one plain comparison inside).
 */
export const COMPARISON_UNITS = Object.freeze({
  root: Object.freeze({ plain: 0, pattern: 1 / 4 }),
  inside: Object.freeze({ plain: 1 / 8, pattern: 3 / 4 }),
});

/** The state of one filter's count: the budget, the runs of the filter, and the running cost. */
export interface FilterWalk {
  readonly budget: FilterBudget;
  /** The parameter errors name: `filter`, or a nested list's (`reviews.filter`). */
  readonly parameter: string;
  readonly runs: readonly Run[];
  readonly fixed: readonly FixedCharge[];
  readonly tally: FilterTally;
  readonly cost: { work: number; fixed: number; depth: number; sortJoins: number; inValues: number };
  /** Whether comparisons are charged (the top filter, which runs over the whole scope). */
  readonly comparisons: boolean;
  /** What one to-many sub-query (`any`/`all`) weighs: QUANTIFIER_UNITS in the top filter, 1 in a nested list's. */
  readonly quantifierUnits: number;
  /** What one to-one hop weighs (the dialect's hopCost in the top filter, 1 in a nested list's). */
  readonly hopUnits?: number | undefined;
  /** The most one statement may need, where statements hold the event loop (SQLite); checked on the page's. */
  readonly statement?: StatementCap | undefined;
}

/** The bound on one statement's work: `share` of `of` (maxSubqueries, at least its default) on `label`'s database. */
export interface StatementCap {
  readonly units: number;
  readonly share: number;
  readonly of: number;
  readonly label: string;
}

/** The first comparison inside a quantifier is part of its sub-query: `credit` is its plain share, until used. */
interface Quantified {
  credit: number;
}

function timesOf(walk: FilterWalk): number {
  return walk.runs.reduce((n, run) => n + run.times, 0);
}

/** Add `units` per run and fail at `span` when the total crosses maxSubqueries. */
function charge(walk: FilterWalk, units: number, span: Span): void {
  const { cost, budget } = walk;
  cost.work += units * timesOf(walk);
  if (round(cost.work + cost.fixed) > budget.maxSubqueries)
    throw exceeded(
      walk.parameter,
      span,
      budgetOver(round(cost.work + cost.fixed), budget.maxSubqueries, walk.tally, walk.runs, walk.fixed),
    );
  // The page's statement runs the filter once and carries the sort and offset: the largest statement of a request.
  const statement = walk.statement;
  if (statement && round(pageStatement(walk)) > statement.units)
    throw exceeded(walk.parameter, span, statementOver(walk, statement));
}

/**
 * Why the page's statement crosses the share of maxSubqueries one statement may need, term by term.
 *
 * @example // the page's statement needs at least 4.5, 1.5 over the 3 one statement may need on SQLite (3/8 of 8: it
 * // holds the event loop): 3 sub-queries weighing 4.5
 */
export function statementOver(walk: FilterWalk, statement: StatementCap): string {
  const { tally, fixed } = walk;
  const needs = pageStatement(walk);
  const page = walk.runs[0];
  const runs = page && page.times > 1 ? ` per run, ${page.times} runs (${page.why})` : '';
  const terms = [
    ...(tally.subqueries > 0 ? [`${tally.subqueries} sub-queries weighing ${round(tally.subqueryUnits)}`] : []),
    ...(tally.comparisonUnits > 0 ? [`${tally.comparisons} comparisons weighing ${round(tally.comparisonUnits)}`] : []),
  ].join(' and ');
  const also = fixed.map((f) => `${round(f.units)} for ${f.why}`).join(', ');
  return `${statementNeeds(needs, statement)}: ${[terms + runs, also].filter(Boolean).join(', and ')}`;
}

/** The work of the page's statement: its runs of the filter (the first run; its UNION ALL branches), sort and offset. */
function pageStatement(walk: FilterWalk): number {
  const perRun = walk.cost.work / timesOf(walk);
  return perRun * (walk.runs[0]?.times ?? 1) + walk.cost.fixed;
}

/** The head of a message about one statement's work over its share. */
export function statementNeeds(needs: number, statement: StatementCap): string {
  return (
    `the page's statement needs at least ${round(needs)}, ${round(needs - statement.units)} over the ` +
    `${round(statement.units)} one statement may need on ${statement.label} (${fraction(statement.share)} of ` +
    `${statement.of}: it holds the event loop)`
  );
}

function fraction(share: number): string {
  for (let d = 1; d <= 16; d++) if (Number.isInteger(share * d)) return `${share * d}/${d}`;
  return String(round(share));
}

/** Count `hops` sub-queries at quantifier nesting `depth`; return the nesting inside them. */
function enter(walk: FilterWalk, hops: number, depth: number, quantifier: boolean, span: Span): number {
  const { budget, cost } = walk;
  // Only to-many hops multiply the rows each inner sub-query runs for; a to-one hop is a primary-key lookup.
  const nested = quantifier ? depth + 1 : depth;
  if (nested > budget.maxSubqueryDepth)
    throw exceeded(
      walk.parameter,
      span,
      `the filter nests more than ${budget.maxSubqueryDepth} to-many relationship sub-queries (maxSubqueryDepth)`,
    );
  cost.depth = Math.max(cost.depth, nested);
  walk.tally.subqueries += hops;
  // A quantifier's last hop is its to-many sub-query: it weighs quantifierUnits, its to-one hops hopUnits each.
  const hop = walk.hopUnits ?? 1;
  const units = quantifier ? (hops - 1) * hop + walk.quantifierUnits : hops * hop;
  walk.tally.subqueryUnits += units;
  if (units > 0) charge(walk, units, span);
  return nested;
}

/** Count one written comparison or list on `target` with `values` list values, a pattern test or not. */
function leaf(walk: FilterWalk, hops: number, values: number, pattern: boolean, at: Position, span: Span): void {
  enter(walk, hops, at.depth, false, span);
  if (walk.comparisons) {
    const place = at.depth === 0 ? COMPARISON_UNITS.root : COMPARISON_UNITS.inside;
    // Each level of quantifiers multiplies the related rows a comparison runs for: twice per level past the first.
    const scale = at.depth > 1 ? 2 ** (at.depth - 1) : 1;
    let units = (pattern ? place.pattern : place.plain) * scale;
    if (at.quantified && at.quantified.credit > 0) {
      units -= at.quantified.credit;
      at.quantified.credit = 0;
    }
    walk.tally.comparisons += 1;
    walk.tally.comparisonUnits += units;
    if (units > 0) charge(walk, units, span);
  }
  walk.cost.inValues += values;
  if (walk.cost.inValues > walk.budget.maxInValuesTotal)
    throw exceeded(
      walk.parameter,
      span,
      `${walk.parameter === 'filter' ? "the filter's in lists" : 'the in lists of all filters'} hold more than ` +
        `${walk.budget.maxInValuesTotal} values together (maxInValuesTotal)`,
    );
}

/** Where a node sits: its quantifier nesting, and the quantifier whose first comparison is still part of it. */
interface Position {
  readonly depth: number;
  readonly quantified: Quantified | undefined;
}

/** Count a filter node and everything below it. */
export function visit(walk: FilterWalk, node: ResolvedFilter, depth: number, quantified: Quantified | undefined): void {
  const at = { depth, quantified };
  // A dialect rewrite (decimal-scale.ts) may split a comparison in two or drop list values: count what was written.
  const written = 'written' in node ? node.written : undefined;
  if (written) leaf(walk, written.target.relations.length, written.values, false, at, node.span);
  else if (node.kind === 'compare' || node.kind === 'null')
    leaf(walk, node.target.relations.length, 0, false, at, node.span);
  else if (node.kind === 'like') leaf(walk, node.target.relations.length, 0, true, at, node.span);
  else if (node.kind === 'in') leaf(walk, node.target.relations.length, node.values.length, false, at, node.span);
  else if (node.kind === 'not') visit(walk, node.operand, depth, quantified);
  else if (node.kind === 'and' || node.kind === 'or') {
    visit(walk, node.left, depth, quantified);
    visit(walk, node.right, depth, quantified);
  } else if (node.kind === 'quantifier') {
    const inner = enter(walk, node.relations.length, depth, true, node.span);
    const credit = COMPARISON_UNITS.inside.plain * (inner > 1 ? 2 ** (inner - 1) : 1);
    visit(walk, node.predicate, inner, { credit });
  } else if (node.kind === 'relationNull') enter(walk, node.relations.length, depth, false, node.span);
  else if (node.kind === 'aggregate') {
    aggregateWork(walk, node.aggregate, depth, node.span);
    // The test of its value: one comparison (or list) where the aggregate stands.
    const values = node.test.kind === 'in' ? node.test.values.length : 0;
    leaf(walk, 0, values, false, at, node.span);
  } else {
    const never: never = node;
    throw new Error(`unknown filter node ${String(never)}`);
  }
}

/**
 * Count an aggregate (in a filter, or a sort key's, each run): a to-many sub-query like a quantifier's (its to-one hops
 * besides), and its inner filter inside it, as a quantifier's predicate.
 */
export function aggregateWork(walk: FilterWalk, aggregate: ResolvedAggregate, depth: number, span: Span): void {
  const inner = enter(walk, aggregate.relations.length, depth, true, span);
  const credit = COMPARISON_UNITS.inside.plain * (inner > 1 ? 2 ** (inner - 1) : 1);
  if (aggregate.predicate) visit(walk, aggregate.predicate as ResolvedFilter, inner, { credit });
}

export function exceeded(parameter: string, span: Span, message: string): ListError {
  return errorAtPosition('limit_exceeded', message, parameter, span);
}
