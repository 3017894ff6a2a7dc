import { foldAscii } from '../bind/literal.ts';
import type { ResolvedLike } from '../bind/types.ts';
import type { Dialect } from './dialect.ts';
import type { SqlFragment } from './fragment.ts';

/**
 * Escape LIKE's wildcards (`%`, `_`) and the escape character itself, for `LIKE … ESCAPE '\'`, or with another
 * single escape character. `!` suits every dialect: `like ? escape '!'` is written alike on SQLite, PostgreSQL, MySQL
 * and MariaDB, whereas a backslash inside a MySQL string literal is itself an escape.
 *
 * @example escapeLike('50%_off') // '50\\%\\_off'
 * @example escapeLike('50%!', '!') // '50!%!!'
 */
export function escapeLike(value: string, escapeCharacter = '\\'): string {
  if ([...escapeCharacter].length !== 1 || escapeCharacter === '%' || escapeCharacter === '_')
    throw new TypeError('escapeLike: the escape must be one character other than % and _');
  let out = '';
  for (const c of value) out += c === '%' || c === '_' || c === escapeCharacter ? escapeCharacter + c : c;
  return out;
}

/** Escape a value for the pattern syntax listql's own substring tests use on `dialect`. */
export function escapePattern(dialect: Dialect, value: string): string {
  switch (dialect) {
    case 'sqlite':
      return escapeGlob(value);
    case 'mysql':
      return escapeLike(value, '!');
    default:
      return escapeLike(value);
  }
}

/** Escape GLOB's wildcards (`*`, `?`) and bracket opener by wrapping each in a one-character class. */
export function escapeGlob(value: string): string {
  return value.replace(/[*?[]/g, (c) => `[${c}]`);
}

/**
 * Fold an already quoted column's ASCII letters to lower case and nothing else, the same on every dialect.
 * PostgreSQL's `lower()` follows the collation's ctype (which folds `Ä` under most locales), so it runs under the
 * "C" collation, which folds A–Z only; an expression index on exactly this expression serves `ieq` and
 * `istartswith`. SQLite's built-in `lower()` folds A–Z only.
 */
export function foldedColumn(dialect: Dialect, column: string): string {
  switch (dialect) {
    case 'postgresql':
      return `lower(${column} collate "C")`;
    case 'mysql':
      // lower() folds every letter its character set knows; replace() matches case-sensitively, letter by letter.
      return ASCII_UPPER.reduce((inner, c) => `replace(${inner}, '${c}', '${c.toLowerCase()}')`, column);
    default:
      return `lower(${column})`;
  }
}

const ASCII_UPPER = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];

/**
 * Build a substring test of an already quoted column. PostgreSQL's LIKE is case-sensitive (and trigram indexes can
 * serve it); SQLite's LIKE folds ASCII case, so SQLite uses GLOB, which does not. MySQL and MariaDB compare by the
 * column's collation (case-insensitive by default), so there the test runs on the column's bytes (`binary`);
 * `startswith` adds the same test under the collation first, which matches a superset and lets an index on the
 * column serve a range. The `i` operators compare the folded column (see foldedColumn) with the folded value.
 * The pattern is always a bound value, never SQL text.
 */
export function likeFragment(
  dialect: Dialect,
  column: string,
  operator: ResolvedLike['operator'],
  value: string,
): SqlFragment {
  if (operator === 'ieq' || operator === 'ine') {
    const folded = foldedColumn(dialect, column);
    const subject = dialect === 'mysql' ? `binary ${folded}` : folded;
    return { sql: `${subject} ${operator === 'ieq' ? '=' : '<>'} ?`, params: [foldAscii(value)] };
  }
  const insensitive = operator === 'icontains' || operator === 'istartswith' || operator === 'iendswith';
  const subject = insensitive ? foldedColumn(dialect, column) : column;
  // The same escaping the compiled-filter cache applies when it refills a pattern (filter-cache.ts).
  const escaped = escapePattern(dialect, insensitive ? foldAscii(value) : value);
  switch (dialect) {
    case 'postgresql':
      return { sql: `${subject} like ? escape '\\'`, params: [wrap(operator, escaped, '%')] };
    case 'sqlite':
      return { sql: `${subject} glob ?`, params: [wrap(operator, escaped, '*')] };
    case 'mysql': {
      const pattern = wrap(operator, escaped, '%');
      const exact = `binary ${subject} like ? escape '!'`;
      if (operator !== 'startswith') return { sql: exact, params: [pattern] };
      return { sql: `(${column} like ? escape '!' and ${exact})`, params: [pattern, pattern] };
    }
    default: {
      const never: never = dialect;
      throw new Error(`unknown dialect ${String(never)}`);
    }
  }
}

function wrap(operator: Exclude<ResolvedLike['operator'], 'ieq' | 'ine'>, escaped: string, any: string): string {
  switch (operator) {
    case 'contains':
    case 'icontains':
      return any + escaped + any;
    case 'startswith':
    case 'istartswith':
      return escaped + any;
    case 'endswith':
    case 'iendswith':
      return any + escaped;
    default: {
      const never: never = operator;
      throw new Error(`unknown operator ${String(never)}`);
    }
  }
}
