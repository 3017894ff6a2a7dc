// The one pass over a filter's text that the literal memo keys requests by (request-mask.ts): the grammar's tokens
// as far as telling literals from the rest needs, and no further.

/** Marks a masked literal in a key: a control character, which a filter that parses has nowhere else. */
const STRING_MARK = '\u0001s';
const NUMBER_MARK = '\u0001n';

/** A literal of the request as written: a string's value (its `''` undone) or a number's text. */
export interface MaskedLiteral {
  readonly kind: 'string' | 'number';
  readonly text: string;
}

/**
 * The filter text with each string and number literal replaced by its kind's mark, collecting the literals; undefined
 * where the text holds what a filter that parses cannot (a control character outside a string, a string left open, a
 * malformed number), or a literal near maxLiteralBytes.
 */
export function maskFilter(text: string, literals: MaskedLiteral[], maxLiteralBytes: number): string | undefined {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isIdentStart(c)) {
      i++;
      while (i < text.length && isIdentPart(text.charCodeAt(i))) i++;
    } else if (c === 0x27) {
      let end = i + 1;
      let quoted = false;
      for (;;) {
        const close = text.indexOf("'", end);
        if (close < 0) return undefined;
        if (text.charCodeAt(close + 1) !== 0x27) {
          end = close;
          break;
        }
        quoted = true;
        end = close + 2;
      }
      const raw = text.slice(i + 1, end);
      if ((raw.length + 2) * 3 > maxLiteralBytes || hasControl(raw)) return undefined;
      literals.push({ kind: 'string', text: quoted ? raw.replaceAll("''", "'") : raw });
      out += text.slice(copied, i) + STRING_MARK;
      i = end + 1;
      copied = i;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < text.length && isNumberPart(text.charCodeAt(end))) end++;
      const raw = text.slice(i, end);
      if (raw.length * 3 > maxLiteralBytes || !NUMBER.test(raw)) return undefined;
      literals.push({ kind: 'number', text: raw });
      out += text.slice(copied, i) + NUMBER_MARK;
      i = end;
      copied = i;
    } else if (c < 0x20 ? c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d : c === 0x7f) return undefined;
    else i++;
  }
  return out + text.slice(copied);
}

/** The grammar's number: `-`? integer fraction? exponent?. */
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

function isIdentStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}

function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 0x30 && c <= 0x39);
}

/** What a number's text can hold: digits, `.`, `e`, `E`, `+`, `-` (the whole is then checked against NUMBER). */
function isNumberPart(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}

function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}
