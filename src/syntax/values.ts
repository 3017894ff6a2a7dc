import { errorAt, errorAtPosition, invalidParameter } from '../errors.ts';
import type { Limits } from '../limits.ts';
import { overflowAt } from './bytes.ts';
import { bracketHint, withHint } from './habits.ts';
import { isDigit, showChar } from './keywords.ts';
import type { QueryValues } from './parameters.ts';

/**
 * The checks of the scalar list parameters (limit, offset, count, cursor, search), shared by the top level and the
 * path-named parameters of nested lists (`reviews.limit`): each takes the parameter's full name, so an error names
 * exactly what the client wrote.
 */

/** Read a list parameter that must appear at most once, as a non-empty string. */
export function single(query: QueryValues, name: string): string | undefined {
  if (!Object.hasOwn(query, name)) return undefined;
  let value: unknown = query[name];
  if (Array.isArray(value)) {
    if (value.length > 1) throw invalidParameter(name, `${name} is given more than once`);
    value = value[0];
  }
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    // A framework's parser turns `filter[name]=x` into an object.
    const nested = typeof value === 'object' && value !== null && !Array.isArray(value);
    const hint = nested ? `${name}[…]=… is not listql's syntax, ${bracketHint(`${name}[name]`, 'x')}` : undefined;
    throw invalidParameter(name, withHint(`${name} must be a string`, hint));
  }
  // Located at offset 0, where the missing value would start, like any other error inside a value.
  if (value === '') throw invalidParameter(name, `${name} must not be empty`, value, 0);
  return value;
}

/** Parse `limit` / `offset`: decimal digits, no sign, no leading zero, no whitespace. */
export function parseUnsigned(name: string, text: string): number {
  for (let i = 0; i < text.length; i++) {
    if (!isDigit(text.charCodeAt(i))) {
      throw invalidParameter(name, `${name} must be a whole number, found ${showChar(text, i)}`, text, i);
    }
    if (i === 1 && text.charCodeAt(0) === 0x30) {
      throw invalidParameter(name, `${name} cannot have a leading zero`, text, i);
    }
  }
  const value = Number(text);
  // Syntactically fine but beyond any sane bound: the engine's maxLimit/maxOffset would reject it anyway.
  if (!Number.isSafeInteger(value)) throw errorAt('limit_exceeded', `${name} is too large`, name, text, 0);
  return value;
}

/** Parse the top-level `count`: exactly `true`, `false` or `estimated`, located where the value departs from all. */
export function parseCount(name: string, text: string): boolean | 'estimated' {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'estimated') return 'estimated';
  const index = Math.max(commonPrefix(text, 'true'), commonPrefix(text, 'false'), commonPrefix(text, 'estimated'));
  throw invalidParameter(name, `${name} must be true, false or estimated`, text, index);
}

/**
 * Parse the `count` of a nested list: `true` or `false`. An estimate is the planner's guess for a whole table, which
 * says nothing about one parent's list, so `estimated` is refused at its first byte.
 */
export function parseExactCount(name: string, text: string): boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'estimated') {
    throw invalidParameter(name, `${name} must be true or false: estimated counts are for the top level only`, text, 0);
  }
  const index = Math.max(commonPrefix(text, 'true'), commonPrefix(text, 'false'));
  throw invalidParameter(name, `${name} must be true or false`, text, index);
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

const CURSOR_CHAR = /[^A-Za-z0-9_-]/;

/** Check the cursor's size and base64url alphabet; the engine decodes it. Size first, so long input is cheap. */
export function checkCursor(name: string, text: string, limits: Limits): string {
  const over = overflowAt(text, limits.maxCursorBytes);
  if (over !== undefined) {
    const message = `${name} is longer than ${limits.maxCursorBytes} bytes`;
    throw errorAtPosition('invalid_cursor', message, name, over.position);
  }
  const bad = CURSOR_CHAR.exec(text);
  if (bad !== null) {
    const message = bad[0] === '=' ? `${name} must not be padded` : `${name} has a character outside base64url`;
    throw errorAt('invalid_cursor', message, name, text, bad.index);
  }
  return text;
}

/** Check `search`: at most maxSearchBytes, without U+0000. */
export function checkSearch(text: string, limits: Limits): string {
  const over = overflowAt(text, limits.maxSearchBytes);
  if (over !== undefined) {
    const message = `search is longer than ${limits.maxSearchBytes} bytes`;
    throw errorAtPosition('limit_exceeded', message, 'search', over.position);
  }
  // PostgreSQL text cannot hold U+0000 and SQLite would cut the pattern at it: refused alike on every dialect.
  const nul = text.indexOf('\u0000');
  if (nul >= 0) throw invalidParameter('search', 'search must not contain the character U+0000', text, nul);
  return text;
}
