/**
 * Nested selections (`fields=id,author(name),reviews(stars)`): after the top page's rows are read, each selected
 * relation is one level, read for all its parents by one statement (one more with `<path>.count=true`), its items
 * attached to their parents' items. See run.ts for the order, statement.ts for the SQL, check.ts for what is refused
 * before any statement.
 */
import type { ResolvedSelection } from '../../bind/types.ts';
import type { CursorValue } from '../../keyset/cursor-codec.ts';
import type { CursorKey } from '../../keyset/cursor-plan.ts';
import type { CursorSeal } from '../../keyset/cursor-seal.ts';
import type { AnyQueryBuilder } from '../../plan/plan-query.ts';
import type { FieldSelection, ParsedQuery } from '../../syntax/ast.ts';
import type { ListContext } from '../config.ts';
import { type ExplainedLevel, explainStatement } from '../describe/explain.ts';
import type { Scope } from '../scope.ts';
import type { Item } from '../serialize.ts';
import { checkLevels } from './check.ts';
import { linkAlias, selectKeyColumns, takeKeyColumns } from './link.ts';
import { checkedLevels } from './memo.ts';
import { type PlannedLevel, planLevels } from './plan.ts';
import { Lanes, runLevels, type TreeRun } from './run.ts';
import { explainedLevel } from './statement.ts';

export { NESTED_CURSORS, type NestedPage, type NestedPageInfo } from './attach.ts';
export type { TreeRun } from './run.ts';

/** A request's nested levels, checked and planned, and the link columns its top page's rows must carry. */
export interface Tree {
  readonly levels: readonly PlannedLevel[];
  readonly links: readonly CursorKey[];
}

/**
 * Check and plan a request's nested selections: every client error (a nested cursor of another list, sort or
 * endpoint is `invalid_cursor` naming `<path>.cursor`) is thrown before any statement, then each level's statements
 * are planned once (a walk reuses them on every page). `seal`: the request's cursor seal, if any; `backwardLists`:
 * for GraphQL edges, the lists read backward (see TreeCheckContext). `parsed`: the request, on which its checked
 * levels are remembered when the parse memo hands it out again (memo.ts).
 */
export async function openTree<C extends ListContext>(
  scope: Scope<C>,
  selections: readonly ResolvedSelection[],
  seal: CursorSeal | undefined,
  backwardLists?: ReadonlySet<string>,
  parsed?: ParsedQuery,
): Promise<Tree> {
  const metadata = scope.em.getMetadata();
  const maxCursorBytes = scope.settings.limits.maxCursorBytes;
  const check = (sealed: CursorSeal | undefined) =>
    checkLevels({ metadata, seal: sealed, maxCursorBytes, backwardLists }, scope.keys, selections);
  const checked = checkedLevels(scope, parsed, selections, backwardLists, seal, check);
  return { levels: await planLevels(scope, checked.levels), links: checked.links };
}

/** Make the top page's query read the columns the levels find their parents by (`lq_l0`, …). */
export function selectTreeLinks<C extends ListContext>(qb: AnyQueryBuilder, tree: Tree, scope: Scope<C>): void {
  selectKeyColumns(qb, qb.alias, tree.links, linkAlias, scope.keys);
}

/** Take a top-level row's link values out of it (before its item is written). */
export function takeTreeLinks(row: Record<string, unknown>, tree: Tree): CursorValue[] {
  return takeKeyColumns(row, tree.links, linkAlias);
}

/**
 * Run every level under the top page's items (`links[i]` are the link values of `items[i]`'s row). Sibling levels
 * run side by side (up to treeLanes() statements at once, each on its own pooled connection) where the database
 * serves statements at once and no transaction holds the request to one connection; else one after another.
 */
export async function fillTree(
  run: TreeRun,
  tree: Tree,
  items: readonly Item[],
  links: readonly (readonly CursorValue[])[],
): Promise<void> {
  const first = tree.levels[0];
  const shared = run.connection !== undefined && first !== undefined && !first.target.dialect.inProcess;
  await runLevels(
    run,
    tree.levels,
    items.map((item, i) => ({ item, links: links[i] ?? [] })),
    shared ? new Lanes(widest(tree.levels)) : undefined,
  );
}

/** The most statements one request's nested levels send at once, whatever the tree (PostgreSQL, MariaDB). */
export const MAX_LANES = 4;

/** The lanes a tree's levels take: its widest set of sibling levels, at most MAX_LANES. */
function widest(levels: readonly PlannedLevel[]): number {
  let most = levels.length;
  for (const level of levels) most = Math.max(most, widest(level.children));
  return Math.min(MAX_LANES, most);
}

/**
 * The connections a parsed request's nested levels may hold at once (its widest set of sibling selections, at most
 * MAX_LANES; 1 without nested selections): what admission gives it as slots. `inProcess` (SQLite): levels never overlap there.
 */
export function treeLanes(fields: readonly FieldSelection[] | undefined, inProcess: boolean): number {
  if (inProcess || !fields) return 1;
  const width = (selections: readonly FieldSelection[]): number => {
    let nested = 0;
    let most = 1;
    for (const field of selections)
      if (field.children) {
        nested++;
        most = Math.max(most, width(field.children));
      }
    return Math.max(most, nested);
  };
  return Math.min(MAX_LANES, width(fields));
}

/** Build every level's statements in the order a fetch sends them (each level, then its children), running none. */
export async function explainTree(tree: Tree): Promise<ExplainedLevel[]> {
  const out: ExplainedLevel[] = [];
  const visit = async (levels: readonly PlannedLevel[]): Promise<void> => {
    for (const level of levels) {
      const { data, count } = await explainedLevel(level);
      out.push({
        path: level.selection.path,
        ...(data ? { data: await explainStatement(data, 'all') } : {}),
        ...(count ? { count: await explainStatement(count, 'all') } : {}),
      });
      await visit(level.children);
    }
  };
  await visit(tree.levels);
  return out;
}
