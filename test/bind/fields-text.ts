/**
 * Build ParsedQuery pieces for the selection tests without the request parser: `fieldsOf('id,best:reviews(stars)')`
 * lays out FieldSelection nodes with the spans a client's `fields` value would give (one line, ASCII, no spaces), and
 * `nestedOf` parses each nested list parameter with the filter and sort parsers.
 */
import type { FieldSelection, NestedParameters, Span } from '../../src/syntax/ast.ts';
import { parseFilter } from '../../src/syntax/filter.ts';
import { parseSort } from '../../src/syntax/sort.ts';

const span = (start: number, end: number): Span => ({ offset: start, line: 1, column: start + 1, end });

/** Parse `item (, item)*` where item is `(alias:)? name ( '(' items ')' )?`, names `[A-Za-z_][A-Za-z0-9_]*`. */
export function fieldsOf(text: string): readonly FieldSelection[] {
  let i = 0;
  const name = () => {
    const start = i;
    while (i < text.length && /\w/.test(text[i]!)) i++;
    if (i === start) throw new Error(`test: a name expected at ${start} of ${text}`);
    return { name: text.slice(start, i), span: span(start, i) };
  };
  const items = (): FieldSelection[] => {
    const out: FieldSelection[] = [];
    for (;;) {
      let ident = name();
      let alias: typeof ident | undefined;
      if (text[i] === ':') {
        i++;
        alias = ident;
        ident = name();
      }
      let children: FieldSelection[] | undefined;
      if (text[i] === '(') {
        i++;
        children = items();
        if (text[i] !== ')') throw new Error(`test: ')' expected at ${i} of ${text}`);
        i++;
      }
      out.push({ ...ident, ...(alias ? { alias } : {}), ...(children ? { children } : {}) });
      if (text[i] !== ',') return out;
      i++;
    }
  };
  const result = items();
  if (i !== text.length) throw new Error(`test: unexpected ${text[i]} at ${i} of ${text}`);
  return result;
}

/** Nested list parameters as a request names them: `{ 'reviews.limit': '3', 'reviews.filter': 'stars gt 1' }`. */
export function nestedOf(values: Readonly<Record<string, string>>): Record<string, NestedParameters> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [key, value] of Object.entries(values)) {
    const dot = key.lastIndexOf('.');
    const path = key.slice(0, dot);
    const parameter = key.slice(dot + 1);
    const entry = out[path] ?? {};
    out[path] = entry;
    if (parameter === 'filter') entry.filter = parseFilter(value);
    else if (parameter === 'sort') entry.sort = parseSort(value);
    else if (parameter === 'limit' || parameter === 'offset') entry[parameter] = Number(value);
    else if (parameter === 'count') entry.count = value === 'true';
    else entry[parameter] = value;
  }
  return out as Record<string, NestedParameters>;
}
