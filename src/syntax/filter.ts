import type * as ohm from 'ohm-js';
import { errorAt, errorAtPosition, type ListError } from '../errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../limits.ts';
import type { FilterNode } from './ast.ts';
import { buildFilter } from './build.ts';
import { overflowAt } from './bytes.ts';
import { cachedFilter, cacheFilter, filterKey } from './cache.ts';
import { fastParseFilter } from './fast-parser.ts';
import { FILTER_RULE, filterGrammar } from './grammar.ts';
import { lowerCaseKeyword, withHint, wordHint } from './habits.ts';
import { isIdentPart, isSpace, KEYWORDS, showChar, showToken } from './keywords.ts';
import { deepNestingIndex, type LexError, prescanFilter, readToken } from './lexer.ts';
import { locatorFor } from './locator.ts';
import { refusalMessage } from './refusal.ts';

/**
 * Parse a `filter` value into its AST, enforcing every filter limit.
 *
 * @example parseFilter("price gt 10 and tags/any(t: t/name eq 'sale')")
 * // and(cmp(price gt 10), any(tags t: cmp(t/name eq 'sale')))
 */
export function parseFilter(text: string, limits: Limits = DEFAULT_LIMITS): FilterNode {
  // Cheapest checks first: an over-size value is rejected after reading at most maxFilterBytes characters.
  const over = overflowAt(text, limits.maxFilterBytes);
  if (over !== undefined) {
    const message = `filter is longer than ${limits.maxFilterBytes} bytes`;
    throw errorAtPosition('limit_exceeded', message, 'filter', over.position);
  }
  const key = filterKey(text, limits);
  const cached = cachedFilter(key);
  if (cached !== undefined) return cached;
  // A repeated filter skips parsing; only successes are kept (a failure throws before this).
  const node = parseUncached(text, limits);
  cacheFilter(key, node);
  return node;
}

/**
 * The fast parser takes every valid filter and refuses every well-formed one that breaks a limit or scope rule (with
 * the error Ohm's build would give); only text that is not well-formed (or nests past the fast parser's own bound)
 * reaches Ohm, so a refusal of an over-limit filter costs one pass over it.
 */
function parseUncached(text: string, limits: Limits): FilterNode {
  return fastParseFilter(text, limits) ?? parseWithOhm(text, limits);
}

/** Parse with the normative Ohm grammar: the fast parser hands it every input it refuses, so Ohm reports each error. */
export function parseWithOhm(text: string, limits: Limits): FilterNode {
  const lexError = prescanFilter(text, limits);
  try {
    const match = filterGrammar().match(text, FILTER_RULE);
    if (match.failed()) throw syntaxError(text, match, lexError);
    return buildFilter(match, text, locatorFor(text), limits);
  } catch (error) {
    // Ohm recurses once per nesting level; only a run of `not` words can nest that deep within the limits.
    if (error instanceof RangeError) {
      const at = deepNestingIndex(text, limits.maxExpressionDepth);
      throw errorAt('limit_exceeded', refusalMessage.depth(limits), 'filter', text, at);
    }
    throw error;
  }
}

/**
 * Locate a failed match at Ohm's rightmost failure (positions from `source`, the parameter's whole value, when `text`
 * is a part of it with the rest blanked out): the end of the longest prefix that still fits the grammar.
 * It is `invalid_token` when a malformed token sits exactly there, else `invalid_syntax`.
 */
export function syntaxError(
  text: string,
  match: ohm.FailedMatchResult,
  lexError: LexError | undefined,
  parameter: 'filter' | 'sort' = 'filter',
  source: string = text,
): ListError {
  const index = match.getRightmostFailurePosition();
  if (lexError !== undefined && lexError.index === index) {
    return errorAt('invalid_token', lexError.message, parameter, source, index);
  }
  // Whitespace next to `/` is reported at the `/` from either side (`a /b` at 2, `a/ b` at 1): the slash is the
  // token that cannot touch whitespace; the space after it is only where the match happened to stop.
  const at = isSpace(text.charCodeAt(index)) && text.charCodeAt(index - 1) === 0x2f ? index - 1 : index;
  // In a sort term the error is `invalid_parameter`, as every sort error is; located in the whole sort value.
  const code = parameter === 'sort' ? 'invalid_parameter' : 'invalid_syntax';
  return errorAt(code, describe(text, index, match), parameter, source, at);
}

interface FailureInfo {
  getText(): string;
}

/** Say in a few words what went wrong at `index`, quoting at most the token found there. */
function describe(text: string, index: number, match: ohm.FailedMatchResult): string {
  if (index >= text.length) return 'unexpected end of input';
  const before = text.charCodeAt(index - 1);
  if (isSpace(text.charCodeAt(index))) {
    return before === 0x2f ? "whitespace is not allowed after '/'" : 'unexpected whitespace';
  }
  const end = readToken(text, index);
  if (typeof end !== 'number') return text[index] === "'" ? 'unexpected string' : `unexpected ${showChar(text, index)}`;
  const token = text.slice(index, end);
  if (token === '/' && isSpace(before)) return "whitespace is not allowed before '/'";
  // Not in ohm-js's type declarations, but public: the failures recorded at the rightmost position.
  const failures = (match as unknown as { getRightmostFailures(): FailureInfo[] }).getRightmostFailures();
  const expected = new Set(failures.map((f) => f.getText()));
  if (token.toLowerCase() === 'null' && expected.has("'"))
    return "null is not a literal: write 'is null' or 'is not null'";
  // A satisfied `rsp` also records a failed extra whitespace, so only whitespace missing right here counts.
  if (expected.has('whitespace') && !isSpace(before)) return `expected whitespace before ${showToken(token)}`;
  const found = KEYWORDS.has(token) ? `unexpected keyword ${showToken(token)}` : `unexpected ${showToken(token)}`;
  return withHint(found, wordHint(token) ?? previousWordHint(text, index));
}

/**
 * A keyword typed in upper case where a name may stand (`NOT price gt 1`) is read as a name, and the error comes
 * one word later: name the word that was misread.
 */
function previousWordHint(text: string, index: number): string | undefined {
  let end = index;
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
  let start = end;
  while (start > 0 && isIdentPart(text.charCodeAt(start - 1))) start--;
  const word = text.slice(start, end);
  const keyword = end === index ? undefined : lowerCaseKeyword(word);
  return keyword === undefined ? undefined : `${showToken(word)} is read as a name, write '${keyword}'`;
}
