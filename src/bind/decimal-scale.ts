import type { Dialect } from '../dialect/index.ts';
import type { Span } from '../syntax/ast.ts';
import type { BoundField, FieldRef, ResolvedCompare, ResolvedFilter, WrittenLeaf } from './types.ts';

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

const NUMERIC = /^\s*(?:numeric|decimal)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/i;

/**
 * The declared precision and scale of a decimal column: its column type `decimal(p, s)` / `numeric(p, s)` (what the
 * database enforces), else the property's own; either may be unknown (an unconstrained PostgreSQL `numeric`).
 */
export function decimalShape(field: BoundField): { precision?: number; scale?: number } {
  const { prop } = field;
  const m = NUMERIC.exec(prop.columnTypes?.[0] ?? '');
  const precision = m ? Number(m[1]) : prop.precision;
  const scale = m ? Number(m[2] ?? 0) : (prop.scale ?? (prop.precision === undefined ? undefined : 0));
  const count = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  return {
    ...(count(precision) ? { precision } : {}),
    ...(count(scale) && (!count(precision) || scale <= precision) ? { scale } : {}),
  };
}

/** Tell the column's scale when comparisons against it must be rewritten on this dialect, else undefined. */
export function rewriteScale(field: BoundField, dialect: Dialect): number | undefined {
  if (field.kind !== 'decimal' || dialect.exactDecimals) return undefined;
  return decimalShape(field).scale;
}

/**
 * On MySQL / MariaDB, where a literal must be bounded (see clampDecimal), the `n` such that every value the column
 * holds lies strictly between ±10^n: p − s for a declared `decimal(p, s)`, else the widest DECIMAL's (Dialect.decimalDigits: 65). Undefined
 * elsewhere: PostgreSQL compares any literal exactly, and SQLite compares it as the double it is.
 */
export function integerDigits(field: BoundField, dialect: Dialect): number | undefined {
  const widest = dialect.decimalDigits;
  if (widest === undefined) return undefined;
  const { precision, scale = 0 } = decimalShape(field);
  return precision === undefined ? widest : precision - scale;
}

/**
 * Replace a normalized decimal at or beyond ±10^digits (outside every value the column holds) by ±10^digits itself,
 * which compares with every stored value exactly as the literal does (and NULL stays NULL): `price lt -1e81` and
 * `price lt -1000000` mean the same on a `decimal(8, 2)`. MySQL and MariaDB turn a literal of 82 or more digits
 * into another number (`price lt -1e81` matched every row); bounded, it matches what it does on the other dialects.
 */
export function clampDecimal(decimal: string, digits: number): string {
  const negative = decimal.startsWith('-');
  const whole = (negative ? decimal.slice(1) : decimal).split('.')[0] ?? '0';
  if (whole === '0' || whole.length <= digits) return decimal;
  return `${negative ? '-' : ''}1${'0'.repeat(digits)}`;
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

/**
 * Rewrite `<field> <operator> L` for a literal L strictly between `floor` and `ceil` (database values); the result
 * carries `written`, what the client wrote, which the cost budget counts instead of the rewrite.
 */
export function compareBetween(
  target: FieldRef,
  operator: ResolvedCompare['operator'],
  floor: unknown,
  ceil: unknown,
  span: Span,
  written: WrittenLeaf = { target, values: 0 },
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
      return { ...cmp('gt', floor), written };
    case 'gte':
      return { ...cmp('gte', ceil), written };
    case 'lt':
      return { ...cmp('lt', ceil), written };
    case 'lte':
      return { ...cmp('lte', floor), written };
    case 'eq':
      return { kind: 'and', left: cmp('gt', floor), right: cmp('lt', ceil), span, written };
    case 'ne':
      return { kind: 'or', left: cmp('lte', floor), right: cmp('gte', ceil), span, written };
    default: {
      const never: never = operator;
      return never;
    }
  }
}
