import type { FieldRef, ResolvedQuery } from '../bind/types.ts';
import { ListError } from '../errors.ts';

/** Refuse what apply() cannot build, before any SQL exists: a cursor, a search or fields (they need the engine). */
export function assertApplicable(resolved: ResolvedQuery): void {
  if (resolved.cursor !== undefined)
    throw new ListError('invalid_parameter', 'cursor needs the engine: use createEngine().from(qb).list()', {
      parameter: 'cursor',
    });
  if (resolved.search !== undefined)
    throw new ListError('invalid_parameter', 'search needs the engine: use createEngine().from(qb).list()', {
      parameter: 'search',
    });
  if (resolved.fields !== undefined)
    throw new ListError('invalid_parameter', 'fields needs the engine: use createEngine().from(qb).list()', {
      parameter: 'fields',
    });
}

/** Tell whether a reference names a column of the root entity itself. */
export function isRootRef(ref: FieldRef): boolean {
  return ref.relations.length === 0 && ref.variable === undefined;
}
