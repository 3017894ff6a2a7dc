import { dialectFor } from '../dialect/index.ts';
import { CASE_INSENSITIVE_OPERATORS } from '../policy/field-kind.ts';
import type { Literal, Span, ValueOperator } from '../syntax/ast.ts';
import { clampDecimal, compareBetween, integerDigits, rewriteScale, scaleNeighbours } from './decimal-scale.ts';
import { convertLiteral, foldAscii, type LiteralResult, likeLiteral, normalizeDecimal } from './literal.ts';
import { COMPARE_OPERATORS } from './resolve-aggregate.ts';
import { errorAt } from './resolve-path.ts';
import type { BoundField, BoundSchema, FieldRef, Operator, ResolvedFilter, ResolvedLike } from './types.ts';

// A comparison's or a list's literals, resolved once their target's path and operator are checked (resolve.ts).

/**
 * The comparison of a resolved target (its path and operator already checked) with one literal: the literal converted
 * as the field's type says (a LIKE test's pattern text, folded for the `i` operators), or the pair of comparisons
 * around a decimal's neighbours. Throws `invalid_literal` at the literal. The request memo re-resolves a new literal
 * of a known request through this same function (engine/request-mask.ts).
 */
export function comparisonOn(
  bound: BoundSchema,
  target: FieldRef,
  operator: ValueOperator,
  literal: Literal,
  span: Span,
): ResolvedFilter {
  const like = isLikeOperator(operator);
  const value = literalValue(target.field, literal, bound, like);
  if (like) {
    const text = value as string;
    const folded = CASE_INSENSITIVE_OPERATORS.includes(operator as Operator) ? foldAscii(text) : text;
    return { kind: 'like', target, operator, value: folded, span };
  }
  const between = neighbours(target.field, literal, bound);
  if (between) return compareBetween(target, operator, between.floor, between.ceil, span);
  return { kind: 'compare', target, operator, value, span };
}

/**
 * The `in` / `not in` list of a resolved target (its path and operator already checked): each literal converted, and
 * those no stored value can equal left out. Throws `invalid_literal` at the first literal that does not fit.
 */
export function membershipOn(
  bound: BoundSchema,
  target: FieldRef,
  negated: boolean,
  literals: readonly Literal[],
  span: Span,
): ResolvedFilter {
  const values: unknown[] = [];
  let between: { floor: unknown; ceil: unknown } | undefined;
  for (const literal of literals) {
    const value = literalValue(target.field, literal, bound, false);
    // A literal finer than the column's scale can equal no stored value (see decimal-scale.ts): leave it out.
    const off = neighbours(target.field, literal, bound);
    if (off) between ??= off;
    else values.push(value);
  }
  // The budget counts the list as written, dropped values included.
  const written = { target, values: literals.length };
  if (values.length === 0 && between)
    return compareBetween(target, negated ? 'ne' : 'eq', between.floor, between.ceil, span, written);
  const resolved = { kind: 'in', target, negated, values, span } as const;
  return between ? { ...resolved, written } : resolved;
}

export function isLikeOperator(operator: ValueOperator): operator is ResolvedLike['operator'] {
  return !COMPARE_OPERATORS.has(operator);
}

function literalValue(field: BoundField, literal: Literal, bound: BoundSchema, like: boolean): unknown {
  const result: LiteralResult = like
    ? likeLiteral(field, literal)
    : convertLiteral(field, literal, bound.platform, dialectFor(bound.platform));
  if (!result.ok) throw errorAt('invalid_literal', `invalid literal: ${result.reason}`, 'filter', literal.span);
  return result.value;
}

/** The database values at the column's scale around a literal finer than that scale, where the platform needs them. */
function neighbours(
  field: BoundField,
  literal: Literal,
  bound: BoundSchema,
): { floor: unknown; ceil: unknown } | undefined {
  const dialect = dialectFor(bound.platform);
  const scale = rewriteScale(field, dialect);
  if (scale === undefined || literal.kind !== 'number') return undefined;
  const decimal = normalizeDecimal(literal.text);
  // A literal beyond the column's range is bounded first (see clampDecimal): the bound needs no neighbours.
  const digits = integerDigits(field, dialect);
  const bounded = decimal === undefined || digits === undefined ? decimal : clampDecimal(decimal, digits);
  const around = bounded === undefined ? undefined : scaleNeighbours(bounded, scale);
  if (!around) return undefined;
  const at = (text: string) => literalValue(field, { kind: 'number', text, span: literal.span }, bound, false);
  return { floor: at(around.floor), ceil: at(around.ceil) };
}
