import type { ValueOperator } from './ast.ts';

/** The operators of a comparison with one value (`price gt 10`), in the order policies and docs list them. */
export const VALUE_OPERATORS: readonly ValueOperator[] = Object.freeze([
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'startswith',
  'endswith',
  'ieq',
  'ine',
  'icontains',
  'istartswith',
  'iendswith',
] as const);

/** Reserved words of REST grammar v1: exact lower case, never a name (docs/language.md). Mirrors grammar.ohm. */
export const KEYWORDS: ReadonlySet<string> = new Set([
  'and',
  'or',
  'not',
  ...VALUE_OPERATORS,
  'in',
  'is',
  'null',
  'any',
  'all',
  'true',
  'false',
  'asc',
  'desc',
]);

/**
 * The aggregate functions. Not reserved: each is a function only after a `/` and before `(` (`reviews/count()`), so a
 * field may be named `count` (grammar.ohm, aggregateStart).
 */
export const AGGREGATE_FUNCTIONS: ReadonlySet<string> = new Set(['count', 'sum', 'avg', 'min', 'max']);

/** Tell whether a UTF-16 code unit can start a name: `[A-Za-z_]`. */
export function isIdentStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}

/** Tell whether a UTF-16 code unit can continue a name: `[A-Za-z0-9_]`. */
export function isIdentPart(c: number): boolean {
  return isIdentStart(c) || isDigit(c);
}

/** Tell whether a UTF-16 code unit is `[0-9]`. */
export function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Tell whether a UTF-16 code unit is grammar whitespace: SPACE, TAB, CR or LF. */
export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

/** The end of the name starting at `start` in `text` (`start` itself when no name starts there). */
export function identEnd(text: string, start: number): number {
  if (!isIdentStart(text.charCodeAt(start))) return start;
  let j = start + 1;
  while (isIdentPart(text.charCodeAt(j))) j++;
  return j;
}

/** The first index at or after `start` that is not grammar whitespace. */
export function skipSpace(text: string, start: number): number {
  let i = start;
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Render one character for an error message: printable ones as is, others as U+XXXX. */
export function showChar(text: string, index: number): string {
  const cp = text.codePointAt(index) ?? 0;
  if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp < 0xa0) || (cp >= 0xd800 && cp <= 0xdfff))
    return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${String.fromCodePoint(cp)}'`;
}

/** Quote a token for an error message, cut short so a message never carries much of the input. */
export function showToken(token: string): string {
  return token.length > 24 ? `'${token.slice(0, 24)}…'` : `'${token}'`;
}
