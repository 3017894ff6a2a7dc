import { SecondSendingMemo } from '../bounded-map.ts';
import type { ParsedQuery } from '../syntax/ast.ts';
import type { EngineSettings } from './config.ts';

/**
 * Parsed requests remembered by their exact text, per engine: a client that sends the same parameters again (a page
 * refreshed, a dashboard polling) gets the very ParsedQuery of the time before, and later stages key their own memos
 * on that object. A text is remembered the second time it is seen (the first only notes it, in a bounded set of
 * texts): a stream of never-repeated requests (a new literal each time) then keeps nothing alive, and costs the
 * garbage collector nothing more than before. Only requests that parsed without error are remembered, so every
 * refusal is computed afresh.
 */

/** Requests kept per engine (SecondSendingMemo, bounded-map.ts). */
const MAX_REQUESTS = 512;

/** Longer requests are parsed every time (their filter text is still cached): the memo's memory stays small. */
const MAX_TEXT = 4096;

/** Texts seen once, per engine, kept as hashes until this many have gathered (SecondSendingMemo). */
const MAX_SEEN = 4096;

const memos = new WeakMap<EngineSettings<any>, SecondSendingMemo<ParsedQuery>>();
const remembered = new WeakSet<ParsedQuery>();

function memoOf(settings: EngineSettings<any>): SecondSendingMemo<ParsedQuery> {
  let memo = memos.get(settings);
  if (!memo) {
    memo = new SecondSendingMemo(MAX_REQUESTS, MAX_SEEN);
    memos.set(settings, memo);
  }
  return memo;
}

/** The ParsedQuery this engine remembers for a request text, if any. */
export function rememberedRequest(settings: EngineSettings<any>, text: string): ParsedQuery | undefined {
  return memoOf(settings).get(text);
}

/** Note a request text parsed without error: remembered (with its ParsedQuery) when it was seen before. */
export function noteRequest(settings: EngineSettings<any>, text: string, parsed: ParsedQuery): void {
  if (memoOf(settings).note(text, parsed)) remembered.add(parsed);
}

/** Let later stages remember their work on a ParsedQuery handed out again by another memo (request-mask.ts). */
export function markRemembered(parsed: ParsedQuery): void {
  remembered.add(parsed);
}

/** Tell whether a ParsedQuery is one the parse memo hands out again (later stages remember their work on it). */
export function isRemembered(parsed: ParsedQuery): boolean {
  return remembered.has(parsed);
}

/**
 * A text that tells two requests apart exactly (every name, value and absent value, in order, and whether the
 * request is the object form), or undefined when the request holds something else (a `fields` array, numbers) or is
 * too long to remember. Each part is length-prefixed, so no value can impersonate a separator.
 */
export function requestText(query: unknown, objectForm: boolean): string | undefined {
  if (typeof query === 'string') return query.length > MAX_TEXT ? undefined : `s${query}`;
  if (typeof query !== 'object' || query === null || query instanceof URLSearchParams) return undefined;
  let text = objectForm ? 'o' : 'q';
  const values = query as Record<string, unknown>;
  for (const name of Object.keys(values)) {
    const value = values[name];
    text += `${name.length}:${name}`;
    if (typeof value === 'string') text += `=${value.length}:${value}`;
    else if (value === undefined) text += 'u';
    else if (Array.isArray(value)) {
      text += `[${value.length}`;
      for (const item of value) {
        if (typeof item !== 'string') return undefined;
        text += `,${item.length}:${item}`;
      }
    } else return undefined;
    if (text.length > MAX_TEXT) return undefined;
  }
  return text;
}
