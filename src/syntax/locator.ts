import type { Position } from '../errors.ts';
import type { Span } from './ast.ts';

/** Converts UTF-16 indexes of one source text into byte positions and spans. */
export interface Locator {
  position(index: number): Position;
  span(start: number, end: number): Span;
}

// Any character that is not ASCII, or an LF: only then do offsets, lines and columns need a table.
const NEEDS_TABLE = /[^\x00-\x09\x0b-\x7f]/;

/**
 * Build a locator for `text`. Same results as `positionAt`, but O(1) or O(log n) per call after one O(n)
 * pass, because a parse asks for a few positions per AST node.
 */
export function locatorFor(text: string): Locator {
  if (!NEEDS_TABLE.test(text)) return ASCII_ONE_LINE;
  const bytesAt = new Uint32Array(text.length + 1);
  const lineFeeds: number[] = [];
  let offset = 0;
  for (let i = 0; i < text.length; i++) {
    bytesAt[i] = offset;
    const c = text.charCodeAt(i);
    if (c === 0x0a) lineFeeds.push(i);
    if (c < 0x80) offset += 1;
    else if (c < 0x800) offset += 2;
    else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      offset += 4;
      bytesAt[++i] = offset;
    } else offset += 3;
  }
  bytesAt[text.length] = offset;
  const position = (index: number): Position => {
    const at = bytesAt[index] ?? offset;
    const before = countBelow(lineFeeds, index);
    const lineStart = before === 0 ? 0 : (bytesAt[(lineFeeds[before - 1] ?? 0) + 1] ?? 0);
    return { offset: at, line: before + 1, column: at - lineStart + 1 };
  };
  return {
    position,
    span: (start, end) => ({ ...position(start), end: bytesAt[end] ?? offset }),
  };
}

const ASCII_ONE_LINE: Locator = {
  position: (index) => ({ offset: index, line: 1, column: index + 1 }),
  span: (start, end) => ({ offset: start, line: 1, column: start + 1, end }),
};

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** How many sorted entries of `list` are below `value`. */
function countBelow(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] ?? 0) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
