/**
 * Everything a client can get wrong in a list request, checked before any query and in the order the client would
 * fix it: count and search allowed, the filter and sort resolved against the policy, the cost budget, paging, and
 * the cursor against the sort's plan (a walk, `reuse`, follows nextCursor forward only).
 */
import { checkBudget } from '../../bind/cost.ts';
import { resolveQuery } from '../../bind/index.ts';
import type { BoundRelation, ResolvedQuery } from '../../bind/types.ts';
import { invalidCursor, invalidParameter, WALK_BACKWARD } from '../../errors.ts';
import { type CursorValue, decodePosition } from '../../keyset/cursor-codec.ts';
import { type CursorPlan, cursorPlanFor } from '../../keyset/cursor-plan.ts';
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

/** Check a parsed request against its scope's policy and settings, throwing the client's ListError; run nothing. */
export function checkRequest<C extends ListContext>(
  scope: Scope<C>,
  parsed: ParsedQuery,
  reuse: boolean,
  pageSize: number | undefined,
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
  const requested = resolveQuery(bound, parsed);
  // No `sort`: the engine's defaultSort, if any (the cursor signature then comes from it); else the primary key.
  const resolved =
    parsed.sort === undefined && scope.defaultSort ? { ...requested, sort: scope.defaultSort } : requested;
  // The cost budget bounds what the client asked for; the developer's defaultSort is not charged to it.
  checkBudget(requested, settings.limits);
  const checked = resolvePaging(resolved, settings.paging);
  const paging = pageSize === undefined ? checked : { ...checked, limit: pageSize };
  // Relation keys get a stand-in alias per path here (the planner names the real joins later): same keys, same order.
  const plan = cursorPlanFor(keys, resolved.sort, () => effectiveSort(bound, resolved.sort, pathAlias));
  // A walk (`reuse`) follows nextCursor forward only: a backward cursor is refused there, saying so.
  const position =
    resolved.cursor === undefined
      ? undefined
      : decodePosition(resolved.cursor, {
          signature: plan.signature,
          backwardSignature: plan.backwardSignature,
          keys: plan.keys.map((k) => k.spec),
          maxCursorBytes: settings.limits.maxCursorBytes,
        });
  if (reuse && position?.backward) throw invalidCursor(WALK_BACKWARD);
  return { resolved, paging, plan, after: position?.keys, backward: position?.backward ?? false };
}

/** A stand-in alias per relation path (the planner names the real joins later): same keys, same order. */
function pathAlias(relations: readonly BoundRelation[]): string {
  return `path:${relations.map((r) => r.property).join('/')}`;
}
