import { invalidParameter, limitExceeded } from '../errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../limits.ts';
import type { ParsedQuery } from './ast.ts';
import { utf8Length } from './bytes.ts';
import { parseFacets } from './facets.ts';
import { parseFields } from './fields.ts';
import { parseFilter } from './filter.ts';
import { bracketHint, withHint } from './habits.ts';
import { collectNested, parseNested } from './nested-parameters.ts';
import {
  isListParameterName,
  KNOWN_PARAMETERS,
  type KnownParameter,
  type ListParameters,
  type QueryValues,
} from './parameters.ts';
import { fromQueryString } from './query-string.ts';
import { parseSort } from './sort.ts';
import { checkCursor, checkSearch, parseCount, parseUnsigned, single } from './values.ts';

/** Options of parseHTTP. */
export interface ParseOptions {
  /** Overrides of the request bounds (docs/language.md, Limits); the rest keep their defaults. */
  readonly limits?: Partial<Limits>;
}

type MutableParsed = { -readonly [K in keyof ParsedQuery]: ParsedQuery[K] };

/**
 * Parse and validate every list parameter, the path-named ones of nested lists (`reviews.limit`) included; throws
 * ListError. Cheap checks run first (query size, then
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
  const dotted = checkQueryBytes(query, limits);
  checkBracketNames(query);
  const raw: Partial<Record<KnownParameter, string>> = {};
  for (const name of KNOWN_PARAMETERS) {
    const value = single(query, name);
    if (value !== undefined) raw[name] = value;
  }
  const nested = dotted ? collectNested(query, limits) : undefined;
  if (raw.cursor !== undefined && raw.offset !== undefined) {
    throw invalidParameter('offset', 'offset cannot be combined with cursor');
  }
  const out: MutableParsed = {};
  if (raw.limit !== undefined) out.limit = parseUnsigned('limit', raw.limit);
  if (raw.offset !== undefined) out.offset = parseUnsigned('offset', raw.offset);
  if (raw.count !== undefined) out.count = parseCount('count', raw.count);
  if (raw.cursor !== undefined) out.cursor = checkCursor('cursor', raw.cursor, limits);
  if (raw.search !== undefined) out.search = checkSearch(raw.search, limits);
  if (raw.fields !== undefined) out.fields = parseFields(raw.fields, limits);
  if (raw.facets !== undefined) out.facets = parseFacets(raw.facets, limits);
  if (raw.sort !== undefined) out.sort = parseSort(raw.sort, limits);
  if (raw.filter !== undefined) out.filter = parseFilter(raw.filter, limits);
  // The nested lists' values after the top level's: their sorts and filters cost most.
  if (nested !== undefined) out.nested = parseNested(nested, limits);
  return out;
}

const frozenMerges = new WeakMap<Partial<Limits>, Limits>();

/**
 * Lay overrides over the defaults, skipping keys given as undefined (possible from plain JavaScript callers). A
 * frozen overrides object (an engine's limits) cannot change, so its merge is made once: the same Limits object
 * each time also lets the parse cache find its key (limitsKey) without computing it.
 */
function mergeLimits(overrides: Partial<Limits>): Limits {
  if (!Object.isFrozen(overrides)) return mergeAfresh(overrides);
  let merged = frozenMerges.get(overrides);
  if (!merged) {
    merged = Object.freeze(mergeAfresh(overrides));
    frozenMerges.set(overrides, merged);
  }
  return merged;
}

function mergeAfresh(overrides: Partial<Limits>): Limits {
  const merged: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(overrides)) if (typeof value === 'number') merged[key] = value;
  return merged as unknown as Limits;
}

/**
 * Reject a query whose parameter names and values together pass maxQueryBytes, without decoding twice. Tell whether
 * a name has a dot, the mark of a nested list's parameter (`reviews.limit`): a query without one skips them at once.
 */
function checkQueryBytes(query: QueryValues, limits: Limits): boolean {
  const strings: string[] = [];
  let units = 0;
  let dotted = false;
  for (const [name, value] of Object.entries(query)) {
    if (!dotted && name.includes('.')) dotted = true;
    strings.push(name);
    units += name.length;
    for (const v of typeof value === 'string' ? [value] : Array.isArray(value) ? value : []) {
      if (typeof v !== 'string') continue;
      strings.push(v);
      units += v.length;
    }
  }
  // A UTF-16 unit is 1 to 3 UTF-8 bytes: most queries are decided without counting bytes.
  if (units * 3 <= limits.maxQueryBytes) return dotted;
  let bytes = units;
  if (units <= limits.maxQueryBytes) {
    bytes = 0;
    for (const s of strings) bytes += utf8Length(s);
  }
  if (bytes > limits.maxQueryBytes) {
    throw limitExceeded(`query is longer than ${limits.maxQueryBytes} bytes`);
  }
  return dotted;
}

/**
 * Refuse `filter[name]=x` and the like (JSON:API, qs, Rails): always, whatever `unknownParameters` says, because
 * ignoring it would answer with every row the client meant to filter out.
 */
export function checkBracketNames(query: QueryValues): void {
  for (const name in query) {
    const open = name.indexOf('[');
    if (open < 0 || !isListParameterName(name.slice(0, open))) continue;
    const given = query[name];
    const value = typeof given === 'string' ? given : (given?.[0] ?? '');
    const message = withHint(`${name} is not a list parameter`, bracketHint(name, value));
    throw invalidParameter(name, message, value, 0);
  }
}
