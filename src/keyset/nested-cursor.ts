import type { Dialect } from '../dialect/index.ts';
import { invalidCursor, isListError } from '../errors.ts';
import { type CursorValue, decodePosition } from './cursor-codec.ts';
import { type CursorKey, type CursorPlan, cursorAfter, cursorBefore, expectationOf } from './cursor-plan.ts';
import { keyHolds } from './key-holds.ts';
import type { KeyShape } from './key-shape.ts';
import { cursorTypeOf } from './key-values.ts';
import { sortSignature } from './sort-signature.ts';

/**
 * The cursor of one nested list (`reviews` of each book): it continues one parent's list, so it carries that
 * parent's key values before the level's own sort keys, and a signature that names the list. A nested cursor is an
 * ordinary cursor of a combined plan (parent keys, then sort keys): it is encoded by cursorAfter / cursorBefore and
 * read by decodePosition, so whatever those do to a cursor (a seal, its checks) a nested cursor gets too.
 */
export interface NestedCursorPlan {
  /** The combined plan: the parent's key columns first, then the level's sort keys; its signatures name the list. */
  readonly combined: CursorPlan;
  /** How many of the combined keys are the parent's. */
  readonly parentKeys: number;
  /** The request parameter a nested cursor arrives in (`reviews.cursor`), named by its errors. */
  readonly parameter: string;
}

/** What names one nested list, besides its sort: the relation it follows and its output-key path. */
export interface NestedListName {
  /** The entity the relation starts from (the parent's class name). */
  readonly parentEntity: string;
  /** The relation's property on the parent entity. */
  readonly relation: string;
  /** The dotted output-key path of the selection (`reviews`, `best`, `reviews.comments`). */
  readonly path: string;
}

/** The domain of a nested list's signature: no top-level sort signature is derived from these parts. */
const NESTED = 'listql/nested';

/**
 * The key of one parent link column in a nested cursor: a column the list's rows point at the parent by, read and
 * checked like a sort key of its shape (never NULL: a parent's key identifies it).
 */
export function parentKeyOf(column: string, shape: KeyShape, dialect: Dialect): CursorKey {
  return {
    sort: { column, direction: 'asc', nullable: false },
    shape,
    spec: {
      type: cursorTypeOf(shape, dialect),
      nullable: false,
      holds: (value: string | number | boolean) => keyHolds(value, shape, dialect),
    },
  };
}

/**
 * Derive the cursor plan of a nested list from its level's sort plan (with the request's seal) and the parent's key
 * columns. Its signatures hash the parent entity, the relation, the path and the level's own signature (forward or
 * backward), so a cursor of another list, another path or another sort, or a top-level cursor, is never read as
 * this one's.
 */
export function nestedCursorPlan(
  level: CursorPlan,
  parent: readonly CursorKey[],
  name: NestedListName,
): NestedCursorPlan {
  const parts = [NESTED, name.parentEntity, name.relation, name.path];
  return {
    combined: {
      keys: [...parent, ...level.keys],
      signature: sortSignature([...parts, level.signature]),
      backwardSignature: sortSignature([...parts, level.backwardSignature]),
      ...(level.seal === undefined ? {} : { seal: level.seal }),
    },
    parentKeys: parent.length,
    parameter: `${name.path}.cursor`,
  };
}

/** Encode the cursor that continues one parent's list after a row's sort keys. */
export function nestedCursorAfter(
  plan: NestedCursorPlan,
  parent: readonly CursorValue[],
  keys: readonly CursorValue[],
): string {
  return cursorAfter(plan.combined, [...parent, ...keys]);
}

/** Encode the cursor that pages one parent's list back from a row's sort keys. */
export function nestedCursorBefore(
  plan: NestedCursorPlan,
  parent: readonly CursorValue[],
  keys: readonly CursorValue[],
): string {
  return cursorBefore(plan.combined, [...parent, ...keys]);
}

/** A decoded nested cursor: whose list it continues, after (or before) which sort keys. */
export interface NestedPosition {
  readonly parent: readonly CursorValue[];
  readonly keys: readonly CursorValue[];
  readonly backward: boolean;
}

/**
 * Decode and check a nested cursor before any query runs. Anything unexpected (another list's or sort's cursor, a
 * top-level cursor, a malformed or forged token) is `invalid_cursor` naming the nested parameter (`reviews.cursor`).
 */
export function decodeNestedCursor(token: string, plan: NestedCursorPlan, maxCursorBytes: number): NestedPosition {
  try {
    const position = decodePosition(token, expectationOf(plan.combined, maxCursorBytes));
    return {
      parent: position.keys.slice(0, plan.parentKeys),
      keys: position.keys.slice(plan.parentKeys),
      backward: position.backward,
    };
  } catch (err) {
    if (isListError(err) && err.code === 'invalid_cursor') throw invalidCursor(err.message, plan.parameter);
    throw err;
  }
}
