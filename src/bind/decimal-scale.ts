import type { Platform } from '@mikro-orm/core';
import { dialectOf } from '../plan/dialect.ts';
import type { Span } from '../syntax/ast.ts';
import type { BoundField, FieldRef, ResolvedCompare, ResolvedFilter } from './types.ts';

/**
 * SQLite keeps `numeric(p, s)` values as binary doubles, so a literal with more fractional digits than the
 * column's scale would be compared as its nearest double (`price eq 10.500000000000000001` would match 10.50).
 * Every stored value is a multiple of 10^-s, so such a literal lies strictly between two neighbours at that scale,
 * and each comparison can be rewritten exactly against them: `gt L` ⇔ `gt floor`, `gte L` ⇔ `gte ceil`,
 * `lt L` ⇔ `lt ceil`, `lte L` ⇔ `lte floor`, `eq L` ⇔ `(gt floor and lt ceil)`, `ne L` ⇔ `(lte floor or gte ceil)`.
 * The rewritten forms keep SQL's NULL semantics. PostgreSQL compares numerics exactly and needs none of this.
 * MySQL and MariaDB compare `=`/`<` exactly, but convert the constants of an IN list of two or more to the
 * column's DECIMAL(p, s), rounding them (`price in (10.500000000000000001, 0)` matches 10.50): rewritten there too.
 */
export interface ScaleNeighbours {
  /** The largest value at the column's scale below the literal. */
  readonly floor: string;
  /** The smallest value at the column's scale above the literal. */
  readonly ceil: string;
}

/** Tell the column's scale when comparisons against it must be rewritten on this platform, else undefined. */
export function rewriteScale(field: BoundField, platform: Platform): number | undefined {
  if (field.kind !== 'decimal' || dialectOf(platform) === 'postgresql') return undefined;
  const scale = field.prop.scale;
  return typeof scale === 'number' && Number.isInteger(scale) && scale >= 0 ? scale : undefined;
}

/**
 * Find the neighbours at `scale` of a normalized decimal string (as normalizeDecimal gives: no exponent, no
 * trailing fractional zeros), or undefined when the literal already fits the scale.
 */
export function scaleNeighbours(decimal: string, scale: number): ScaleNeighbours | undefined {
  const negative = decimal.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? decimal.slice(1) : decimal).split('.');
  if (fraction.length <= scale) return undefined;
  // Truncate toward zero at the scale; the dropped digits are not all zero (the input has no trailing zeros).
  const truncated = BigInt(whole + fraction.slice(0, scale)) * (negative ? -1n : 1n);
  const [floor, ceil] = negative ? [truncated - 1n, truncated] : [truncated, truncated + 1n];
  return { floor: formatScaled(floor, scale), ceil: formatScaled(ceil, scale) };
}

function formatScaled(value: bigint, scale: number): string {
  const sign = value < 0n ? '-' : '';
  const digits = (value < 0n ? -value : value).toString().padStart(scale + 1, '0');
  return scale === 0 ? sign + digits : `${sign}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** Rewrite `<field> <operator> L` for a literal L strictly between `floor` and `ceil` (database values). */
export function compareBetween(
  target: FieldRef,
  operator: ResolvedCompare['operator'],
  floor: unknown,
  ceil: unknown,
  span: Span,
): ResolvedFilter {
  const cmp = (op: ResolvedCompare['operator'], value: unknown): ResolvedCompare => ({
    kind: 'compare',
    target,
    operator: op,
    value,
    span,
  });
  switch (operator) {
    case 'gt':
      return cmp('gt', floor);
    case 'gte':
      return cmp('gte', ceil);
    case 'lt':
      return cmp('lt', ceil);
    case 'lte':
      return cmp('lte', floor);
    case 'eq':
      return { kind: 'and', left: cmp('gt', floor), right: cmp('lt', ceil), span };
    case 'ne':
      return { kind: 'or', left: cmp('lte', floor), right: cmp('gte', ceil), span };
    default: {
      const never: never = operator;
      return never;
    }
  }
}
