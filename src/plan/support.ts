import type { FieldRef, ResolvedFilter, ResolvedQuery } from '../bind/types.ts';
import { ListError } from '../errors.ts';
import type { Span } from '../syntax/ast.ts';

const RELATIONSHIP_MESSAGE = 'relationship filters and sorts need relationship support, which is not implemented yet';

/**
 * Refuse what the plan stage cannot build yet, before any SQL exists: a cursor or a search (they need the engine),
 * and any relationship path, variable or quantifier (the relationship planner is a later issue).
 */
export function assertApplicable(resolved: ResolvedQuery): void {
  if (resolved.cursor !== undefined)
    throw new ListError('invalid_parameter', 'cursor needs the engine: use createEngine().from(qb).list()', {
      parameter: 'cursor',
    });
  if (resolved.search !== undefined)
    throw new ListError('invalid_parameter', 'search needs the engine: use createEngine().from(qb).list()', {
      parameter: 'search',
    });
  if (resolved.filter) assertRootFilter(resolved.filter);
  for (const term of resolved.sort) if (!isRootRef(term.target)) throw relationshipError('sort', term.target.span);
}

function assertRootFilter(filter: ResolvedFilter): void {
  switch (filter.kind) {
    case 'compare':
    case 'like':
    case 'in':
    case 'null':
      if (!isRootRef(filter.target)) throw relationshipError('filter', filter.target.span);
      return;
    case 'not':
      assertRootFilter(filter.operand);
      return;
    case 'and':
    case 'or':
      assertRootFilter(filter.left);
      assertRootFilter(filter.right);
      return;
    case 'quantifier':
      throw relationshipError('filter', filter.span);
    default: {
      const never: never = filter;
      throw new Error(`unknown filter node ${String((never as ResolvedFilter).kind)}`);
    }
  }
}

/** Tell whether a reference names a column of the root entity itself. */
export function isRootRef(ref: FieldRef): boolean {
  return ref.relations.length === 0 && ref.variable === undefined;
}

/** Build the placeholder error for relationship paths, located at the node that needs them. */
export function relationshipError(parameter: 'filter' | 'sort', span: Span): ListError {
  return new ListError('invalid_relationship', RELATIONSHIP_MESSAGE, {
    parameter,
    position: { offset: span.offset, line: span.line, column: span.column },
  });
}
