import type { PlanFigures } from '../types.ts';

type Json = Record<string, unknown>;

/** Members that hold another query block, priced by where they run rather than as tables of this one. */
const ELSEWHERE = new Set(['subqueries', 'attached_subqueries', 'materialized', 'union_result', 'query_block']);

/**
 * Read MariaDB's (and MySQL's) estimate of a statement from `explain format=json` (no ANALYZE: nothing runs). The
 * cost is the rows the plan expects to examine, sub-queries included: MariaDB before 11.0 gives no cost in this form,
 * and a figure in rows means the same on every version. Each table of a join is read once per row the tables
 * before it pass on (`rows` × `filtered`), a materialized sub-query once, any other sub-query once per row its
 * query examines, and a union's branches add up. The rows are what the outer query is expected to select before
 * its LIMIT. Undefined when the answer has another shape.
 *
 * @example readMysqlPlan([{ EXPLAIN: '{"query_block":{"select_id":1,"table":{"rows":50170,"filtered":100}}}' }])
 * // { cost: 50170, rows: 50170 }
 */
export function readMysqlPlan(rows: readonly Record<string, unknown>[]): PlanFigures | undefined {
  const first = rows[0];
  const text = first?.EXPLAIN ?? (first ? Object.values(first)[0] : undefined);
  const plan = typeof text === 'string' ? (JSON.parse(text) as Json) : undefined;
  const block = plan?.query_block;
  if (!isObject(block)) return undefined;
  const { examined, selected } = priceBlock(block, 1);
  return Number.isFinite(examined) && Number.isFinite(selected) ? { cost: examined, rows: selected } : undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberOf(value: unknown, otherwise: number): number {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : otherwise;
}

/** Price one query block run `loops` times: the rows it examines, and the rows it gives. */
function priceBlock(block: Json, loops: number): { examined: number; selected: number } {
  const union = block.union_result;
  if (isObject(union)) {
    let examined = 0;
    let selected = 0;
    const branches = union.query_specifications;
    for (const branch of Array.isArray(branches) ? branches : []) {
      if (!isObject(branch) || !isObject(branch.query_block)) continue;
      const priced = priceBlock(branch.query_block, loops);
      examined += priced.examined;
      selected += priced.selected;
    }
    return { examined, selected };
  }
  const tables: Json[] = [];
  collectTables(block, tables);
  let passed = loops;
  let examined = 0;
  let reads = loops;
  for (const table of tables) {
    const scanned = passed * numberOf(table.rows ?? table.rows_examined_per_scan, 1);
    examined += scanned;
    reads = Math.max(reads, scanned);
    if (isObject(table.materialized) && isObject(table.materialized.query_block))
      examined += priceBlock(table.materialized.query_block, 1).examined;
    examined += priceSubqueries(table.attached_subqueries, scanned);
    passed = (scanned * numberOf(table.filtered, 100)) / 100;
  }
  // The block's sub-queries run once when materialized, else once per row the block examines.
  examined += priceSubqueries(block.subqueries, reads);
  return { examined, selected: passed };
}

function priceSubqueries(list: unknown, times: number): number {
  let examined = 0;
  for (const entry of Array.isArray(list) ? list : []) {
    if (!isObject(entry)) continue;
    if (isObject(entry.materialization) && isObject(entry.materialization.query_block)) {
      examined += priceBlock(entry.materialization.query_block, 1).examined;
      continue;
    }
    const cached = isObject(entry.expression_cache) ? entry.expression_cache : entry;
    if (isObject(cached.query_block)) examined += priceBlock(cached.query_block, times).examined;
  }
  return examined;
}

/** The tables of a block's join, in join order, found through its wrappers (filesort, temporary table, …). */
function collectTables(node: unknown, out: Json[]): void {
  if (Array.isArray(node)) {
    for (const item of node) collectTables(item, out);
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'table' && isObject(value)) out.push(value);
    else if (!ELSEWHERE.has(key) && typeof value === 'object') collectTables(value, out);
  }
}
