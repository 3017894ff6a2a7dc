import type { ResolvedLike } from '../bind/types.ts';
import type { Dialect } from './dialect.ts';
import type { SqlFragment } from './fragment.ts';

/** Escape LIKE's wildcards (`%`, `_`) and the escape character itself, for `LIKE … ESCAPE '\'`. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Escape GLOB's wildcards (`*`, `?`) and bracket opener by wrapping each in a one-character class. */
export function escapeGlob(value: string): string {
  return value.replace(/[*?[]/g, (c) => `[${c}]`);
}

/**
 * Build a case-sensitive substring test of an already quoted column. PostgreSQL's LIKE is case-sensitive
 * (and trigram indexes can serve it); SQLite's LIKE folds ASCII case, so SQLite uses GLOB, which does not.
 * The pattern is always a bound value, never SQL text.
 */
export function likeFragment(
  dialect: Dialect,
  column: string,
  operator: ResolvedLike['operator'],
  value: string,
): SqlFragment {
  switch (dialect) {
    case 'postgresql':
      return { sql: `${column} like ? escape '\\'`, params: [wrap(operator, escapeLike(value), '%')] };
    case 'sqlite':
      return { sql: `${column} glob ?`, params: [wrap(operator, escapeGlob(value), '*')] };
    default: {
      const never: never = dialect;
      throw new Error(`unknown dialect ${String(never)}`);
    }
  }
}

function wrap(operator: ResolvedLike['operator'], escaped: string, any: string): string {
  switch (operator) {
    case 'contains':
      return any + escaped + any;
    case 'startswith':
      return escaped + any;
    case 'endswith':
      return any + escaped;
    default: {
      const never: never = operator;
      throw new Error(`unknown operator ${String(never)}`);
    }
  }
}
