/**
 * Hints for habits of other query grammars (SQL, OData in upper case, JSON:API, MongoDB, JavaScript): the error
 * keeps its code and position, and its message says what to write in listql instead.
 */
import { KEYWORDS } from './keywords.ts';

/** Words of other grammars, and what listql writes for them. Keys are lower case; matched without case. */
const WORDS: ReadonlyMap<string, string> = new Map([
  ['nin', "write 'not in (…)'"],
  ['notin', "write 'not in (…)'"],
  ['neq', "write 'ne'"],
  ['ge', "write 'gte'"],
  ['le', "write 'lte'"],
  ['like', "write 'contains', 'startswith' or 'endswith' (no wildcards)"],
  ['ilike', "write 'icontains', 'istartswith' or 'iendswith' (no wildcards)"],
  ['isnull', "write 'is null'"],
  ['between', "write 'x gte a and x lte b'"],
]);

/** Symbols of other grammars, longest first, and the listql word for each. */
const SYMBOLS: readonly (readonly [string, string])[] = [
  ['===', 'eq'],
  ['!==', 'ne'],
  ['==', 'eq'],
  ['!=', 'ne'],
  ['<>', 'ne'],
  ['<=', 'lte'],
  ['>=', 'gte'],
  ['&&', 'and'],
  ['||', 'or'],
  ['=', 'eq'],
  ['<', 'lt'],
  ['>', 'gt'],
  ['&', 'and'],
  ['|', 'or'],
  ['!', 'not'],
];

/** The hint for a word found where the filter grammar expected something else, or undefined. */
export function wordHint(word: string): string | undefined {
  const lower = word.toLowerCase();
  const other = WORDS.get(lower);
  if (other !== undefined) return other;
  if (lower !== word && KEYWORDS.has(lower)) return `write '${lower}' (keywords are lower case)`;
  return undefined;
}

/** The listql keyword an upper- or mixed-case word stands for (`NOT` → `not`), or undefined. */
export function lowerCaseKeyword(word: string): string | undefined {
  const lower = word.toLowerCase();
  return lower !== word && KEYWORDS.has(lower) ? lower : undefined;
}

/** The hint for a character the filter grammar has no token for, read with what follows it, or undefined. */
export function symbolHint(text: string, index: number): string | undefined {
  const c = text[index];
  if (c === '"') {
    const close = text.indexOf('"', index + 1);
    const inner = close < 0 ? '' : text.slice(index + 1, close);
    const example = inner !== '' && inner.length <= 24 && !/['\u0000-\u001f]/.test(inner) ? inner : 'text';
    return `strings take single quotes: '${example}'`;
  }
  for (const [symbol, word] of SYMBOLS) if (text.startsWith(symbol, index)) return `write '${word}' for '${symbol}'`;
  return undefined;
}

/**
 * The hint for a sort term followed by a direction word (`name desc`, `name:desc`, `name DESC`), given the index
 * just after the name and the name as written, or undefined.
 */
export function sortDirectionHint(text: string, index: number, name: string): string | undefined {
  const word = /^[ \t\r\n]*:?[ \t\r\n]*([A-Za-z]+)/.exec(text.slice(index, index + 16))?.[1]?.toLowerCase();
  if (word === 'desc' || word === 'descending') return `write '-${name}' to sort descending`;
  if (word === 'asc' || word === 'ascending') return `write '${name}' to sort ascending (no word needed)`;
  return undefined;
}

/**
 * What to write instead of a bracketed parameter name of other grammars (`filter[name]=x`, `filter[price][gt]=10`,
 * `sort[name]=desc`, `page[limit]=10`): listql reads each parameter by its plain name.
 */
export function bracketHint(name: string, value: string): string {
  const parts = /^([A-Za-z]+)((?:\[[^\]]*\])+)$/.exec(name);
  const base = parts?.[1] ?? name.slice(0, name.indexOf('['));
  const keys = [...(parts?.[2] ?? '').matchAll(/\[([^\]]*)\]/g)].map((m) => m[1] ?? '');
  const field = /^[A-Za-z_][A-Za-z0-9_]*$/.test(keys[0] ?? '') ? keys[0] : 'name';
  if (base === 'filter') {
    const op = /^\$?[a-z]+$/.test(keys[1] ?? '') ? (keys[1] ?? '').replace('$', '') : 'eq';
    const literal = /^-?\d+(\.\d+)?$/.test(value)
      ? value
      : value.length <= 24 && !value.includes("'")
        ? `'${value}'`
        : "'…'";
    return `write filter=${field} ${op} ${literal}`;
  }
  if (base === 'sort') return `write sort=${/^desc/i.test(value) ? '-' : ''}${field}`;
  return `listql reads one plain '${base}' parameter`;
}

/** Append a hint to a message when there is one. */
export function withHint(message: string, hint: string | undefined): string {
  return hint === undefined ? message : `${message}: ${hint}`;
}

/** The reminder that a `+` typed in a URL query reaches the server as a space. */
export const PLUS_AS_SPACE = "a '+' in a URL is a space: write %2B";
