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

/** Escape GLOB's wildcards (`*`, `?`) and bracket opener by wrapping each in a one-character class. */
export function escapeGlob(value: string): string {
  return value.replace(/[*?[]/g, (c) => `[${c}]`);
}
