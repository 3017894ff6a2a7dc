/**
 * The tree memo: a request's nested levels as checked (check.ts), remembered on its ParsedQuery, which the parse
 * memo hands out again for the same request text (request-text.ts). A request seen before then skips checking its
 * levels: their links, sort plans and nested cursor plans come from the memo, sealed with this request's seal.
 *
 * What it may not assume is never remembered: a request with a nested cursor is checked every time (its position is
 * decoded under the request's seal); the entry holds for the engine settings, policy and GraphQL backward lists it
 * was checked under only; the levels' MikroORM filter conditions are read again on every request when the levels
 * are planned (plan.ts), as are the root's. The budget is not here: checkRequest prices every request.
 */
import type { ResolvedSelection } from '../../bind/types.ts';
import { sealedPlan } from '../../keyset/cursor-plan.ts';
import type { CursorSeal } from '../../keyset/cursor-seal.ts';
import type { ParsedQuery } from '../../syntax/ast.ts';
import type { ListContext } from '../config.ts';
import { isRemembered } from '../request-text.ts';
import type { Scope } from '../scope.ts';
import { sealedCursor, type TreeLevel, type TreeLinks } from './check.ts';

interface TreeMemo {
  readonly settings: object;
  readonly bound: object;
  /** The GraphQL lists read backward, as a key ('-': none given, REST). */
  readonly lists: string;
  /** The levels checked without a seal. */
  readonly checked: TreeLinks;
}

const memos = new WeakMap<ParsedQuery, TreeMemo>();
let hits = 0;

/** How many requests took their levels from the memo so far (tests tell the two paths apart by it). */
export function treeMemoHits(): number {
  return hits;
}

/**
 * A request's checked levels: `check(seal)` as it stands, or, for a request the parse memo hands out again (no
 * nested cursor, statements compiled), the levels remembered from its first check, sealed with `seal`.
 */
export function checkedLevels<C extends ListContext>(
  scope: Scope<C>,
  parsed: ParsedQuery | undefined,
  selections: readonly ResolvedSelection[],
  backwardLists: ReadonlySet<string> | undefined,
  seal: CursorSeal | undefined,
  check: (seal: CursorSeal | undefined) => TreeLinks,
): TreeLinks {
  const { settings } = scope;
  if (!parsed || !settings.compileStatements || !isRemembered(parsed) || hasCursor(selections)) return check(seal);
  const lists = backwardLists === undefined ? '-' : JSON.stringify([...backwardLists].sort());
  const known = memos.get(parsed);
  if (known && known.settings === settings && known.bound === scope.bound && known.lists === lists) {
    hits++;
    return resealed(known.checked, seal);
  }
  const checked = check(undefined);
  memos.set(parsed, { settings, bound: scope.bound, lists, checked });
  return resealed(checked, seal);
}

/** Whether a selection (at any depth) carries a nested cursor. */
function hasCursor(selections: readonly ResolvedSelection[]): boolean {
  return selections.some((s) => s.list?.cursor !== undefined || hasCursor(s.children));
}

/** Levels checked without a seal, as checkLevels() gives them under `seal`: every list's plans sealed with it. */
function resealed(links: TreeLinks, seal: CursorSeal | undefined): TreeLinks {
  if (seal === undefined) return links;
  const reseal = (level: TreeLevel): TreeLevel => {
    const children = level.children.map(reseal);
    const list = level.list;
    if (!list) return { ...level, children };
    const sealed = { ...list, plan: sealedPlan(list.plan, seal), cursor: sealedCursor(list.cursor, seal) };
    return { ...level, children, list: sealed };
  };
  return { levels: links.levels.map(reseal), links: links.links };
}
