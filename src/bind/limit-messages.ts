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

/** The parts of one filter the cost budget counted, for its message (cost.ts). */
export interface FilterTally {
  /** Sub-queries of one run of the filter, up to where it crossed, and what they weigh (an any/all 1.5). */
  subqueries: number;
  subqueryUnits: number;
  /** Comparisons, and what they weigh per run (COMPARISON_UNITS). */
  comparisons: number;
  comparisonUnits: number;
}

/**
 * Why a filter crosses maxSubqueries, term by term, so a client sees what to drop: `total` as counted up to the
 * comparison or quantifier that crosses, what one run of the filter needs, how many runs (the page, its UNION ALL
 * branches, count=true), and what a relation sort or an offset adds.
 *
 * @example budgetOver(10, 8, { subqueries: 2, subqueryUnits: 3, comparisons: 2, comparisonUnits: 0 }, [page, count], [sort])
 * // the filter needs at least 10 of maxSubqueries (8), 2 over: 2 sub-queries weighing 3 per run, 2 runs (the page,
 * // count=true), and 4 for a sort through a relation
 */
export function budgetOver(
  total: number,
  max: number,
  tally: FilterTally,
  runs: readonly { readonly why: string; readonly times: number }[],
  fixed: readonly { readonly why: string; readonly units: number }[],
): string {
  const times = runs.reduce((n, run) => n + run.times, 0);
  const weighed =
    tally.comparisonUnits > 0 ? ` and ${tally.comparisons} comparisons weighing ${two(tally.comparisonUnits)}` : '';
  const also = fixed.length > 0 ? `, and ${fixed.map((f) => `${two(f.units)} for ${f.why}`).join(', ')}` : '';
  return (
    `the filter needs at least ${two(total)} of maxSubqueries (${max}), ${two(total - max)} over: ` +
    `${tally.subqueries} sub-queries${tally.subqueryUnits === tally.subqueries ? '' : ` weighing ${two(tally.subqueryUnits)}`}` +
    `${weighed} per run, ${times} ${times === 1 ? 'run' : 'runs'} ` +
    `(${runs.map((r) => r.why).join(', ')})${also}`
  );
}

/** Why a sort through relations or an offset alone crosses maxSubqueries. */
export function fixedOver(fixed: readonly { readonly why: string; readonly units: number }[], max: number): string {
  const total = fixed.reduce((n, f) => n + f.units, 0);
  const parts = fixed.map((f) => `${two(f.units)} for ${f.why}`).join(', ');
  return `the request needs ${two(total)} of maxSubqueries (${max}) before its filter, ${two(total - max)} over: ${parts}`;
}

function two(units: number): string {
  return String(Math.round(units * 100) / 100);
}
