import type { Decimal, LiteralValue } from './types.ts';

/** The number rule of the grammar: no leading zero, no bare dot, an optional exponent. */
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** A control character (U+0000–U+001F, U+007F): a string literal cannot hold one, and the grammar has no escape. */
const CONTROL = /[\x00-\x1f\x7f]/;
/** A high surrogate and the low one it pairs with (no lookbehind: older browsers cannot parse one). */
const SURROGATES = /[\uD800-\uDBFF][\uDC00-\uDFFF]|([\uD800-\uDFFF])/g;

/** The first unpaired surrogate of a text, which URLSearchParams would send as U+FFFD; null when there is none. */
function unpaired(text: string): RegExpExecArray | null {
  SURROGATES.lastIndex = 0;
  for (let m = SURROGATES.exec(text); m !== null; m = SURROGATES.exec(text)) if (m[1] !== undefined) return m;
  return null;
}

/**
 * A number given as its exact text, sent as written: a decimal column's value without a float in between
 * (`decimal('10.50')`, `decimal('0.1')`), or an integer beyond 2^53 (`decimal('9007199254740993')`). Use it for a
 * decimal property MikroORM types as `string`: a plain string is sent as a string literal, which such a field refuses.
 *
 * @example books.filter((b) => b('price', 'lt', decimal('19.99')))
 */
export function decimal(text: string | bigint): Decimal {
  const written = typeof text === 'bigint' ? text.toString() : text;
  if (typeof written !== 'string' || !NUMBER.test(written))
    throw new RangeError(`decimal(): ${JSON.stringify(written)} is not a number of the filter grammar`);
  return Object.freeze({ kind: 'decimal', text: written });
}

/**
 * Write a value as a literal of the filter text: strings quoted with `''` for a quote, numbers and bigints as their
 * decimal text, `decimal()` as written, booleans as `true`/`false`, a Date as its RFC 3339 instant
 * (`'2024-01-15T10:00:00.000Z'`). Throws RangeError for what the grammar cannot carry (a control character or an
 * unpaired surrogate in a string, NaN, an infinity, an invalid Date) and TypeError for anything else (null included:
 * write `is null`).
 */
export function literal(value: LiteralValue): string {
  switch (typeof value) {
    case 'string':
      return `'${sendable(value, 'a string literal').replaceAll("'", "''")}'`;
    case 'number':
      if (!Number.isFinite(value)) throw new RangeError(`${value} is not a number the filter grammar can write`);
      return String(value);
    case 'bigint':
    case 'boolean':
      return String(value);
    default:
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) throw new RangeError('an invalid Date cannot be a literal');
        return `'${value.toISOString()}'`;
      }
      if (typeof value === 'object' && value?.kind === 'decimal' && NUMBER.test(value.text)) return value.text;
      throw new TypeError(
        `${value === null ? 'null' : typeof value} is not a literal${value === null ? ": write 'is null'" : ''}`,
      );
  }
}

/**
 * Check that a text reaches the server unchanged: no unpaired surrogate and, in a string literal (`controls` true),
 * no control character. Throws RangeError naming `what`.
 */
export function sendable(text: string, what: string, controls = true): string {
  const bad = unpaired(text) ?? (controls ? CONTROL.exec(text) : null);
  if (bad !== null) {
    const code = bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    throw new RangeError(`${what} cannot carry U+${code}`);
  }
  return text;
}
