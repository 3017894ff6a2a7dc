import { foldAscii } from '../bind/literal.ts';
import type { ResolvedLike } from '../bind/types.ts';
import type { Dialect, InsensitiveOperator } from '../dialect/index.ts';
import type { SqlFragment } from './fragment.ts';

export { escapeGlob, escapeLike } from '../dialect/index.ts';

/**
 * Build a substring test of an already quoted column. PostgreSQL's LIKE is case-sensitive (and trigram indexes can
 * serve it); SQLite's LIKE folds ASCII case, so SQLite uses GLOB, which does not. MySQL and MariaDB compare by the
 * column's collation (case-insensitive by default), so there the test runs on the column's bytes (`binary`);
 * `startswith` adds the same test under the collation first, which matches a superset and lets an index on the
 * column serve a range. Each dialect writes its own test (Dialect.patternTest). The `i` operators compare the folded
 * column (Dialect.foldedColumn) with the folded value, or, where the dialect has a cheaper exact form, use it
 * (Dialect.insensitiveTest: MariaDB matches a caseless regular expression on the column's bytes in one pass).
 * The pattern is always a bound value, never SQL text.
 */
export function likeFragment(
  dialect: Dialect,
  column: string,
  operator: ResolvedLike['operator'],
  value: string,
): SqlFragment {
  const caseless = dialect.insensitiveTest;
  if (caseless && operator.startsWith('i')) return caseless(column, operator as InsensitiveOperator, foldAscii(value));
  if (operator === 'ieq' || operator === 'ine') {
    const subject = dialect.caseSensitive(dialect.foldedColumn(column));
    return { sql: `${subject} ${operator === 'ieq' ? '=' : '<>'} ?`, params: [foldAscii(value)] };
  }
  const insensitive = operator === 'icontains' || operator === 'istartswith' || operator === 'iendswith';
  const subject = insensitive ? dialect.foldedColumn(column) : column;
  // The same escaping the compiled-filter cache applies when it refills a pattern (filter-cache.ts).
  const escaped = dialect.escapePattern(insensitive ? foldAscii(value) : value);
  return dialect.patternTest(subject, column, operator, wrap(operator, escaped, dialect.patternWildcard));
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
