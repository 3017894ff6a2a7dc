/**
 * Everything a client can get wrong in a list request, checked before any query and in the order the client would
 * fix it: count and search allowed, the filter and sort resolved against the policy, the cost budget, paging, and
 * the cursor against the sort's plan (a walk, `reuse`, follows nextCursor forward only).
 */
import { checkBudget, checkTreeBudget } from '../../bind/cost.ts';
import { resolveQuery } from '../../bind/index.ts';
import type { BoundRelation, ResolvedQuery } from '../../bind/types.ts';
import { invalidCursor, invalidParameter, WALK_BACKWARD } from '../../errors.ts';
import { type CursorValue, decodePosition } from '../../keyset/cursor-codec.ts';
import { type CursorPlan, cursorPlanFor, expectationOf, sealedPlan } from '../../keyset/cursor-plan.ts';
import { cursorSealOf } from '../../keyset/cursor-seal.ts';
import { effectiveSort } from '../../plan/order.ts';
import { type Paging, resolvePaging } from '../../plan/paging.ts';
import type { ParsedQuery } from '../../syntax/ast.ts';
import type { ListContext } from '../config.ts';
import { checkEstimateAvailable } from '../count/estimate.ts';
import type { Scope } from '../scope.ts';

/** A request that passed every check: what it resolved to, its paging, its sort's cursor plan and position. */
export interface CheckedRequest {
  readonly resolved: ResolvedQuery;
  readonly paging: Paging;
  readonly plan: CursorPlan;
  readonly after: readonly CursorValue[] | undefined;
  readonly backward: boolean;
}

/**
 * Check a parsed request against its scope's policy and settings, throwing the client's ListError; run nothing.
 * `ctx.cursorScope` binds the request's cursors (with the engine's `cursorSecret`): the plan returned signs or
 * seals every cursor it encodes, and only such cursors are read.
 */
export function checkRequest<C extends ListContext>(
  scope: Scope<C>,
  parsed: ParsedQuery,
  reuse: boolean,
  pageSize: number | undefined,
  ctx: C,
): CheckedRequest {
  const { settings, bound, keys } = scope;
  if (parsed.count === true && !settings.allowCount)
    throw invalidParameter('count', 'count is not enabled for this endpoint');
  if (parsed.count === 'estimated') {
    if (!settings.allowEstimatedCount)
      throw invalidParameter('count', 'estimated counts are not enabled for this endpoint');
    checkEstimateAvailable(keys.dialect);
  }
  if (parsed.search !== undefined && !settings.search)
    throw invalidParameter('search', 'search is not enabled for this endpoint');
  const requested = resolveQuery(bound, parsed, {
    maxOffset: settings.paging.maxOffset,
    maxSelectionDepth: settings.limits.maxSelectionDepth,
    maxFacetValues: settings.limits.maxFacetValues,
  });
  // No `sort`: the engine's defaultSort, if any (the cursor signature then comes from it); else the primary key.
  const resolved =
    parsed.sort === undefined && scope.defaultSort ? { ...requested, sort: scope.defaultSort } : requested;
  // The cost budget bounds what the client asked for; the developer's defaultSort is not charged to it.
  // The database and the order actually read decide whether a page is one statement or a UNION ALL of branches.
  const primaryKey = bound.primaryKey.map((k) => k.column);
  checkBudget(requested, settings.limits, { dialect: keys.dialect, sort: resolved.sort, primaryKey });
  const checked = resolvePaging(resolved, settings.paging);
  const paging = pageSize === undefined ? checked : { ...checked, limit: pageSize };
  // Nested selections: the rows of every level together, priced on the page size actually read.
  checkTreeBudget(resolved.selections, paging.limit, settings.limits);
  // Relation keys get a stand-in alias per path here (the planner names the real joins later): same keys, same order.
  const derived = cursorPlanFor(keys, resolved.sort, () => effectiveSort(bound, resolved.sort, pathAlias));
  const plan = sealedPlan(derived, cursorSealOf(settings.cursors, ctx.cursorScope));
  // A walk (`reuse`) follows nextCursor forward only: a backward cursor is refused there, saying so.
  const position =
    resolved.cursor === undefined
      ? undefined
      : decodePosition(resolved.cursor, expectationOf(plan, settings.limits.maxCursorBytes));
  if (reuse && position?.backward) throw invalidCursor(WALK_BACKWARD);
  return { resolved, paging, plan, after: position?.keys, backward: position?.backward ?? false };
}

/** A stand-in alias per relation path (the planner names the real joins later): same keys, same order. */
function pathAlias(relations: readonly BoundRelation[]): string {
  return `path:${relations.map((r) => r.property).join('/')}`;
}
