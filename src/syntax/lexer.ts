import { errorAt, positionAt } from '../errors.ts';
import { type Limits, MAX_OPEN_PARENTHESES } from '../limits.ts';
import { PLUS_AS_SPACE, symbolHint, withHint } from './habits.ts';
import { isDigit, isIdentPart, isIdentStart, isSpace, showChar } from './keywords.ts';

/**
 * A hand-written scanner for the tokens of grammar.ohm. Ohm stays the judge of what is valid; the scanner only
 * (1) counts tokens and open parentheses before Ohm runs, so over-limit input is rejected cheaply, and
 * (2) tells whether the place where Ohm failed lies inside a malformed token (`invalid_token`).
 */

/** A malformed token: where it stops fitting the token rules and why. */
export interface LexError {
  readonly index: number;
  readonly message: string;
}

/** Where the token starting at `index` ends, or a LexError when it is malformed. `index` must not be whitespace. */
export function readToken(text: string, index: number): number | LexError {
  const c = text.charCodeAt(index);
  if (isIdentStart(c)) {
    let j = index + 1;
    while (j < text.length && isIdentPart(text.charCodeAt(j))) j++;
    return j;
  }
  if (c === 0x27) return readString(text, index);
  if (c === 0x2d || isDigit(c)) return readNumber(text, index);
  // ( ) , / :
  if (c === 0x28 || c === 0x29 || c === 0x2c || c === 0x2f || c === 0x3a) return index + 1;
  return { index, message: withHint(`unexpected character ${showChar(text, index)}`, symbolHint(text, index)) };
}

function readString(text: string, start: number): number | LexError {
  let j = start + 1;
  for (;;) {
    if (j >= text.length) {
      return { index: text.length, message: `unterminated string starting at byte ${positionAt(text, start).offset}` };
    }
    const c = text.charCodeAt(j);
    if (c === 0x27) {
      if (text.charCodeAt(j + 1) !== 0x27) return j + 1;
      j += 2;
    } else if (c < 0x20 || c === 0x7f) {
      return { index: j, message: `control character ${showChar(text, j)} is not allowed in a string` };
    } else j++;
  }
}

function readNumber(text: string, start: number): number | LexError {
  let j = start;
  if (text.charCodeAt(j) === 0x2d) j++;
  if (!isDigit(text.charCodeAt(j))) return { index: j, message: "expected a digit after '-'" };
  if (text.charCodeAt(j) === 0x30) {
    j++;
    if (isDigit(text.charCodeAt(j))) return { index: j, message: 'a number cannot have a leading zero' };
  } else while (isDigit(text.charCodeAt(j))) j++;
  if (text.charCodeAt(j) === 0x2e) {
    j++;
    if (!isDigit(text.charCodeAt(j))) return { index: j, message: "expected a digit after '.'" };
    while (isDigit(text.charCodeAt(j))) j++;
  }
  const e = text.charCodeAt(j);
  if (e === 0x65 || e === 0x45) {
    j++;
    const sign = text.charCodeAt(j);
    if (sign === 0x2b || sign === 0x2d) j++;
    if (!isDigit(text.charCodeAt(j))) {
      // `1e+5` typed in a URL arrives as `1e 5`.
      const plus = text.charCodeAt(j) === 0x20 && isDigit(text.charCodeAt(j + 1));
      return { index: j, message: withHint('expected a digit in the exponent', plus ? PLUS_AS_SPACE : undefined) };
    }
    while (isDigit(text.charCodeAt(j))) j++;
  }
  return j;
}

/**
 * Count tokens and nested open parentheses, throwing `limit_exceeded` at the first token past a bound.
 * Stops at the first malformed token and returns it; Ohm then decides what the input's first error is.
 */
export function prescanFilter(text: string, limits: Limits): LexError | undefined {
  let tokens = 0;
  let open = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (++tokens > limits.maxTokens) {
      throw errorAt('limit_exceeded', `filter has more than ${limits.maxTokens} tokens`, 'filter', text, i);
    }
    if (c === 0x28 && ++open > MAX_OPEN_PARENTHESES) {
      const message = `filter nests more than ${MAX_OPEN_PARENTHESES} open parentheses`;
      throw errorAt('limit_exceeded', message, 'filter', text, i);
    }
    if (c === 0x29 && open > 0) open--;
    const end = readToken(text, i);
    if (typeof end !== 'number') return end;
    i = end;
  }
  return undefined;
}

/**
 * Find where nesting first passes `maxDepth`, counting open parentheses plus a run of `not` words. Used only
 * when Ohm ran out of stack, to point at the place that nests too deeply.
 */
export function deepNestingIndex(text: string, maxDepth: number): number {
  let open = 0;
  let nots = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    const end = readToken(text, i);
    if (typeof end !== 'number') return 0;
    const word = text.slice(i, end);
    if (word === 'not') nots++;
    else if (c !== 0x28) nots = 0;
    if (c === 0x28) open++;
    if (c === 0x29 && open > 0) open--;
    if (open + nots > maxDepth) return i;
    i = end;
  }
  return 0;
}
