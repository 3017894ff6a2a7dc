import { errorAtPosition, type ListError } from '../errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../limits.ts';
import type { FacetTerm } from './ast.ts';
import { identEnd, isDigit, isSpace, showChar, showToken, skipSpace } from './keywords.ts';
import { type Locator, locatorFor } from './locator.ts';

/**
 * Parse a `facets` value: `sp term (sp "," sp term)* sp`, where a term is a name (a field or relation of the root,
 * no path) optionally followed by `:N`, the number of values to return (an unsigned decimal from 1 to maxFacetValues,
 * no leading zero, no whitespace around the colon). A name given twice, an empty term or a trailing comma is
 * `invalid_parameter`; more than maxFacets names, or N above maxFacetValues, is `limit_exceeded`; each located.
 *
 * @example parseFacets('author, year:5,tags') // [author, year (top 5), tags]
 */
export function parseFacets(text: string, limits: Limits = DEFAULT_LIMITS): readonly FacetTerm[] {
  const loc = locatorFor(text);
  const terms: FacetTerm[] = [];
  const seen = new Set<string>();
  let i = skipSpace(text, 0);
  for (;;) {
    const start = i;
    if (terms.length >= limits.maxFacets)
      throw errorAtPosition(
        'limit_exceeded',
        `facets names more than ${limits.maxFacets} facets (maxFacets)`,
        'facets',
        loc.position(start),
      );
    const end = identEnd(text, i);
    if (end === i) throw invalid(text, loc, i, 'expected a facet name');
    const name = text.slice(i, end);
    if (seen.has(name)) throw invalid(text, loc, i, `${showToken(name)} appears twice in facets`);
    seen.add(name);
    i = end;
    let limit: number | undefined;
    if (text.charCodeAt(i) === 0x2f) throw invalid(text, loc, i, 'a facet is a name of the list, not a path');
    if (text.charCodeAt(i) === 0x3a) {
      const read = readCount(text, loc, i + 1, limits);
      limit = read.value;
      i = read.end;
    }
    terms.push({
      name: { name, span: loc.span(start, end) },
      ...(limit === undefined ? {} : { limit }),
      span: loc.span(start, i),
    });
    i = skipSpace(text, i);
    if (i >= text.length) return terms;
    if (text.charCodeAt(i) === 0x3a) throw invalid(text, loc, i, "whitespace is not allowed before ':'");
    if (text.charCodeAt(i) !== 0x2c) throw invalid(text, loc, i, "expected ',' or the end of facets");
    i = skipSpace(text, i + 1);
  }
}

/** Read the N of `:N` from `start` (just after the colon): 1 to maxFacetValues, written without a leading zero. */
function readCount(text: string, loc: Locator, start: number, limits: Limits): { value: number; end: number } {
  let end = start;
  while (isDigit(text.charCodeAt(end))) end++;
  if (end === start) {
    const what = isSpace(text.charCodeAt(start))
      ? "whitespace is not allowed after ':'"
      : "expected a number after ':'";
    throw invalid(text, loc, start, what);
  }
  if (text.charCodeAt(start) === 0x30)
    throw invalid(text, loc, start, 'a facet count is a positive number without leading zeros');
  const digits = text.slice(start, end);
  if (digits.length > 9 || Number(digits) > limits.maxFacetValues)
    throw errorAtPosition(
      'limit_exceeded',
      `a facet may return at most ${limits.maxFacetValues} values (maxFacetValues)`,
      'facets',
      loc.position(start),
    );
  return { value: Number(digits), end };
}

/** Build an `invalid_parameter` error for facets, naming what was found at `index`. */
function invalid(text: string, loc: Locator, index: number, expected: string): ListError {
  const found = index >= text.length ? 'end of input' : showChar(text, index);
  const message = expected.startsWith('expected') ? `${expected}, found ${found}` : expected;
  return errorAtPosition('invalid_parameter', message, 'facets', loc.position(index));
}
