import { SecondSendingMemo } from '../bounded-map.ts';
import type { FilterNode, Literal, ParsedQuery, Span } from '../syntax/ast.ts';
import { parseFilter } from '../syntax/filter.ts';
import type { EngineSettings } from './config.ts';
import { type MaskedLiteral, maskFilter } from './request-lexer.ts';
import { markRemembered } from './request-text.ts';

/**
 * The literal memo: requests remembered by their parameters with the filter's string and number literals masked, per
 * engine. `price gte 10 and title startswith 'The'` and `price gte 11 and title startswith 'A'` share one key; every
 * other parameter, all whitespace, names, operators, `true` / `false`, each literal's kind (string or number) and the
 * length of each `in` list are part of it. A key seen twice keeps the request of its second sending as a template
 * (parsed, then checked, priced and planned as any request: listing-memo.ts remembers that on it). A later request of
 * the key is not parsed: it gets a ParsedQuery of the template's parameters whose filter is parsed only if read, and
 * the request memo re-resolves its literals into the template's resolved filter (bind/literal-slots.ts), through the
 * functions the resolver uses; a literal they refuse, or one that changes the filter's structure, sends the request
 * down the ordinary path, which parses it and refuses it (or resolves it) exactly as for any request.
 *
 * The checks the template passed hold for its key: the cost budget counts nodes, paths, operators and list lengths,
 * never a literal's value; paging and the cursor plan read `limit`, `offset` and `sort`, which are exact. The parse
 * limits a literal can reach (its own bytes, the filter's, the query's) are checked here, conservatively: a request
 * that comes near any of them is parsed.
 *
 * The cursor is masked the same way: its value is left out of the key (whether there is one is part of it, as the
 * budget reads that), so every page of one listing shares a key, with or without literals in its filter. A request
 * of such a key keeps its own cursor; the request memo decodes it against the template's cursor plan, with this
 * request's seal, so its direction, its age and every refusal are its own. A cursor the parser would refuse (empty,
 * too long, outside base64url) sends the request down the ordinary path.
 */

/** Keys kept per engine, as the parse memo keeps texts (SecondSendingMemo, bounded-map.ts). */
const MAX_KEYS = 512;

/** Keys seen once, per engine, as 30-bit hashes; forgotten all at once when this many have gathered. */
const MAX_SEEN = 4096;

/** Longer requests are not masked. */
const MAX_TEXT = 4096;

export type { MaskedLiteral };

/** A request of a remembered masked key: the template's parsed request and this request's literals. */
export interface LiteralHit {
  readonly template: ParsedQuery;
  /** Empty when the filter has none (only the cursor was masked): the template's filter is this request's. */
  readonly literals: readonly MaskedLiteral[];
}

const memos = new WeakMap<EngineSettings<any>, SecondSendingMemo<ParsedQuery>>();
const HIT = Symbol('listql.literalHit');
/** A ParsedQuery maskedRequest() made: its hit rides on it. */
type HitQuery = ParsedQuery & { readonly [HIT]: LiteralHit };
let enabled = true;
let cursorsMasked = true;
let counted = 0;
let cursorHits = 0;

/** A request's masked key, literals and cursor, or undefined when it is not one the memo takes. */
export interface Masked {
  readonly key: string;
  readonly filter: string | undefined;
  readonly literals: readonly MaskedLiteral[];
  /** The request's cursor, masked in the key. */
  readonly cursor: string | undefined;
}

/** What the parser accepts as a cursor (syntax/values.ts checkCursor): base64url, not empty. */
const CURSOR = /^[A-Za-z0-9_-]+$/;

/** Marks the masked cursor in a key (a control character: no other value of a masked key holds one). */
const CURSOR_MARK = '\u0001c';

/**
 * Mask a request: the key (the request's parameters, in order, the filter's literals and the cursor replaced by
 * marks), the literals and the cursor. Undefined for a request with neither literals nor a cursor, a raw query
 * string, any value that is not a string, a nested list's parameter, a filter this lexer does not read as the
 * grammar does, a cursor the parser would refuse, or one near a parse limit.
 */
export function maskRequest(settings: EngineSettings<any>, query: unknown, objectForm: boolean): Masked | undefined {
  if (!enabled || typeof query !== 'object' || query === null || query instanceof URLSearchParams) return undefined;
  const values = query as Record<string, unknown>;
  const { filter, cursor } = values;
  const { limits } = settings;
  const masksCursor = cursorsMasked && typeof cursor === 'string';
  if (masksCursor && (cursor.length > limits.maxCursorBytes || !CURSOR.test(cursor))) return undefined;
  if (typeof filter !== 'string' && !masksCursor) return undefined;
  if (typeof filter === 'string' && filter.length * 3 > limits.maxFilterBytes) return undefined;
  const literals: MaskedLiteral[] = [];
  const masked = typeof filter === 'string' ? maskFilter(filter, literals, limits.maxLiteralBytes) : undefined;
  if (typeof filter === 'string' && masked === undefined) return undefined;
  if (literals.length === 0 && !masksCursor) return undefined;
  let key = objectForm ? 'o' : 'q';
  let units = 0;
  for (const name of Object.keys(values)) {
    const value = values[name];
    if (name.includes('.')) return undefined;
    units += name.length;
    key += `${name.length}:${name}`;
    if (name === 'filter' && masked !== undefined) key += `=${masked.length}:${masked}`;
    else if (name === 'cursor' && masksCursor) key += CURSOR_MARK;
    else if (typeof value === 'string') key += `=${value.length}:${value}`;
    else if (value === undefined) key += 'u';
    else return undefined;
    units += typeof value === 'string' ? value.length : 0;
    if (key.length > MAX_TEXT) return undefined;
  }
  // A UTF-16 unit is at most 3 UTF-8 bytes: within this, the query's size limit cannot be reached.
  if (units * 3 > limits.maxQueryBytes) return undefined;
  return {
    key,
    filter: typeof filter === 'string' ? filter : undefined,
    literals,
    cursor: masksCursor ? cursor : undefined,
  };
}

function memoOf(settings: EngineSettings<any>): SecondSendingMemo<ParsedQuery> {
  let memo = memos.get(settings);
  if (!memo) {
    memo = new SecondSendingMemo(MAX_KEYS, MAX_SEEN);
    memos.set(settings, memo);
  }
  return memo;
}

/**
 * The ParsedQuery of a request whose masked key this engine remembers: the template's parameters, this request's
 * cursor, and a filter parsed from this request's own text when something reads it (the template's own when only
 * the cursor was masked). The request memo (listing-memo.ts) finds the template and the literals through
 * literalHit(). Undefined when the key is not remembered.
 */
export function maskedRequest(settings: EngineSettings<any>, masked: Masked): ParsedQuery | undefined {
  const template = memoOf(settings).get(masked.key);
  if (template === undefined) return undefined;
  const hit: LiteralHit = { template, literals: masked.literals };
  const cursor = masked.cursor === undefined ? {} : { cursor: masked.cursor };
  // The hit rides on the object itself (a symbol key): cheaper per request than a WeakMap entry.
  if (masked.literals.length === 0) return { ...template, ...cursor, [HIT]: hit } as HitQuery;
  const { limits } = settings;
  const text = masked.filter!;
  let filter: FilterNode | undefined;
  return {
    ...restOf(template),
    ...cursor,
    get filter() {
      filter ??= parseFilter(text, limits);
      return filter;
    },
    [HIT]: hit,
  } as HitQuery;
}

const rests = new WeakMap<ParsedQuery, Omit<ParsedQuery, 'filter'>>();

/** A template's parameters but its filter, made once. */
function restOf(template: ParsedQuery): Omit<ParsedQuery, 'filter'> {
  let rest = rests.get(template);
  if (rest === undefined) {
    const { filter: _filter, ...others } = template;
    rest = others;
    rests.set(template, rest);
  }
  return rest;
}

/** Note a request parsed without error under its masked key: its template from the key's second sending on. */
export function noteMasked(settings: EngineSettings<any>, masked: Masked, parsed: ParsedQuery): void {
  // Nested lists and searches are never remembered by the request memo: no template of them (nor of a cursor while
  // cursors are not masked).
  if (parsed.nested !== undefined || parsed.search !== undefined) return;
  if (parsed.cursor !== undefined && !cursorsMasked) return;
  if (memoOf(settings).note(masked.key, parsed)) markRemembered(parsed);
}

/** The template and literals of a ParsedQuery maskedRequest() made. */
export function literalHit(parsed: ParsedQuery): LiteralHit | undefined {
  return (parsed as { [HIT]?: LiteralHit })[HIT];
}

/** The literals of a hit as the parser's literals, each at the template's place (a refusal is located afresh). */
export function hitLiterals(hit: LiteralHit, span: Span): Literal[] {
  return hit.literals.map((l) =>
    l.kind === 'string' ? { kind: 'string', value: l.text, span } : { kind: 'number', text: l.text, span },
  );
}

/** Count a request whose literals were re-resolved into its template's (for tests: the memo was used). */
export function countLiteralHit(): void {
  counted++;
}

/** Count a request whose cursor was decoded against its template's checks (for tests: the memo was used). */
export function countCursorHit(): void {
  cursorHits++;
}

/** Whether requests with a cursor may be served by a memo (cursorMemo.enable). */
export function cursorsRemembered(): boolean {
  return cursorsMasked;
}

/**
 * Requests served by the literal memo so far, in this process; and a switch to turn the memo off (tests compare an
 * engine with it against one without). Not part of the public interface.
 */
export const literalMemo = {
  hits: (): number => counted,
  enable: (on: boolean): void => {
    enabled = on;
  },
};

/**
 * The same for cursors: requests with a cursor served by a remembered request's checks, and a switch that sends
 * every request with a cursor down the ordinary path (neither masked nor remembered). Not part of the public interface.
 */
export const cursorMemo = {
  hits: (): number => cursorHits,
  enable: (on: boolean): void => {
    cursorsMasked = on;
  },
};
