import { errorAtPosition, type ListError } from '../errors.ts';
import type { Ident } from './ast.ts';
import { isIdentPart, isIdentStart, isSpace, showChar, showToken } from './keywords.ts';
import { type Locator, locatorFor } from './locator.ts';

/**
 * Parse a `fields` value: `sp name (sp "," sp name)* sp`, where a name is an identifier (no paths, no `-`).
 * Empty names, trailing commas and a name given twice are `invalid_parameter`, positioned at the fault; whether a
 * name exists and may be selected is decided later, against the policy.
 *
 * @example parseFields('id, title,price') // [id, title, price]
 */
export function parseFields(text: string): readonly Ident[] {
  const loc = locatorFor(text);
  const names: Ident[] = [];
  const seen = new Set<string>();
  let i = skipSpace(text, 0);
  for (;;) {
    const start = i;
    if (!isIdentStart(text.charCodeAt(i))) throw invalid(text, loc, i, 'expected a field name');
    i++;
    while (isIdentPart(text.charCodeAt(i))) i++;
    const name = text.slice(start, i);
    if (seen.has(name)) throw invalidAt(loc, start, `${showToken(name)} appears twice in fields`);
    seen.add(name);
    names.push({ name, span: loc.span(start, i) });
    i = skipSpace(text, i);
    if (i >= text.length) return names;
    if (text.charCodeAt(i) === 0x2f) throw invalidAt(loc, i, 'fields takes field names, not paths');
    if (text.charCodeAt(i) !== 0x2c) throw invalid(text, loc, i, "expected ',' or the end of fields");
    i = skipSpace(text, i + 1);
  }
}

function skipSpace(text: string, start: number): number {
  let i = start;
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}

function invalidAt(loc: Locator, index: number, message: string): ListError {
  return errorAtPosition('invalid_parameter', message, 'fields', loc.position(index));
}

/** Build an `invalid_parameter` error for fields, naming what was found at `index`. */
function invalid(text: string, loc: Locator, index: number, expected: string): ListError {
  const found = index >= text.length ? 'end of input' : showChar(text, index);
  return invalidAt(loc, index, `${expected}, found ${found}`);
}
