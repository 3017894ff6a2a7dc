import type { Position } from '../errors.ts';

/**
 * UTF-8 byte counting over UTF-16 strings, with the same rules as `positionAt` (a lone surrogate counts 3).
 * Size limits must reject huge input in microseconds, so the hot paths use the native encoder and never walk
 * more than the bound.
 */

const encoder = new TextEncoder();
let scratch = new Uint8Array(1024);
const NON_ASCII = /[^\x00-\x7f]/;

function scratchOf(size: number): Uint8Array {
  if (scratch.length < size) scratch = new Uint8Array(size);
  return scratch.subarray(0, size);
}

/** Count the UTF-8 bytes of a string. */
export function utf8Length(text: string): number {
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Tell whether a string takes more than `max` UTF-8 bytes, looking at no more than `max` bytes of it. */
export function exceedsBytes(text: string, max: number): boolean {
  // A UTF-16 unit takes 1 to 3 bytes, so most strings are decided by their length alone.
  if (text.length * 3 <= max) return false;
  if (text.length > max) return true;
  return encoder.encodeInto(text, scratchOf(max)).read < text.length;
}

/**
 * Find the first character that does not fit in `max` UTF-8 bytes: its UTF-16 index and its Position (the
 * start of that character, which is the first byte past the bound unless a multi-byte character straddles it).
 * Undefined when the whole string fits.
 */
export function overflowAt(text: string, max: number): { index: number; position: Position } | undefined {
  if (text.length * 3 <= max) return undefined;
  const { read, written } = encoder.encodeInto(text, scratchOf(max));
  if (read >= text.length) return undefined;
  // Count lines within the bound only: a slice of the head is cheap, and a forward indexOf on it is much faster than
  // lastIndexOf on the (possibly huge) whole text.
  const head = text.slice(0, read);
  let line = 1;
  let lineStart = -1;
  for (let k = head.indexOf('\n'); k >= 0; k = head.indexOf('\n', k + 1)) {
    line++;
    lineStart = k;
  }
  const column =
    lineStart < 0 ? written + 1 : encoder.encodeInto(head.slice(lineStart + 1), scratchOf(max)).written + 1;
  return { index: read, position: { offset: written, line, column } };
}
