import type { FilterNode, Literal, ParsedQuery, Span } from '../syntax/ast.ts';
import { parseFilter } from '../syntax/filter.ts';
import type { EngineSettings } from './config.ts';
import { type MaskedLiteral, maskFilter } from './request-lexer.ts';
import { markRemembered } from './request-text.ts';
import { SecondSendingMemo } from './second-sending.ts';

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
 */

/** Keys kept per engine, as the parse memo keeps texts (second-sending.ts). */
const MAX_KEYS = 512;

/** Keys seen once, per engine, as 30-bit hashes; forgotten all at once when this many have gathered. */
const MAX_SEEN = 4096;

/** Longer requests are not masked. */
const MAX_TEXT = 4096;

export type { MaskedLiteral };

/** A request of a remembered masked key: the template's parsed request and this request's literals. */
export interface LiteralHit {
  readonly template: ParsedQuery;
  readonly literals: readonly MaskedLiteral[];
}

const memos = new WeakMap<EngineSettings<any>, SecondSendingMemo<ParsedQuery>>();
const HIT = Symbol('listql.literalHit');
let enabled = true;
let counted = 0;

/** A request's masked key and literals, or undefined when it is not one the memo takes. */
export interface Masked {
  readonly key: string;
  readonly filter: string;
  readonly literals: readonly MaskedLiteral[];
}

/**
 * Mask a request's filter: the key (the request's parameters, in order, the filter's literals replaced by marks) and
 * the literals. Undefined for a request without a filter, a raw query string, any value that is not a string, a nested
 * list's parameter, a filter this lexer does not read as the grammar does, or one near a parse limit.
 */
export function maskRequest(settings: EngineSettings<any>, query: unknown, objectForm: boolean): Masked | undefined {
  if (!enabled || typeof query !== 'object' || query === null || query instanceof URLSearchParams) return undefined;
  const values = query as Record<string, unknown>;
  const filter = values.filter;
  if (typeof filter !== 'string') return undefined;
  const { limits } = settings;
  if (filter.length * 3 > limits.maxFilterBytes) return undefined;
  const literals: MaskedLiteral[] = [];
  const masked = maskFilter(filter, literals, limits.maxLiteralBytes);
  if (masked === undefined || literals.length === 0) return undefined;
  let key = objectForm ? 'o' : 'q';
  let units = 0;
  for (const name of Object.keys(values)) {
    const value = values[name];
    if (name.includes('.')) return undefined;
    units += name.length;
    key += `${name.length}:${name}`;
    if (name === 'filter') key += `=${masked.length}:${masked}`;
    else if (typeof value === 'string') key += `=${value.length}:${value}`;
    else if (value === undefined) key += 'u';
    else return undefined;
    units += typeof value === 'string' ? value.length : 0;
    if (key.length > MAX_TEXT) return undefined;
  }
  // A UTF-16 unit is at most 3 UTF-8 bytes: within this, the query's size limit cannot be reached.
  if (units * 3 > limits.maxQueryBytes) return undefined;
  return { key, filter, literals };
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
 * The ParsedQuery of a request whose masked key this engine remembers: the template's parameters, and a filter
 * parsed from this request's own text when something reads it. The request memo (listing-memo.ts) finds the
 * template and the literals through literalHit(). Undefined when the key is not remembered.
 */
export function maskedRequest(settings: EngineSettings<any>, masked: Masked): ParsedQuery | undefined {
  const template = memoOf(settings).get(masked.key);
  if (template === undefined) return undefined;
  const { limits } = settings;
  const text = masked.filter;
  let filter: FilterNode | undefined;
  const hit: LiteralHit = { template, literals: masked.literals };
  // The hit rides on the object itself (a symbol key): cheaper per request than a WeakMap entry.
  return {
    ...restOf(template),
    get filter() {
      filter ??= parseFilter(text, limits);
      return filter;
    },
    [HIT]: hit,
  } as ParsedQuery;
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
  // Nested lists and searches are never remembered by the request memo: no template of them.
  if (parsed.nested !== undefined || parsed.search !== undefined || parsed.cursor !== undefined) return;
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
