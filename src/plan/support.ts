import type { FieldRef, ResolvedQuery } from '../bind/types.ts';
import { invalidParameter } from '../errors.ts';

/** Refuse what apply() cannot build, before any SQL exists: a cursor, a search or fields (they need the engine). */
export function assertApplicable(resolved: ResolvedQuery): void {
  if (resolved.cursor !== undefined)
    throw invalidParameter('cursor', 'cursor needs the engine: use createEngine().from(qb).list()');
  if (resolved.search !== undefined)
    throw invalidParameter('search', 'search needs the engine: use createEngine().from(qb).list()');
  if (resolved.fields !== undefined)
    throw invalidParameter('fields', 'fields needs the engine: use createEngine().from(qb).list()');
}

/** Tell whether a reference names a column of the root entity itself. */
export function isRootRef(ref: FieldRef): boolean {
  return ref.relations.length === 0 && ref.variable === undefined;
}
