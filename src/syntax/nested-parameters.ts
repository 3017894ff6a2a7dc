import { errorAtPosition, invalidParameter, isListError, limitExceeded } from '../errors.ts';
import type { Limits } from '../limits.ts';
import type { NestedParameters } from './ast.ts';
import { parseFilter } from './filter.ts';
import { type NestedParameter, nestedName, type QueryValues } from './parameters.ts';
import { parseSort } from './sort.ts';
import { checkCursor, parseExactCount, parseUnsigned, single } from './values.ts';

/**
 * The path-named parameters of nested lists (`reviews.filter`, `best.limit`, `reviews.comments.sort`): read like
 * their top-level counterparts, with the same grammar, limits and checks, each error naming the full parameter.
 * Whether a path names a nested list of the request's `fields` is decided when the request is bound.
 */

/** Nested lists one request may parameterize: enough for any sane tree, too few to smuggle in thousands of filters. */
export const MAX_NESTED_LISTS = 16;

/** A request's nested parameters as written, by dotted path, before their values are parsed. */
export type NestedValues = Map<string, Partial<Record<NestedParameter, string>>>;

/**
 * Collect the nested parameters of a query, checking only their presence (once, non-empty, a string), the number
 * of paths and their depth; undefined when there are none. Names without a dot are skipped at the cost of one
 * `indexOf`, so a request without nested parameters pays nothing more.
 */
export function collectNested(query: QueryValues, limits: Limits): NestedValues | undefined {
  let lists: NestedValues | undefined;
  for (const name in query) {
    if (name.indexOf('.') < 0) continue;
    const split = nestedName(name);
    if (split === undefined || query[name] === undefined) continue;
    const { path, parameter } = split;
    if (parameter === 'fields') {
      throw invalidParameter(name, `${name} is not a parameter: write fields=${selectionOf(path)} instead`);
    }
    if (parameter === 'search' || parameter === 'facets') {
      throw invalidParameter(name, `${name} is not a parameter: ${parameter} applies to the top-level list only`);
    }
    const value = single(query, name);
    if (value === undefined) continue;
    lists ??= new Map();
    let entry = lists.get(path);
    if (entry === undefined) {
      checkPath(name, path, lists.size, limits);
      entry = {};
      lists.set(path, entry);
    }
    entry[parameter] = value;
  }
  return lists;
}

/** `reviews.comments` → `reviews(comments(…))`: where a nested list's fields are written. */
function selectionOf(path: string): string {
  const keys = path.split('.');
  return `${keys.join('(')}(…${')'.repeat(keys.length)}`;
}

function checkPath(name: string, path: string, count: number, limits: Limits): void {
  if (count >= MAX_NESTED_LISTS) {
    throw limitExceeded(`a request may give parameters to at most ${MAX_NESTED_LISTS} nested lists`, name);
  }
  const maxDepth = limits.maxSelectionDepth;
  let depth = 1;
  for (let i = path.indexOf('.'); i >= 0; i = path.indexOf('.', i + 1)) depth++;
  if (depth > maxDepth) {
    throw limitExceeded(`${name} names a list nested deeper than ${maxDepth} levels`, name);
  }
}

/**
 * Parse the collected values of every path, cheapest first as at the top level: per path cursor with offset, limit,
 * offset, count and cursor; then every sort; then every filter. The result has no prototype, so a path named
 * `constructor` or `__proto__` is an ordinary key.
 */
export function parseNested(lists: NestedValues, limits: Limits): Readonly<Record<string, NestedParameters>> {
  const out: Record<string, Mutable> = Object.create(null);
  for (const [path, raw] of lists) {
    if (raw.cursor !== undefined && raw.offset !== undefined) {
      throw invalidParameter(`${path}.offset`, `${path}.offset cannot be combined with ${path}.cursor`);
    }
    const parsed: Mutable = {};
    if (raw.limit !== undefined) parsed.limit = parseUnsigned(`${path}.limit`, raw.limit);
    if (raw.offset !== undefined) parsed.offset = parseUnsigned(`${path}.offset`, raw.offset);
    if (raw.count !== undefined) parsed.count = parseExactCount(`${path}.count`, raw.count);
    if (raw.cursor !== undefined) parsed.cursor = checkCursor(`${path}.cursor`, raw.cursor, limits);
    out[path] = parsed;
  }
  for (const [path, raw] of lists) {
    const parsed = out[path] as Mutable;
    if (raw.sort !== undefined) parsed.sort = renamed(`${path}.sort`, 'sort', () => parseSort(raw.sort!, limits));
  }
  for (const [path, raw] of lists) {
    const parsed = out[path] as Mutable;
    if (raw.filter !== undefined) {
      parsed.filter = renamed(`${path}.filter`, 'filter', () => parseFilter(raw.filter!, limits));
    }
  }
  return out;
}

type Mutable = { -readonly [K in keyof NestedParameters]: NestedParameters[K] };

/** `filter …` / `… in sort` / `… the end of sort,` in the messages of the top-level parsers. */
const MENTIONS = {
  filter: /^filter(?= )|(?<= (?:in|of) )filter(?=[,:]|$)/g,
  sort: /^sort(?= )|(?<= (?:in|of) )sort(?=[,:]|$)/g,
} as const;

/**
 * Run a top-level parser on a nested value and give its errors the nested parameter's name, in `parameter` and
 * where the message names the parameter, keeping code and position: the same grammar, limits and messages.
 */
function renamed<T>(parameter: string, base: 'filter' | 'sort', parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!isListError(error) || error.parameter !== base) throw error;
    const message = error.message.replace(MENTIONS[base], parameter);
    throw errorAtPosition(error.code, message, parameter, error.position);
  }
}
