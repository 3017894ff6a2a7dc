import type { PlanFigures } from '../types.ts';

/** The members of one node of `explain (format json)` that the estimate reads. */
interface PlanNode {
  readonly 'Node Type'?: unknown;
  readonly 'Parent Relationship'?: unknown;
  readonly 'Total Cost'?: unknown;
  readonly 'Plan Rows'?: unknown;
  readonly Plans?: unknown;
}

// Nodes that pass their one input's rows on (ordered, wrapped, gathered): the rows below them are the rows they give.
const PASS_THROUGH = new Set([
  'Sort',
  'Incremental Sort',
  'Subquery Scan',
  'Result',
  'Materialize',
  'Memoize',
  'Gather',
  'Gather Merge',
]);

/**
 * Read PostgreSQL's estimate of a statement from `explain (format json)` (no ANALYZE: nothing runs): the total cost
 * and the rows the plan selects, both as if no LIMIT stopped it early. A page's LIMIT makes the planner price only the
 * rows it expects to read before the limit is full, which is far too little when the filter matches fewer rows than
 * it thinks (a filter that matches nothing reads every row); a continuation page's branches each carry their own.
 * Undefined when the answer has another shape.
 *
 * @example readPostgresPlan([{ 'QUERY PLAN': [{ Plan: { 'Node Type': 'Limit', 'Total Cost': 841, Plans: [{ 'Total Cost': 1460319, 'Plan Rows': 36441 }] } }] }])
 * // { cost: 1460319, rows: 36441 }
 */
export function readPostgresPlan(rows: readonly Record<string, unknown>[]): PlanFigures | undefined {
  let plan = rows[0]?.['QUERY PLAN'];
  if (typeof plan === 'string') plan = JSON.parse(plan);
  const top = Array.isArray(plan) ? (plan[0] as { Plan?: PlanNode } | undefined)?.Plan : undefined;
  if (!top) return undefined;
  const cost = unlimitedCost(top);
  const selected = unlimitedRows(top);
  if (cost === undefined || selected === undefined) return undefined;
  return { cost, rows: selected };
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The node's inputs, leaving out sub-plans (priced inside the node's own cost, per call). */
function inputsOf(node: PlanNode): PlanNode[] {
  if (!Array.isArray(node.Plans)) return [];
  return (node.Plans as PlanNode[]).filter((child) => {
    const relationship = child['Parent Relationship'];
    return relationship !== 'SubPlan' && relationship !== 'InitPlan';
  });
}

/** The node's total cost with every LIMIT below it (itself included) taken away. */
function unlimitedCost(node: PlanNode): number | undefined {
  const inputs = inputsOf(node);
  if (node['Node Type'] === 'Limit' && inputs[0]) return unlimitedCost(inputs[0]);
  let cost = numberOf(node['Total Cost']);
  for (const input of inputs) {
    const limited = numberOf(input['Total Cost']);
    const unlimited = unlimitedCost(input);
    if (cost === undefined || limited === undefined || unlimited === undefined) return undefined;
    cost += unlimited - limited;
  }
  return cost;
}

/** The rows the node gives without LIMITs: through limits and pass-through nodes, summed over a union's branches. */
function unlimitedRows(node: PlanNode): number | undefined {
  const inputs = inputsOf(node);
  const type = node['Node Type'];
  if ((type === 'Limit' || PASS_THROUGH.has(String(type))) && inputs.length === 1) return unlimitedRows(inputs[0]!);
  if (type === 'Append' || type === 'Merge Append') {
    let sum = 0;
    for (const input of inputs) {
      const rows = unlimitedRows(input);
      if (rows === undefined) return undefined;
      sum += rows;
    }
    return sum;
  }
  return numberOf(node['Plan Rows']);
}
