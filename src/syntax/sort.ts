import { errorAtPosition, type ListError } from '../errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../limits.ts';
import type { Ident, SortTerm } from './ast.ts';
import { sortDirectionHint, withHint } from './habits.ts';
import { isIdentPart, isIdentStart, isSpace, KEYWORDS, showChar, showToken } from './keywords.ts';
import { type Locator, locatorFor } from './locator.ts';

/**
 * Parse a `sort` value: `sp term (sp "," sp term)* sp`, where term is `-`? followed by a path. Errors point,
 * like filter errors, at the end of the longest prefix that still fits (a reserved word at its first byte).
 *
 * @example parseSort('-price, author/name') // [price desc, author/name asc]
 */
export function parseSort(text: string, limits: Limits = DEFAULT_LIMITS): readonly SortTerm[] {
  const loc = locatorFor(text);
  const terms: SortTerm[] = [];
  const seen = new Set<string>();
  let i = skipSpace(text, 0);
  for (;;) {
    const start = i;
    if (terms.length >= limits.maxSortTerms) {
      throw errorAtPosition(
        'limit_exceeded',
        `sort has more than ${limits.maxSortTerms} keys`,
        'sort',
        loc.position(start),
      );
    }
    const descending = text.charCodeAt(i) === 0x2d;
    if (descending) i++;
    const segments: Ident[] = [];
    for (;;) {
      const end = identEnd(text, i);
      if (end === i) throw invalid(text, loc, i, 'expected a field name', startHint(text, i, segments.length));
      const name = text.slice(i, end);
      if (KEYWORDS.has(name)) throw invalid(text, loc, i, `${showToken(name)} is a reserved word`);
      if (segments.length >= limits.maxPathDepth) {
        const message = `a path has more than ${limits.maxPathDepth} segments`;
        throw errorAtPosition('limit_exceeded', message, 'sort', loc.position(i));
      }
      segments.push({ name, span: loc.span(i, end) });
      i = end;
      if (text.charCodeAt(i) !== 0x2f) break;
      i++;
      // Located at the slash, as in a filter path: the slash is what cannot touch whitespace.
      if (isSpace(text.charCodeAt(i))) throw invalid(text, loc, i - 1, "whitespace is not allowed after '/'");
    }
    const key = segments.map((s) => s.name).join('/');
    if (seen.has(key)) throw invalid(text, loc, start, `${showToken(key)} appears twice in sort`);
    seen.add(key);
    const pathStart = descending ? start + 1 : start;
    terms.push({
      path: { segments, span: loc.span(pathStart, i) },
      direction: descending ? 'desc' : 'asc',
      span: loc.span(start, i),
    });
    i = skipSpace(text, i);
    if (i >= text.length) return terms;
    if (text.charCodeAt(i) === 0x2f) throw invalid(text, loc, i, "whitespace is not allowed before '/'");
    if (text.charCodeAt(i) !== 0x2c) {
      const hint = sortDirectionHint(text, i, key);
      throw invalid(text, loc, i, "expected ',' or the end of sort", hint);
    }
    i = skipSpace(text, i + 1);
  }
}

function identEnd(text: string, start: number): number {
  if (!isIdentStart(text.charCodeAt(start))) return start;
  let j = start + 1;
  while (isIdentPart(text.charCodeAt(j))) j++;
  return j;
}

function skipSpace(text: string, start: number): number {
  let i = start;
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Build an `invalid_parameter` error for sort, naming what was found at `index` when that helps. */
function invalid(text: string, loc: Locator, index: number, expected: string, hint?: string): ListError {
  const found = index >= text.length ? 'end of input' : showChar(text, index);
  const message = expected.startsWith('expected') ? `${expected}, found ${found}` : expected;
  return errorAtPosition('invalid_parameter', withHint(message, hint), 'sort', loc.position(index));
}

/** A `+` before a name: other grammars' ascending mark (one typed in a URL arrives as a space and is accepted). */
function startHint(text: string, index: number, segments: number): string | undefined {
  if (segments > 0 || text.charCodeAt(index) !== 0x2b) return undefined;
  return "a name alone sorts ascending and '-name' descending: leave the '+' out";
}
