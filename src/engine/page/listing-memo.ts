/**
 * The request memo: what opening a listing derives from its parameters alone, remembered on the parsed request
 * (the parse memo of request-text.ts hands the same ParsedQuery to the same parameters, from their second sending). A request seen before then
 * skips resolving, pricing and paging (checkRequest), the shape text and the filter's compiled fragment, and goes
 * straight to its compiled statement (compiled-page.ts).
 *
 * What it may not assume is checked on every request, never remembered: the cursor seal (from `ctx.cursorScope`,
 * attached afresh), the cursor's position (decoded against the remembered cursor plan with that seal, so its
 * direction, its age and any refusal are this request's own), the MikroORM filter conditions in force (the root's
 * and each related entity's, read again from the EntityManager and compared as keys), and the base scope (its
 * builderKey and filter options name the entry). A memo holds no cursor: whether the request has one is part of what
 * it remembers (the cost budget reads that), and a request with a cursor reaches it either as the same parameters
 * again or through the cursor mask (request-mask.ts), which keys requests without their cursor's value. A walk's own
 * page size, a search, or compiling switched off are not remembered. Nested selections are: engine/tree/ decodes a
 * nested cursor under each request's seal, and its own memo keeps the checked levels (engine/tree/memo.ts).
 */
import type { EntityProperty } from '@mikro-orm/core';
import { withLiterals } from '../../bind/literal-slots.ts';
import type { BoundSchema, ResolvedFilter, ResolvedQuery } from '../../bind/types.ts';
import { setNewest } from '../../bounded-map.ts';
import { invalidCursor, WALK_BACKWARD } from '../../errors.ts';
import { decodePosition } from '../../keyset/cursor-codec.ts';
import { type CursorPlan, expectationOf, sealedPlan } from '../../keyset/cursor-plan.ts';
import { cursorSealOf } from '../../keyset/cursor-seal.ts';
import { plainKey } from '../../orm/plain-key.ts';
import type { FilterConditions } from '../../plan/entity-filters.ts';
import type { SqlFragment } from '../../plan/fragment.ts';
import type { Paging } from '../../plan/paging.ts';
import type { ApplyOptions } from '../../plan/plan-query.ts';
import type { ParsedQuery } from '../../syntax/ast.ts';
import type { ListContext } from '../config.ts';
import {
  countCursorHit,
  countLiteralHit,
  cursorsRemembered,
  hitLiterals,
  type LiteralHit,
  literalHit,
} from '../request-mask.ts';
import { isRemembered } from '../request-text.ts';
import type { Scope } from '../scope.ts';
import { type CheckedRequest, checkRequest } from './check-request.ts';
import { baseKey, conditionsKey } from './compiled-page.ts';
import { relatedConditions } from './related-conditions.ts';

/** A remembered request of one engine: its checks' outcome and, per base scope, its statement's shape. */
export interface RequestMemo {
  readonly settings: object;
  readonly bound: BoundSchema;
  readonly defaultSort: unknown;
  /** Whether the request had a cursor (its value is not kept: each request decodes its own). */
  readonly cursor: boolean;
  /** The resolved request without its cursor. */
  readonly resolved: ResolvedQuery;
  readonly paging: Paging;
  /** The cursor plan without any request's seal. */
  readonly plan: CursorPlan;
  /** By base scope (scopeKey), most recently used last. */
  readonly shapes: Map<string, ShapeMemo>;
  /**
   * Set on the memo of a request served by its template's (request-mask.ts): the shapes are the template's, whose
   * remembered filter fragments hold the template's values, so the filter's fragment is computed afresh.
   */
  readonly relit?: true;
}

/** The statement side of a remembered request on one base scope. */
export interface ShapeMemo {
  /** The MikroORM filter conditions the shape was derived under (conditionsKey). */
  readonly conditions: string;
  /** The related entities whose conditions were read, in the order they were read. */
  readonly relations: readonly EntityProperty[];
  readonly shape: string;
  readonly filter: SqlFragment | undefined;
  /** Statement keys by position (compiled-data.ts). */
  readonly keys: Map<string, string>;
}

/** Base scopes remembered per request: a multi-tenant API sends one text under many tenants' scopes. */
const MAX_SCOPES = 8;

const memos = new WeakMap<ParsedQuery, RequestMemo>();
const scopeKeys = new WeakMap<object, string | null>();

/**
 * Check a request as checkRequest() does, or take the outcome of its earlier check (same engine, no walk page size)
 * with this request's seal attached and its own cursor decoded. The memo is returned when the request may use it.
 * GraphQL's nested lists read backward change nothing remembered here (engine/tree/ reads them).
 */
export function checkRemembered<C extends ListContext>(
  scope: Scope<C>,
  parsed: ParsedQuery,
  reuse: boolean,
  pageSize: number | undefined,
  ctx: C,
): { readonly checked: CheckedRequest; readonly memo?: RequestMemo | undefined } {
  const { settings } = scope;
  const eligible =
    settings.compileStatements &&
    pageSize === undefined &&
    (parsed.cursor === undefined || cursorsRemembered()) &&
    parsed.search === undefined;
  if (!eligible) return { checked: checkRequest(scope, parsed, reuse, pageSize, ctx) };
  const known = rememberedFor(scope, parsed);
  if (known) return { checked: checkedBy(scope, known, parsed.cursor, reuse, ctx), memo: known };
  const checked = checkRequest(scope, parsed, reuse, pageSize, ctx);
  // Only a request the parse memo hands out again is worth remembering (request-text.ts).
  if (!isRemembered(parsed)) return { checked };
  const { seal: _seal, ...plan } = checked.plan;
  const { cursor: _cursor, ...resolved } = checked.resolved;
  const memo: RequestMemo = {
    settings,
    bound: scope.bound,
    defaultSort: scope.defaultSort,
    cursor: parsed.cursor !== undefined,
    resolved,
    paging: checked.paging,
    plan,
    shapes: new Map(),
  };
  memos.set(parsed, memo);
  return { checked, memo };
}

/**
 * The remembered checks a request may take: its own ParsedQuery's (the same parameters again), its template's when
 * only its cursor was masked, or its template's with its literals re-resolved (relitRequest).
 */
function rememberedFor<C extends ListContext>(scope: Scope<C>, parsed: ParsedQuery): RequestMemo | undefined {
  const own = memos.get(parsed);
  if (own) return holds(scope, own, parsed) ? own : undefined;
  const hit = literalHit(parsed);
  if (!hit) return undefined;
  if (hit.literals.length > 0) return relitRequest(scope, parsed, hit);
  const known = memos.get(hit.template);
  return known && holds(scope, known, parsed) ? known : undefined;
}

/** Whether a memo was made on this engine and scope, for a request with a cursor exactly when this one has one. */
function holds<C extends ListContext>(scope: Scope<C>, memo: RequestMemo, parsed: ParsedQuery): boolean {
  return (
    memo.settings === scope.settings &&
    memo.bound === scope.bound &&
    memo.defaultSort === scope.defaultSort &&
    memo.cursor === (parsed.cursor !== undefined)
  );
}

/**
 * A request checked by its memo: the remembered outcome with this request's seal attached and, when it has a cursor,
 * that cursor decoded against the remembered plan as checkRequest() decodes it (same expectation, same refusals).
 */
function checkedBy<C extends ListContext>(
  scope: Scope<C>,
  memo: RequestMemo,
  cursor: string | undefined,
  reuse: boolean,
  ctx: C,
): CheckedRequest {
  const { settings } = scope;
  const plan = sealedPlan(memo.plan, cursorSealOf(settings.cursors, ctx.cursorScope));
  const { resolved, paging } = memo;
  if (cursor === undefined) return { resolved, paging, plan, after: undefined, backward: false };
  const position = decodePosition(cursor, expectationOf(plan, settings.limits.maxCursorBytes));
  if (reuse && position.backward) throw invalidCursor(WALK_BACKWARD);
  countCursorHit();
  return { resolved: { ...resolved, cursor }, paging, plan, after: position.keys, backward: position.backward };
}

/**
 * The memo of a request's template (request-mask.ts) with this request's literals re-resolved into the template's
 * resolved filter, marked `relit`: its shapes are the template's, its filter values its own. Undefined when the
 * template has no memo on this engine, or a literal does not re-resolve as it stands (refused, or changing the
 * filter's structure): the request is then checked afresh.
 */
function relitRequest<C extends ListContext>(
  scope: Scope<C>,
  parsed: ParsedQuery,
  hit: LiteralHit,
): RequestMemo | undefined {
  const known = memos.get(hit.template);
  const node = hit.template.filter;
  if (!known || !node || !known.resolved.filter || !holds(scope, known, parsed)) return undefined;
  let filter: ResolvedFilter | undefined;
  try {
    filter = withLiterals(scope.bound, node, known.resolved.filter, hitLiterals(hit, node.span));
  } catch {
    // Refused: the ordinary path parses this request and refuses it there, located in its own text.
    return undefined;
  }
  if (filter === undefined) return undefined;
  countLiteralHit();
  return { ...known, resolved: { ...known.resolved, filter }, relit: true };
}

/** What a scope contributes to a remembered shape's name: its base's builderKey and its filter options. */
function scopeKey<C extends ListContext>(scope: Scope<C>): string | undefined {
  let key = scopeKeys.get(scope);
  if (key === undefined) {
    const base = baseKey(scope);
    const filters = plainKey(scope.filters ?? null);
    key = base === undefined || filters === undefined ? null : `${filters}\u0001${base}`;
    scopeKeys.set(scope, key);
  }
  return key ?? undefined;
}

/**
 * The remembered shape of a request on this scope when the MikroORM filter conditions in force are still those it
 * was derived under (read again now, for the root and each related entity it read); it then sets
 * `options.filterConditions` to the conditions just read. Undefined otherwise: derive it afresh.
 */
export async function rememberedShape<C extends ListContext>(
  scope: Scope<C>,
  memo: RequestMemo,
  options: ApplyOptions,
): Promise<ShapeMemo | undefined> {
  const key = scopeKey(scope);
  const known = key === undefined ? undefined : memo.shapes.get(key);
  if (!known || key === undefined) return undefined;
  try {
    const fresh = known.relations.length ? await relatedConditions(scope, known.relations) : undefined;
    if ((await conditionsKey(scope, fresh)) !== known.conditions) return undefined;
    setNewest(memo.shapes, key, known, MAX_SCOPES);
    if (fresh) options.filterConditions = fresh;
    return known;
  } catch {
    // A filter that now fails (arguments missing) fails on the ordinary path, with its usual error.
    return undefined;
  }
}

/** Remember a request's shape on this scope, derived under `conditions` (conditionsKey) from `filterConditions`. */
export function rememberShape<C extends ListContext>(
  scope: Scope<C>,
  memo: RequestMemo,
  conditions: string,
  filterConditions: FilterConditions | undefined,
  shape: string,
  filter: SqlFragment | undefined,
): ShapeMemo | undefined {
  const key = scopeKey(scope);
  if (key === undefined) return undefined;
  const relations = [...(filterConditions?.byRelation.keys() ?? [])];
  const remembered: ShapeMemo = { conditions, relations, shape, filter, keys: new Map() };
  setNewest(memo.shapes, key, remembered, MAX_SCOPES);
  return remembered;
}
