import type { BoundSchema, ResolvedSortTerm } from '../bind/types.ts';
import { setBounded } from '../bounded-map.ts';
import type { Dialect } from '../dialect/index.ts';
import type { SortKey } from '../plan/order.ts';
import { type CursorExpectation, type CursorKeySpec, type CursorValue, encodeCursor } from './cursor-codec.ts';
import type { CursorSeal } from './cursor-seal.ts';
import { keyHolds } from './key-holds.ts';
import { aggregateShape, type KeyShape, shapeOfField } from './key-shape.ts';
import { cursorTypeOf } from './key-values.ts';
import { sortSignature } from './sort-signature.ts';

/** One effective sort key with what its cursor value needs: the column's shape and the key's JSON spec. */
export interface CursorKey {
  readonly sort: SortKey;
  readonly shape: KeyShape;
  readonly spec: CursorKeySpec;
}

/**
 * The cursor side of an effective sort: its keys and the opaque signatures a cursor must carry, one for a position
 * to continue after (forward) and one for a position to page back from (backward).
 */
export interface CursorPlan {
  readonly keys: readonly CursorKey[];
  readonly signature: string;
  readonly backwardSignature: string;
  /**
   * The request's seal when the engine has a `cursorSecret`: cursorAfter and cursorBefore sign or seal with it. It
   * is never part of a remembered plan: the request attaches it (sealedPlan).
   */
  readonly seal?: CursorSeal | undefined;
}

/** The extra signed part of a backward cursor: the same sort with this marker never hashes like a forward one. */
const BACKWARD = 'backward';

/** What deriving a cursor plan needs from the engine: the bound root, its dialect and primary-key shapes. */
export interface KeyContext {
  readonly bound: BoundSchema;
  readonly dialect: Dialect;
  readonly primaryKey: ReadonlyMap<string, KeyShape>;
  /** Cursor plans already derived, by sort (see sortKeyOf); a bounded memo of a pure function. */
  readonly plans: Map<string, CursorPlan>;
}

/**
 * Plans remembered per engine, the oldest forgotten first: a policy allows many sorts, so the memo is bounded; one
 * plan forgotten at a time (rather than all at the bound) spares the sorts in use a burst of derivations.
 */
const MAX_PLANS = 256;

/**
 * Return the cursor plan of the requested sort terms, derived once per distinct sort and engine. The memo key
 * holds every input of the plan (relation path, property, column, kind, direction per term), so equal keys give
 * equal plans. A failing derivation (a to-many sort) is never remembered: it throws with the request's position.
 */
export function cursorPlanFor(
  ctx: KeyContext,
  terms: readonly ResolvedSortTerm[],
  derive: () => readonly SortKey[],
): CursorPlan {
  const key = terms
    .map((t) => {
      if (t.aggregate) return `agg\u0000${t.aggregate.text}\u0000${t.direction}${t.nullsFirst ? ' nulls first' : ''}`;
      const { relations, field } = t.target;
      const order = `${t.direction}${t.nullsFirst ? ' nulls first' : ''}${t.caseInsensitive ? ' ci' : ''}`;
      return `${relations.map((r) => r.property).join('/')}\u0000${field.property}\u0000${field.column}\u0000${field.kind}\u0000${order}`;
    })
    .join('\u0001');
  const known = ctx.plans.get(key);
  if (known) return known;
  const plan = cursorPlanOf(ctx, derive());
  setBounded(ctx.plans, key, plan, MAX_PLANS);
  return plan;
}

/**
 * Derive the cursor plan of an effective sort. The signature covers the root entity and, per key, its table,
 * column, join path (relation property names), field kind and order (direction, NULLs first, case-insensitive):
 * the same effective sort always gives the same signature, and any change to it gives another. The dialect is not
 * signed: each key must be in the form this dialect writes (see key-holds.ts), so a key written in another dialect's
 * form is refused by construction. The backward signature hashes the same parts and one more, a direction marker:
 * a forward and a backward cursor of one sort never share a signature, and a forward sort has 1 + 5n parts, so no
 * forward sort can hash like it either.
 */
export function cursorPlanOf(ctx: KeyContext, sort: readonly SortKey[]): CursorPlan {
  const parts: string[] = [ctx.bound.meta.className];
  const keys = sort.map((key): CursorKey => {
    const term = key.term;
    const relations = (term?.aggregate ? term.aggregate.relations : term?.target.relations) ?? [];
    const shape = term
      ? term.aggregate
        ? aggregateShape(term.aggregate, ctx.dialect)
        : shapeOfField(term.target.field, ctx.dialect)
      : ctx.primaryKey.get(key.column);
    if (!shape) throw new Error(`listql: no shape for sort key column ${key.column}`);
    const table = relations.at(-1)?.target.meta.tableName ?? ctx.bound.meta.tableName;
    // An aggregate key signs its canonical text (path, function, field, inner filter) where a column key signs its
    // column, after an `aggregate` mark, so that it hashes like no column key.
    const column = term?.aggregate ? `aggregate ${term.aggregate.text}` : key.column;
    parts.push(table, column, relations.map((r) => r.property).join('/'), shape.kind, orderPart(key));
    const holds = (value: string | number | boolean) => keyHolds(value, shape, ctx.dialect);
    return { sort: key, shape, spec: { type: cursorTypeOf(shape, ctx.dialect), nullable: key.nullable, holds } };
  });
  return { keys, signature: sortSignature(parts), backwardSignature: sortSignature([...parts, BACKWARD]) };
}

/**
 * A key's order as signed: its direction, then ` nulls first` when its NULLs come first, ` ci` when it is
 * case-insensitive. A default key signs its direction alone, as before either existed, so its cursors still hold.
 */
function orderPart(key: SortKey): string {
  return `${key.direction}${key.nullable && key.nullsFirst ? ' nulls first' : ''}${key.caseInsensitive ? ' ci' : ''}`;
}

/** Encode the cursor that continues after a row's keys (signed or sealed when the plan carries a seal). */
export function cursorAfter(plan: CursorPlan, values: readonly CursorValue[]): string {
  return encodeCursor(plan.signature, values, plan.seal);
}

/** Encode the cursor that pages back from a row's keys: the rows strictly before it. */
export function cursorBefore(plan: CursorPlan, values: readonly CursorValue[]): string {
  return encodeCursor(plan.backwardSignature, values, plan.seal);
}

/** The plan of one request: the same plan with the request's seal (or none), so its cursors are signed or sealed. */
export function sealedPlan(plan: CursorPlan, seal: CursorSeal | undefined): CursorPlan {
  return seal === undefined ? plan : { ...plan, seal };
}

/** What a cursor of this plan must match to be read (decodePosition): signatures, key specs, size and seal. */
export function expectationOf(plan: CursorPlan, maxCursorBytes: number): CursorExpectation {
  return {
    signature: plan.signature,
    backwardSignature: plan.backwardSignature,
    keys: plan.keys.map((k) => k.spec),
    maxCursorBytes,
    seal: plan.seal,
  };
}
