import type { InsensitiveOperator, SqlText } from '../types.ts';

// `\E` inside the value would end the quoting: the server splices each one out as `\E` + `\\` + `E` + `\Q`.
const QUOTE_END = '\\E';
const QUOTED_QUOTE_END = '\\E\\\\E\\Q';

/**
 * The test of an `i` operator on MariaDB: the column's bytes (`binary`) against a caseless regular expression
 * (`regexp`, PCRE there; MySQL 8's ICU expressions fold all of Unicode and refuse binary strings) that quotes the
 * folded value (`\Q…\E`), anchored as the operator needs (`\A`, `\z`; `$` would also match before a final newline). On a binary string the expression works byte by byte:
 * `(?i)` folds the ASCII letters A–Z and nothing else, and every other byte matches only itself, so `Ä`, `É` and `ß`
 * never fold, exactly as the `i` operators promise (docs/language.md), whatever the column's collation. The value
 * and the constant parts are bound parameters, put together by the server (`concat`, `replace`), so the SQL text is
 * the same for every value and no client text is ever read as an expression. One pass per row, about the cost of a
 * `binary … like`, where folding the column letter by letter took 26 `replace()` calls.
 *
 * @example caselessTest('`w`.`text`', 'istartswith', "o'b")
 * // binary `w`.`text` regexp concat(?, replace(?, ?, ?), ?)  with  ['(?i)\\A\\Q', "o'b", '\\E', '\\E\\\\E\\Q', '\\E']
 */
export function caselessTest(column: string, operator: InsensitiveOperator, folded: string): SqlText {
  const whole = operator === 'ieq' || operator === 'ine';
  const start = whole || operator === 'istartswith' ? '\\A' : '';
  const end = whole || operator === 'iendswith' ? '\\z' : '';
  const test = `binary ${column} regexp concat(?, replace(?, ?, ?), ?)`;
  return {
    sql: operator === 'ine' ? `not (${test})` : test,
    params: [`(?i)${start}\\Q`, folded, QUOTE_END, QUOTED_QUOTE_END, `${QUOTE_END}${end}`],
  };
}
