import { errorAtPosition } from '../errors.ts';
import type { Limits } from '../limits.ts';
import type { AggregateCall } from './ast.ts';
import { buildSortAggregate } from './build.ts';
import { syntaxError } from './filter.ts';
import { filterGrammar } from './grammar.ts';
import type { Locator } from './locator.ts';

/** The start rule of an aggregate sort term's call (grammar.ohm). */
const SORT_AGGREGATE_RULE = 'sortAggregate';

/**
 * Parse the aggregate call of a sort term that starts at `start` (its path's first character) and whose function's
 * `(` is at `open`: find the matching `)` (skipping quoted strings, whose `''` is an apostrophe), then match the call
 * with the grammar's `sortAggregate` rule, the text before it blanked out so positions stay those of the whole
 * value. Returns the call and the index just after its `)`.
 *
 * @example parseSortAggregate('-reviews/count(r: r/stars in (4,5)),id', loc, 1, 14, limits) // end 35
 */
export function parseSortAggregate(
  text: string,
  loc: Locator,
  start: number,
  open: number,
  limits: Limits,
): { readonly call: AggregateCall; readonly end: number } {
  const end = closingParenthesis(text, open);
  if (end === undefined) throw errorAtPosition('invalid_parameter', "'(' is never closed", 'sort', loc.position(open));
  const blanked = ' '.repeat(start) + text.slice(start, end);
  const match = filterGrammar().match(blanked, SORT_AGGREGATE_RULE);
  if (match.failed()) throw syntaxError(blanked, match, undefined, 'sort', text);
  return { call: buildSortAggregate(match, blanked, loc, limits), end };
}

/** The index just after the `)` that closes the `(` at `open`, or undefined when it is never closed. */
function closingParenthesis(text: string, open: number): number | undefined {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x27) {
      // A string: skip to its closing quote; `''` inside is an apostrophe.
      i++;
      while (i < text.length && !(text.charCodeAt(i) === 0x27 && text.charCodeAt(i + 1) !== 0x27)) {
        i += text.charCodeAt(i) === 0x27 ? 2 : 1;
      }
    } else if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return i + 1;
  }
  return undefined;
}
