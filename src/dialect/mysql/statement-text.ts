import { setBounded } from '../../bounded-map.ts';

/**
 * The text a MySQL or MariaDB statement is sent as (statementText): its time limit, and on MariaDB its planner
 * settings.
 *
 * MariaDB spends most of a deep keyset page planning it: for a predicate such as
 * `price >= ? and (price > ? or (price = ? and created_at < ?) or (…))`, its range optimizer weighs every way of
 * merging the indexes each `or` branch could use (index merge), about 0.1 to 0.35 ms at 1,000,000 rows against
 * 0.02 ms for the first page, and then reads one index range anyway. Planned with `index_merge=off` it keeps the
 * range analysis that seeks to the cursor and skips the merge analysis (docs/pagination.md).
 *
 * Index merge can serve a client's own `or` across indexed columns, so the setting is applied only when every `or` of
 * the statement is the keyset predicate's: the page statement carries a comment with the number of `or` operators
 * its keyset predicate holds, and the executor counts those of the whole statement before it sends it.
 */

const MARK = 'listql keyset-or:';
const MARKED = /^\/\* listql keyset-or:(\d+) \*\/ /;

/** Quoted identifiers and string literals, which may hold the letters `or` without being an operator. */
const QUOTED = /`(?:[^`]|``)*`|'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*"/g;
/** `or`, `xor` and `||` (an `or` unless the session's sql_mode says PIPES_AS_CONCAT): all count, to be safe. */
const OR = /\b(?:x?or)\b|\|\|/gi;

/**
 * Count the `or` operators of a statement outside quoted identifiers and strings. Comments are counted through: a
 * comment that names `or` only makes the count larger, which leaves index merge on (the safe side).
 */
export function orOperators(sql: string): number {
  return sql.replace(QUOTED, ' ').match(OR)?.length ?? 0;
}

/**
 * The comment a page statement carries for the executor when its keyset predicate (`predicate`, its SQL) holds `or`
 * operators, or undefined when it holds none.
 *
 * @example keysetHint('(`b`.`id` > ? or `b`.`id` is null)') // 'listql keyset-or:1'
 */
export function keysetHint(predicate: string): string | undefined {
  const count = orOperators(predicate);
  return count > 0 ? `${MARK}${count}` : undefined;
}

/**
 * Tell whether a statement carries the keyset comment (see keysetHint) and all its `or` operators are its keyset
 * predicate's, so that index merge may be turned off. The comment stays in the text sent: a server's logs then show
 * which statements listql planned so.
 */
export function onlyKeysetOr(sql: string): boolean {
  const marked = MARKED.exec(sql);
  return marked !== null && orOperators(sql.slice(marked[0].length)) === Number(marked[1]);
}

/**
 * The text a statement is sent as, in the same round trip as its settings: on MariaDB `SET STATEMENT … FOR` with
 * its time limit and, when its only `or` operators are its keyset predicate's, index merge off; on MySQL the time
 * limit as an optimizer hint. `timeout` is the server's setting in milliseconds, never client input.
 */
export function statementText(sql: string, timeout: number | undefined, mariaDb: boolean): string {
  return mariaDb ? mariaDbStatement(sql, timeout) : limited(sql, timeout);
}

/**
 * A MariaDB statement with its settings (`SET STATEMENT … FOR`, in the same round trip): its time limit, and index
 * merge turned off when its only `or` operators are its keyset predicate's (onlyKeysetOr). `timeout` is the
 * server's setting, never client input.
 */
function mariaDbStatement(sql: string, timeout: number | undefined): string {
  const known = sent.get(sql);
  if (known !== undefined && known.timeout === timeout) return known.text;
  const only = known?.only ?? onlyKeysetOr(sql);
  const settings: string[] = [];
  if (timeout !== undefined) settings.push(`max_statement_time = ${(milliseconds(timeout) / 1000).toFixed(3)}`);
  if (only) settings.push(NO_INDEX_MERGE);
  const text = settings.length === 0 ? sql : `SET STATEMENT ${settings.join(', ')} FOR ${sql}`;
  setBounded(sent, sql, { only, timeout, text }, SENT_TEXTS);
  return text;
}

/**
 * What each statement was last sent as, by its text: whether its only `or` operators are its keyset predicate's, and
 * its text under the last time limit (the statement timeout, unless the request's deadline is nearer). A compiled
 * page's text repeats on every request: it is read once, and sent as the very same string while its limit holds, so
 * neither the text nor its hash (the prepared statements' bound, execute.ts) is made again.
 */
const sent = new Map<string, { readonly only: boolean; readonly timeout: number | undefined; readonly text: string }>();
/** Distinct statement texts remembered: each is a compiled shape's, itself bounded where it is compiled. */
const SENT_TEXTS = 512;

const NO_INDEX_MERGE = "optimizer_switch = 'index_merge=off'";

/** MySQL: the time limit as an optimizer hint, which applies to read-only SELECT statements, the only ones listql sends here. */
function limited(sql: string, timeout: number | undefined): string {
  if (timeout === undefined) return sql;
  return sql.replace(/^\s*select\b/i, (select) => `${select} /*+ MAX_EXECUTION_TIME(${milliseconds(timeout)}) */`);
}

function milliseconds(timeout: number): number {
  return Math.max(1, Math.floor(timeout));
}
