import { errorAt, errorAtPosition, invalidParameter, type ListError, limitExceeded } from '../errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../limits.ts';
import type { ParsedQuery } from './ast.ts';
import { overflowAt, utf8Length } from './bytes.ts';
import { parseFields } from './fields.ts';
import { parseFilter } from './filter.ts';
import { bracketHint, withHint } from './habits.ts';
import { isDigit, showChar } from './keywords.ts';
import {
  isKnownParameter,
  KNOWN_PARAMETERS,
  type KnownParameter,
  type ListParameters,
  type QueryValues,
} from './parameters.ts';
import { fromQueryString } from './query-string.ts';
import { parseSort } from './sort.ts';

/** Options of parseHTTP. */
export interface ParseOptions {
  /** Overrides of the request bounds (docs/language.md, Limits); the rest keep their defaults. */
  readonly limits?: Partial<Limits>;
}

type MutableParsed = { -readonly [K in keyof ParsedQuery]: ParsedQuery[K] };

/**
 * Parse and validate every known list parameter; throws ListError. Cheap checks run first (query size, then
 * each parameter's shape, then cursor with offset), and the filter, the costliest, is parsed last.
 *
 * @example parseHTTP('filter=price%20gt%2010&sort=-price&limit=20')
 * // { filter: cmp(price gt 10), sort: [price desc], limit: 20 }
 */
export function parseHTTP(
  values: QueryValues | ListParameters | URLSearchParams | string,
  options: ParseOptions = {},
): ParsedQuery {
  const limits = options.limits === undefined ? DEFAULT_LIMITS : mergeLimits(options.limits);
  // A ListParameters is QueryValues whose absent keys may be written `undefined`, which single() skips.
  const query =
    typeof values === 'string' || values instanceof URLSearchParams ? fromQueryString(values) : (values as QueryValues);
  checkQueryBytes(query, limits);
  checkBracketNames(query);
  const raw: Partial<Record<KnownParameter, string>> = {};
  for (const name of KNOWN_PARAMETERS) {
    const value = single(query, name);
    if (value !== undefined) raw[name] = value;
  }
  if (raw.cursor !== undefined && raw.offset !== undefined) {
    throw invalidParameter('offset', 'offset cannot be combined with cursor');
  }
  const out: MutableParsed = {};
  if (raw.limit !== undefined) out.limit = parseUnsigned('limit', raw.limit);
  if (raw.offset !== undefined) out.offset = parseUnsigned('offset', raw.offset);
  if (raw.count !== undefined) out.count = parseCount(raw.count);
  if (raw.cursor !== undefined) out.cursor = checkCursor(raw.cursor, limits);
  if (raw.search !== undefined) out.search = checkSearch(raw.search, limits);
  if (raw.fields !== undefined) out.fields = parseFields(raw.fields);
  if (raw.sort !== undefined) out.sort = parseSort(raw.sort, limits);
  if (raw.filter !== undefined) out.filter = parseFilter(raw.filter, limits);
  return out;
}

/** Lay overrides over the defaults, skipping keys given as undefined (possible from plain JavaScript callers). */
function mergeLimits(overrides: Partial<Limits>): Limits {
  const merged: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(overrides)) if (typeof value === 'number') merged[key] = value;
  return merged as unknown as Limits;
}

/** Reject a query whose parameter names and values together pass maxQueryBytes, without decoding twice. */
function checkQueryBytes(query: QueryValues, limits: Limits): void {
  const strings: string[] = [];
  let units = 0;
  for (const [name, value] of Object.entries(query)) {
    strings.push(name);
    units += name.length;
    for (const v of typeof value === 'string' ? [value] : Array.isArray(value) ? value : []) {
      if (typeof v !== 'string') continue;
      strings.push(v);
      units += v.length;
    }
  }
  // A UTF-16 unit is 1 to 3 UTF-8 bytes: most queries are decided without counting bytes.
  if (units * 3 <= limits.maxQueryBytes) return;
  let bytes = units;
  if (units <= limits.maxQueryBytes) {
    bytes = 0;
    for (const s of strings) bytes += utf8Length(s);
  }
  if (bytes > limits.maxQueryBytes) {
    throw limitExceeded(`query is longer than ${limits.maxQueryBytes} bytes`);
  }
}

/**
 * Refuse `filter[name]=x` and the like (JSON:API, qs, Rails): always, whatever `unknownParameters` says, because
 * ignoring it would answer with every row the client meant to filter out.
 */
export function checkBracketNames(query: QueryValues): void {
  for (const name in query) {
    const open = name.indexOf('[');
    if (open < 0 || !isKnownParameter(name.slice(0, open))) continue;
    const given = query[name];
    const value = typeof given === 'string' ? given : (given?.[0] ?? '');
    const message = withHint(`${name} is not a list parameter`, bracketHint(name, value));
    throw invalidParameter(name, message, value, 0);
  }
}

/** Read a known parameter that must appear at most once, as a non-empty string. */
function single(query: QueryValues, name: KnownParameter): string | undefined {
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
function parseUnsigned(name: KnownParameter, text: string): number {
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

/** Parse `count`: exactly `true`, `false` or `estimated`, located at the first character that departs from all. */
function parseCount(text: string): boolean | 'estimated' {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'estimated') return 'estimated';
  const index = Math.max(commonPrefix(text, 'true'), commonPrefix(text, 'false'), commonPrefix(text, 'estimated'));
  throw invalidParameter('count', 'count must be true, false or estimated', text, index);
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

const CURSOR_CHAR = /[^A-Za-z0-9_-]/;

/** Check the cursor's size and base64url alphabet; the engine decodes it. Size first, so long input is cheap. */
function checkCursor(text: string, limits: Limits): string {
  const over = overflowAt(text, limits.maxCursorBytes);
  if (over !== undefined) {
    const message = `cursor is longer than ${limits.maxCursorBytes} bytes`;
    throw errorAtPosition('invalid_cursor', message, 'cursor', over.position);
  }
  const bad = CURSOR_CHAR.exec(text);
  if (bad !== null) {
    const message = bad[0] === '=' ? 'cursor must not be padded' : 'cursor has a character outside base64url';
    throw cursorError(message, text, bad.index);
  }
  return text;
}

function cursorError(message: string, text: string, index: number): ListError {
  return errorAt('invalid_cursor', message, 'cursor', text, index);
}

function checkSearch(text: string, limits: Limits): string {
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
