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

/** Requests kept per engine: two generations of half as many each (see ParsedMemo). */
const MAX_REQUESTS = 512;

/** Longer requests are parsed every time (their filter text is still cached): the memo's memory stays small. */
const MAX_TEXT = 4096;

/**
 * Texts seen once, per engine, as 30-bit hashes (small integers: nothing the garbage collector has to keep or move);
 * forgotten all at once when this many have gathered. Two texts of one hash only make the second remembered at its
 * first sending: the memo itself is keyed by the whole text.
 */
const MAX_SEEN = 4096;

/**
 * Two generations instead of a strict LRU order: a hit in the young one costs one lookup (no reordering), a hit in
 * the old one moves the entry to the young one, and when the young one is full it becomes the old one (whose
 * entries, unused since, are dropped). At most `MAX_REQUESTS` entries are kept.
 */
interface ParsedMemo {
  young: Map<string, ParsedQuery>;
  old: Map<string, ParsedQuery>;
  seen: Set<number>;
}

const memos = new WeakMap<EngineSettings<any>, ParsedMemo>();
const remembered = new WeakSet<ParsedQuery>();

function memoOf(settings: EngineSettings<any>): ParsedMemo {
  let memo = memos.get(settings);
  if (!memo) {
    memo = { young: new Map(), old: new Map(), seen: new Set() };
    memos.set(settings, memo);
  }
  return memo;
}

/** The ParsedQuery this engine remembers for a request text, if any. */
export function rememberedRequest(settings: EngineSettings<any>, text: string): ParsedQuery | undefined {
  const memo = memoOf(settings);
  const young = memo.young.get(text);
  if (young) return young;
  const old = memo.old.get(text);
  if (old) {
    memo.old.delete(text);
    keep(memo, text, old);
  }
  return old;
}

function keep(memo: ParsedMemo, text: string, parsed: ParsedQuery): void {
  if (memo.young.size >= MAX_REQUESTS / 2) {
    memo.old = memo.young;
    memo.young = new Map();
  }
  memo.young.set(text, parsed);
}

/** Note a request text parsed without error: remembered (with its ParsedQuery) when it was seen before. */
export function noteRequest(settings: EngineSettings<any>, text: string, parsed: ParsedQuery): void {
  const memo = memoOf(settings);
  const hash = hashOf(text);
  if (memo.seen.delete(hash)) {
    keep(memo, text, parsed);
    remembered.add(parsed);
    return;
  }
  if (memo.seen.size >= MAX_SEEN) memo.seen = new Set();
  memo.seen.add(hash);
}

/** FNV-1a over the text's UTF-16 units, cut to 30 bits. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
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
