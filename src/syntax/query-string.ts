import { invalidParameter } from '../errors.ts';
import { isListParameterName, type QueryValues } from './parameters.ts';

/**
 * Turn a raw query string, a URL, URLSearchParams or a framework's query object into QueryValues. Repeated
 * parameters become arrays, so parseHTTP can reject duplicates; invalid UTF-8 in a known parameter is an
 * `invalid_parameter` error (URLSearchParams would silently turn it into U+FFFD), and in others it is skipped.
 *
 * @example fromQueryString('/books?filter=price%20gt%2010&sort=-price') // { filter: 'price gt 10', sort: '-price' }
 */
export function fromQueryString(input: string | URL | URLSearchParams | Record<string, unknown>): QueryValues {
  if (typeof input === 'string') return parseQuery(queryPart(input));
  if (input instanceof URL) return parseQuery(input.search.slice(1));
  if (input instanceof URLSearchParams) return fromSearchParams(input);
  return fromObject(input);
}

/**
 * Pick the query out of a string: `?a=1` and `a=1` are queries; `/books?a=1` and `https://…?a=1` are a path or
 * URL whose query follows the first `?` (a fragment is dropped).
 */
function queryPart(text: string): string {
  if (text.startsWith('?')) return text.slice(1);
  if (!text.startsWith('/') && !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text)) return text;
  const q = text.indexOf('?');
  if (q < 0) return '';
  const hash = text.indexOf('#', q);
  return hash < 0 ? text.slice(q + 1) : text.slice(q + 1, hash);
}

function parseQuery(query: string): QueryValues {
  // A null prototype keeps names like `__proto__` ordinary keys.
  const out: Record<string, string | string[]> = Object.create(null);
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    if (name === undefined) continue;
    const value = eq < 0 ? '' : decode(part.slice(eq + 1));
    if (value === undefined) {
      if (isListParameterName(name)) throw invalidParameter(name, `${name} is not valid UTF-8`);
      continue;
    }
    add(out, name, value);
  }
  return out;
}

function add(out: Record<string, string | string[]>, name: string, value: string): void {
  const prev = out[name];
  if (prev === undefined) out[name] = value;
  else if (typeof prev === 'string') out[name] = [prev, value];
  else prev.push(value);
}

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();
const ESCAPE = /%[0-9A-Fa-f]{2}/g;

/** Decode `+` and `%XX` escapes as UTF-8; undefined when the bytes are not valid UTF-8. */
function decode(raw: string): string | undefined {
  const text = raw.includes('+') ? raw.replaceAll('+', ' ') : raw;
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    // decodeURIComponent also rejects a `%` without two hex digits, which must stay literal: decode by hand.
    return decodeBytes(text);
  }
}

function decodeBytes(text: string): string | undefined {
  const chunks: Uint8Array[] = [];
  let last = 0;
  for (const m of text.matchAll(ESCAPE)) {
    if (m.index > last) chunks.push(encoder.encode(text.slice(last, m.index)));
    chunks.push(Uint8Array.of(Number.parseInt(m[0].slice(1), 16)));
    last = m.index + 3;
  }
  if (last < text.length) chunks.push(encoder.encode(text.slice(last)));
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  try {
    return fatal.decode(bytes);
  } catch {
    return undefined;
  }
}

function fromSearchParams(params: URLSearchParams): QueryValues {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const name of new Set(params.keys())) {
    const all = params.getAll(name);
    out[name] = all.length === 1 ? (all[0] ?? '') : all;
  }
  return out;
}

/**
 * Copy the string and string-array values of a framework's query object. Absent (undefined) values are
 * skipped; any other non-string value of a known parameter (a nested object, a number) is `invalid_parameter`,
 * because silently dropping a filter would return more rows than the client asked for.
 */
function fromObject(input: Record<string, unknown>): QueryValues {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (typeof value === 'string') out[name] = value;
    else if (Array.isArray(value) && value.every((v): v is string => typeof v === 'string')) out[name] = [...value];
    else if (isListParameterName(name)) throw invalidParameter(name, `${name} must be a string`);
  }
  return out;
}
