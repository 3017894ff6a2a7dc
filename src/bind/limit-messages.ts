import { PLUS_AS_SPACE } from '../syntax/habits.ts';
import { decimalShape } from './decimal-scale.ts';
import type { BoundField } from './types.ts';

/**
 * Messages that name a field's real limits, so a client learns what it may write: the integer range of the
 * column's type, the digits a decimal column holds, and why a date-time with a `+` offset arrived broken.
 */

/** Why an integer literal is out of range: the field's own range, as its column type allows. */
export function integerOutOfRange(field: BoundField): string {
  const range = field.range;
  const limits = range === undefined ? '' : ` (${range.min} to ${range.max})`;
  return `integer out of range for '${field.publicName}'${limits}`;
}

/**
 * Why a decimal literal is refused: not a number, or a number of more than `maxDigits` digits once its exponent is
 * written out; the latter names the digits the column holds when its type declares them.
 */
export function decimalRefused(field: BoundField, isNumber: boolean, maxDigits: number): string {
  const name = field.publicName;
  if (!isNumber) return `expected a number for '${name}'`;
  const { precision, scale = 0 } = decimalShape(field);
  const holds =
    precision === undefined
      ? ''
      : `; '${name}' is decimal(${precision}, ${scale}): at most ${precision - scale} digits before the point and ${scale} after`;
  return `number out of range for '${name}': more than ${maxDigits} digits written out${holds}`;
}

const SPACED_OFFSET = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)? \d{2}:\d{2}$/;

/** The hint for a date-time whose `+hh:mm` offset arrived as ` hh:mm` (a `+` typed in a URL), or ''. */
export function dateTimeHint(value: string): string {
  return SPACED_OFFSET.test(value) ? `: ${PLUS_AS_SPACE}` : '';
}
