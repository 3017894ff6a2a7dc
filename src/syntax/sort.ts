import { errorAtPosition, type ListError } from '../errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../limits.ts';
import type { AggregateCall, Ident, Path, SortTerm } from './ast.ts';
import { aggregateText } from './filter-text.ts';
import { sortDirectionHint, withHint } from './habits.ts';
import { AGGREGATE_FUNCTIONS, identEnd, isSpace, KEYWORDS, showChar, showToken, skipSpace } from './keywords.ts';
import { type Locator, locatorFor } from './locator.ts';
import { parseSortAggregate } from './sort-aggregate.ts';

/**
 * Parse a `sort` value: `sp term (sp "," sp term)* sp`, where term is `-`? followed by a path (or an aggregate call,
 * `reviews/count(r: r/stars gte 4)`, matched by the filter grammar: see sort-aggregate.ts) and any of the
 * modifiers `:ci`, `:nullsfirst`, `:nullslast` (no whitespace around the colon, each at most once, one NULL
 * placement). Errors point, like filter errors, at the end of the longest prefix that still fits (a reserved word
 * at its first byte).
 *
 * @example parseSort('-price, author/name') // [price desc, author/name asc]
 * @example parseSort('-score:nullsfirst,title:ci') // [score desc nulls first, title asc case-insensitive]
 * @example parseSort('-reviews/count(),reviews/avg(stars):nullsfirst') // two aggregate terms
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
    const term = readTermPath(text, loc, i, limits);
    const { aggregate, path } = term;
    i = term.end;
    const key = aggregate ? aggregateText(aggregate) : path.segments.map((s) => s.name).join('/');
    if (seen.has(key)) throw invalid(text, loc, start, `${showToken(key)} appears twice in sort`);
    seen.add(key);
    const modifiers = readModifiers(text, loc, i, key);
    i = modifiers.end;
    terms.push({
      path,
      ...(aggregate ? { aggregate } : {}),
      direction: descending ? 'desc' : 'asc',
      ...(modifiers.nulls ? { nulls: modifiers.nulls } : {}),
      ...(modifiers.caseInsensitive ? { caseInsensitive: true as const } : {}),
      span: loc.span(start, i),
    });
    i = skipSpace(text, i);
    if (i >= text.length) return terms;
    if (text.charCodeAt(i) === 0x2f) throw invalid(text, loc, i, "whitespace is not allowed before '/'");
    if (text.charCodeAt(i) === 0x3a && sortDirectionHint(text, i, key) === undefined)
      throw invalid(text, loc, i, "whitespace is not allowed before ':'");
    if (text.charCodeAt(i) !== 0x2c) {
      const hint = sortDirectionHint(text, i, key);
      throw invalid(text, loc, i, "expected ',' or the end of sort", hint);
    }
    i = skipSpace(text, i + 1);
  }
}

/**
 * Read a term's path from `start` (after any `-`): names joined by `/`, or a path ending in an aggregate call
 * (`reviews/count(…)`: a function name after a `/` and before `(`, so a field may still be named `count`).
 */
function readTermPath(
  text: string,
  loc: Locator,
  start: number,
  limits: Limits,
): { readonly path: Path; readonly aggregate?: AggregateCall; readonly end: number } {
  const segments: Ident[] = [];
  let i = start;
  for (;;) {
    const end = identEnd(text, i);
    if (end === i) throw invalid(text, loc, i, 'expected a field name', startHint(text, i, segments.length));
    const name = text.slice(i, end);
    if (segments.length > 0 && AGGREGATE_FUNCTIONS.has(name) && text.charCodeAt(end) === 0x28) {
      const parsed = parseSortAggregate(text, loc, start, end, limits);
      return { path: parsed.call.path, aggregate: parsed.call, end: parsed.end };
    }
    if (KEYWORDS.has(name)) throw invalid(text, loc, i, `${showToken(name)} is a reserved word`);
    if (segments.length >= limits.maxPathDepth) {
      const message = `a path has more than ${limits.maxPathDepth} segments`;
      throw errorAtPosition('limit_exceeded', message, 'sort', loc.position(i));
    }
    segments.push({ name, span: loc.span(i, end) });
    i = end;
    if (text.charCodeAt(i) !== 0x2f) return { path: { segments, span: loc.span(start, i) }, end: i };
    i++;
    // Located at the slash, as in a filter path: the slash is what cannot touch whitespace.
    if (isSpace(text.charCodeAt(i))) throw invalid(text, loc, i - 1, "whitespace is not allowed after '/'");
  }
}

interface Modifiers {
  readonly end: number;
  readonly nulls?: 'first' | 'last';
  readonly caseInsensitive?: boolean;
}

const MODIFIERS = "'ci', 'nullsfirst' or 'nullslast'";

/** Read a term's `:word` modifiers from `start` (just after its path); each is a lower-case word, at most once. */
function readModifiers(text: string, loc: Locator, start: number, key: string): Modifiers {
  let i = start;
  let nulls: 'first' | 'last' | undefined;
  let caseInsensitive = false;
  while (text.charCodeAt(i) === 0x3a) {
    const at = i + 1;
    if (isSpace(text.charCodeAt(at))) throw invalid(text, loc, i, "whitespace is not allowed after ':'");
    const end = identEnd(text, at);
    const word = text.slice(at, end);
    if (word === 'ci') {
      if (caseInsensitive) throw invalid(text, loc, at, `':ci' appears twice on ${showToken(key)}`);
      caseInsensitive = true;
    } else if (word === 'nullsfirst' || word === 'nullslast') {
      if (nulls) throw invalid(text, loc, at, `${showToken(key)} has two NULL placements`);
      nulls = word === 'nullsfirst' ? 'first' : 'last';
    } else {
      const hint = sortDirectionHint(text, i, key) ?? modifierHint(word);
      throw invalid(text, loc, at, `expected ${MODIFIERS} after ':'`, hint);
    }
    i = end;
  }
  return { end: i, ...(nulls ? { nulls } : {}), ...(caseInsensitive ? { caseInsensitive } : {}) };
}

/** A modifier written another way (`:NULLS_FIRST`, `:nulls-last`, `:CI`). */
function modifierHint(word: string): string | undefined {
  const lower = word.toLowerCase().replace(/[_-]/g, '');
  if (lower === 'ci' || lower === 'nullsfirst' || lower === 'nullslast') return `write ':${lower}'`;
  if (lower === 'nulls' || lower === 'first' || lower === 'last') return "write ':nullsfirst' or ':nullslast'";
  return undefined;
}

/** A term's modifiers as a resolved sort term carries them: `nullsFirst` and `caseInsensitive`, each only when set. */
export function sortModifiers(term: SortTerm): { readonly nullsFirst?: true; readonly caseInsensitive?: true } {
  return {
    ...(term.nulls === 'first' ? { nullsFirst: true as const } : {}),
    ...(term.caseInsensitive ? { caseInsensitive: true as const } : {}),
  };
}

/** Write a parsed term back in canonical form: `-` for descending, the path, then `:ci` and the NULL placement. */
export function sortTermText(term: SortTerm): string {
  const path = term.aggregate ? aggregateText(term.aggregate) : term.path.segments.map((s) => s.name).join('/');
  const nulls = term.nulls ? `:nulls${term.nulls}` : '';
  return `${term.direction === 'desc' ? '-' : ''}${path}${term.caseInsensitive ? ':ci' : ''}${nulls}`;
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
