import type { MetadataStorage } from '@mikro-orm/core';
import type { BoundRelation, ResolvedNestedList, ResolvedSelection } from '../../bind/types.ts';
import type { CursorKey, CursorPlan, KeyContext } from '../../keyset/cursor-plan.ts';
import { cursorPlanFor, sealedPlan } from '../../keyset/cursor-plan.ts';
import type { CursorSeal } from '../../keyset/cursor-seal.ts';
import {
  decodeNestedCursor,
  type NestedCursorPlan,
  type NestedPosition,
  nestedCursorPlan,
} from '../../keyset/nested-cursor.ts';
import { effectiveSort } from '../../plan/order.ts';
import type { Paging } from '../../plan/paging.ts';
import { keyContextOf, type LevelLink, levelLink } from './link.ts';

/**
 * One nested selection, checked before any statement: how its rows point at their parents, where the parent rows
 * carry that key, what its own rows carry for its children, and for a list, its page, sort plan and cursor.
 */
export interface TreeLevel {
  readonly selection: ResolvedSelection;
  /** The target's key context: its bound schema, dialect and primary-key shapes. */
  readonly target: KeyContext;
  readonly link: LevelLink;
  /** Where a parent row carries this level's parent key: indexes into the parent's link columns. */
  readonly from: readonly number[];
  /** The link columns this level's rows carry for its own children (see TreeLinks). */
  readonly links: readonly CursorKey[];
  readonly children: readonly TreeLevel[];
  /** To-many only: each parent's page. */
  readonly list?: TreeList;
}

/** A nested list's page, sort and cursor, checked. */
export interface TreeList {
  readonly list: ResolvedNestedList;
  readonly paging: Required<Paging>;
  /** The level's sort plan (relation keys under stand-in aliases; the planner names the real joins). */
  readonly plan: CursorPlan;
  readonly cursor: NestedCursorPlan;
  /**
   * Every parent's list is read from its end (GraphQL `last`): the rows nearest the end, or nearest before the cursor
   * for the continued parent, in mirrored order (see TreeCheckContext.backwardLists).
   */
  readonly backward: boolean;
  /** The request's `<path>.cursor`, decoded: it continues one parent's list (backward when its token says so). */
  readonly position?: NestedPosition;
}

/** The levels under one set of parent rows, and the link columns those rows must carry for them. */
export interface TreeLinks {
  readonly levels: readonly TreeLevel[];
  /** Distinct parent columns the levels need, in order: a parent row carries them as `lq_l0`, `lq_l1`, … */
  readonly links: readonly CursorKey[];
}

/** What checking a tree needs from the request: the ORM's metadata, the cursor seal and size bound. */
export interface TreeCheckContext {
  readonly metadata: MetadataStorage;
  readonly seal: CursorSeal | undefined;
  readonly maxCursorBytes: number;
  /**
   * GraphQL edges: the paths of the lists read backward (`last`, `before`); every other list is read forward, and a
   * cursor's position is its keys whatever direction its token names, as the top level's `backward` option does.
   * Undefined (REST): each list forward, a cursor continuing its parent's list in its token's direction.
   */
  readonly backwardLists?: ReadonlySet<string> | undefined;
}

/**
 * Check the nested selections under parents of `parent` (the root, then each level's target), throwing the client's
 * ListError (a nested cursor of another list or sort is `invalid_cursor` naming `<path>.cursor`) or `invalid_schema`
 * for a relation a nested level cannot follow; runs nothing.
 */
export function checkLevels(
  ctx: TreeCheckContext,
  parent: KeyContext,
  selections: readonly ResolvedSelection[],
): TreeLinks {
  const links: CursorKey[] = [];
  const index = new Map<string, number>();
  const levels = selections.map((selection): TreeLevel => {
    const target = keyContextOf(selection.relation.target, parent.dialect);
    const link = levelLink(selection.relation, parent, target, ctx.metadata);
    const from = link.outer.map((key) => {
      let at = index.get(key.sort.column);
      if (at === undefined) {
        at = links.length;
        links.push(key);
        index.set(key.sort.column, at);
      }
      return at;
    });
    const nested = checkLevels(ctx, target, selection.children);
    const list = checkList(ctx, parent, target, link, selection);
    return {
      selection,
      target,
      link,
      from,
      links: nested.links,
      children: nested.levels,
      ...(list === undefined ? {} : { list }),
    };
  });
  return { levels, links };
}

function checkList(
  ctx: TreeCheckContext,
  parent: KeyContext,
  target: KeyContext,
  link: LevelLink,
  selection: ResolvedSelection,
): TreeList | undefined {
  const { list, relation } = selection;
  if (relation.cardinality === 'one') {
    if (list) throw new Error(`listql: the to-one selection ${selection.path} carries list parameters`);
    return undefined;
  }
  if (!list) throw new Error(`listql: the to-many selection ${selection.path} carries no list parameters`);
  const derived = cursorPlanFor(target, list.sort, () => effectiveSort(target.bound, list.sort, pathAlias));
  const plan = sealedPlan(derived, ctx.seal);
  const cursor = sealedCursor(unsealedCursor(derived, link, parent.bound.meta.className, selection), ctx.seal);
  const decoded = list.cursor === undefined ? undefined : decodeNestedCursor(list.cursor, cursor, ctx.maxCursorBytes);
  const backward = ctx.backwardLists?.has(selection.path) === true;
  // A list read backward as a whole takes a cursor's keys as the position to read before, whatever its token says.
  const position = decoded && (ctx.backwardLists === undefined ? decoded : { ...decoded, backward });
  return {
    list,
    paging: { limit: list.limit, offset: list.offset },
    plan,
    cursor,
    backward,
    ...(position === undefined ? {} : { position }),
  };
}

/** A stand-in alias per relation path (the planner names the real joins later): same keys, same order. */
function pathAlias(relations: readonly BoundRelation[]): string {
  return `path:${relations.map((r) => r.property).join('/')}`;
}

/**
 * The nested cursor plans of each derived sort plan (which cursorPlanFor keeps per target and sort), by the list's
 * parent entity, relation and path: their signatures are hashed once, not on every request.
 */
const cursorPlans = new WeakMap<CursorPlan, Map<string, NestedCursorPlan>>();

function unsealedCursor(
  derived: CursorPlan,
  link: LevelLink,
  parentEntity: string,
  selection: ResolvedSelection,
): NestedCursorPlan {
  let known = cursorPlans.get(derived);
  if (!known) {
    known = new Map();
    cursorPlans.set(derived, known);
  }
  const relation = selection.relation.property;
  const name = JSON.stringify([
    parentEntity,
    relation,
    selection.path,
    link.outer.map((k) => [k.sort.column, k.spec.type]),
  ]);
  let plan = known.get(name);
  if (!plan) {
    plan = nestedCursorPlan(derived, link.outer, { parentEntity, relation, path: selection.path });
    known.set(name, plan);
  }
  return plan;
}

/** A nested cursor plan with the request's seal, as nestedCursorPlan() gives it for a sealed level plan. */
export function sealedCursor(plan: NestedCursorPlan, seal: CursorSeal | undefined): NestedCursorPlan {
  return seal === undefined ? plan : { ...plan, combined: { ...plan.combined, seal } };
}
