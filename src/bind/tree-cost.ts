import { errorAtPosition, limitExceeded } from '../errors.ts';
import type { Limits } from '../limits.ts';
import type { ResolvedSelection } from './types.ts';

/** What the nested levels of a request add to its top page, as the budget counts them (docs/security.md). */
export interface TreeCost {
  /** Rows the request may answer at every level together: the top page, then each level's parents × its rows each. */
  readonly rows: number;
  /** Statements the nested levels send: one per level that has parents, one more per such level with count. */
  readonly statements: number;
}

/** One nested level, as priced: its selection, the most parents it can have, and the most rows it answers. */
interface PricedLevel {
  readonly selection: ResolvedSelection;
  readonly parents: number;
  /** Rows per parent: offset + limit for a list (the statement numbers them all), 1 for a to-one object. */
  readonly each: number;
}

/**
 * Price the nested levels of a request whose top page holds at most `topRows` rows and refuse it, before any statement,
 * when all levels together may answer more than `maxTreeRows` rows: `limit_exceeded` on `fields` at the name of the
 * level that crosses, saying how far over the total is and what that level adds. A level's parents are the rows its
 * parent level may answer, so a list inside a list multiplies. A request without nested selections is not checked
 * here (its page is bounded by maxLimit) and costs no statement more.
 *
 * @example checkTreeBudget(resolved.selections, 20, limits) // 20 books, reviews limit 5: { rows: 120, statements: 1 }
 */
export function checkTreeBudget(
  selections: readonly ResolvedSelection[] | undefined,
  topRows: number,
  limits: Pick<Limits, 'maxTreeRows'>,
): TreeCost {
  const levels: PricedLevel[] = [];
  for (const selection of selections ?? []) price(selection, topRows, levels);
  if (levels.length === 0) return { rows: topRows, statements: 0 };
  let rows = topRows;
  let statements = 0;
  for (const level of levels) {
    rows += level.parents * level.each;
    if (level.parents > 0) statements += 1 + (level.selection.list?.count ? 1 : 0);
  }
  if (rows > limits.maxTreeRows) throw overBudget(levels, topRows, rows, limits.maxTreeRows);
  return { rows, statements };
}

/** Collect a level and the levels below it, depth-first in the order requested. */
function price(selection: ResolvedSelection, parents: number, out: PricedLevel[]): void {
  const list = selection.list;
  const each = list ? list.offset + list.limit : 1;
  out.push({ selection, parents, each });
  for (const child of selection.children) price(child, parents * each, out);
}

/** The error of a tree over maxTreeRows, at the first level whose rows take the running total over it. */
function overBudget(levels: readonly PricedLevel[], topRows: number, total: number, max: number) {
  const over = `fields may answer ${total} rows at all levels, ${total - max} over maxTreeRows (${max})`;
  let running = topRows;
  if (running > max) return limitExceeded(`${over}: the page alone has ${topRows}`, 'fields');
  for (const { selection, parents, each } of levels) {
    running += parents * each;
    if (running <= max) continue;
    const per = selection.list ? `${selection.list.offset} + ${selection.list.limit}` : '1';
    const why = `${over}: ${selection.path} adds ${parents * each} (${parents} parents × ${per})`;
    return errorAtPosition('limit_exceeded', why, 'fields', selection.span);
  }
  return limitExceeded(over, 'fields');
}
