import { dialectFor } from '../dialect/index.ts';
import { CASE_INSENSITIVE_OPERATORS } from '../policy/field-kind.ts';
import { OPERATORS } from '../policy/options.ts';
import type { FilterNode, Ident, Literal, Path, QuantifierNode, SortTerm, Span, ValueOperator } from '../syntax/ast.ts';
import { sortModifiers } from '../syntax/sort.ts';
import { clampDecimal, compareBetween, integerDigits, rewriteScale, scaleNeighbours } from './decimal-scale.ts';
import { convertLiteral, foldAscii, type LiteralResult, likeLiteral, normalizeDecimal } from './literal.ts';
import { COMPARE_OPERATORS, resolveAggregateSort, resolveAggregateTest } from './resolve-aggregate.ts';
import {
  errorAt,
  fieldPath,
  NO_VARIABLES,
  pathStart,
  relationAt,
  type Scope,
  shown,
  toOneHops,
} from './resolve-path.ts';
import type {
  BoundField,
  BoundSchema,
  FieldRef,
  Operator,
  ResolvedFilter,
  ResolvedLike,
  ResolvedQuantifier,
  ResolvedRelationNull,
  ResolvedSortTerm,
} from './types.ts';

/** Resolve a filter tree against a bound schema; `scope` holds the active quantifier variables. */
export function resolveFilter(bound: BoundSchema, node: FilterNode, scope: Scope = NO_VARIABLES): ResolvedFilter {
  switch (node.kind) {
    case 'comparison':
      return comparison(bound, node, scope);
    case 'membership':
      return membership(bound, node, scope);
    case 'nullCheck': {
      const missing = relationNull(bound, node, scope);
      if (missing) return missing;
      const target = fieldPath(bound, node.path, scope, 'filter');
      requireOperator(target, node.path, 'null', node.operatorSpan, node.negated ? 'is not null' : 'is null');
      return { kind: 'null', target, negated: node.negated, span: node.span };
    }
    case 'not':
      return { kind: 'not', operand: resolveFilter(bound, node.operand, scope), span: node.span };
    case 'and':
    case 'or':
      return {
        kind: node.kind,
        left: resolveFilter(bound, node.left, scope),
        right: resolveFilter(bound, node.right, scope),
        span: node.span,
      };
    case 'quantifier':
      return quantifier(bound, node, scope);
    case 'aggregate':
      return resolveAggregateTest(bound, node, scope, resolveFilter);
    default: {
      const never: never = node;
      return never;
    }
  }
}

/** Resolve `<path> <op> <literal>`: a LIKE test, a comparison, or a pair of them around a decimal's neighbours. */
function comparison(
  bound: BoundSchema,
  node: Extract<FilterNode, { kind: 'comparison' }>,
  scope: Scope,
): ResolvedFilter {
  const target = fieldPath(bound, node.path, scope, 'filter');
  requireOperator(target, node.path, node.operator, node.operatorSpan);
  const operator = node.operator;
  const like = isLikeOperator(operator);
  const value = literalValue(target.field, node.value, bound, like);
  if (like) {
    const text = value as string;
    const folded = CASE_INSENSITIVE_OPERATORS.includes(operator as Operator) ? foldAscii(text) : text;
    return { kind: 'like', target, operator, value: folded, span: node.span };
  }
  const between = neighbours(target.field, node.value, bound);
  if (between) return compareBetween(target, operator, between.floor, between.ceil, node.span);
  return { kind: 'compare', target, operator, value, span: node.span };
}

/** Resolve `<path> in (…)` / `not in (…)`, leaving out literals no stored value can equal. */
function membership(
  bound: BoundSchema,
  node: Extract<FilterNode, { kind: 'membership' }>,
  scope: Scope,
): ResolvedFilter {
  const target = fieldPath(bound, node.path, scope, 'filter');
  requireOperator(target, node.path, node.negated ? 'nin' : 'in', node.operatorSpan);
  const values: unknown[] = [];
  let between: { floor: unknown; ceil: unknown } | undefined;
  for (const literal of node.values) {
    const value = literalValue(target.field, literal, bound, false);
    // A literal finer than the column's scale can equal no stored value (see decimal-scale.ts): leave it out.
    const off = neighbours(target.field, literal, bound);
    if (off) between ??= off;
    else values.push(value);
  }
  // The budget counts the list as written, dropped values included.
  const written = { target, values: node.values.length };
  if (values.length === 0 && between)
    return compareBetween(target, node.negated ? 'ne' : 'eq', between.floor, between.ceil, node.span, written);
  const resolved = { kind: 'in', target, negated: node.negated, values, span: node.span } as const;
  return between ? { ...resolved, written } : resolved;
}

/** Resolve one sort term: an aggregate, or a sortable field from the root through to-one hops (`:ci` if allowed). */
export function resolveSortTerm(bound: BoundSchema, term: SortTerm): ResolvedSortTerm {
  if (term.aggregate) return resolveAggregateSort(bound, term, resolveFilter);
  const target = fieldPath(bound, term.path, NO_VARIABLES, 'sort');
  if (!target.field.sortable)
    throw errorAt(
      'field_not_sortable',
      `field ${shown(target.field.publicName)} is not sortable`,
      'sort',
      term.path.span,
    );
  if (term.caseInsensitive && !target.field.sortCaseInsensitive) {
    const message = `field ${shown(target.field.publicName)} cannot be sorted case-insensitively (':ci')`;
    throw errorAt('field_not_sortable', message, 'sort', term.span);
  }
  return { target, direction: term.direction, ...sortModifiers(term) };
}

function requireOperator(target: FieldRef, path: Path, operator: Operator, span: Span, written?: string): void {
  const { field } = target;
  if (!field.filterable)
    throw errorAt('field_not_filterable', `field ${shown(field.publicName)} is not filterable`, 'filter', path.span);
  if (!field.operators.has(operator)) {
    // The allowed operators as the client writes them, in the grammar's order (docs/errors.md).
    const allowed = OPERATORS.filter((op) => field.operators.has(op)).map(writtenOperator);
    throw errorAt(
      'operator_not_allowed',
      `operator '${written ?? writtenOperator(operator)}' is not allowed on ${shown(field.publicName)}; allowed: ${allowed.join(', ')}`,
      'filter',
      span,
    );
  }
}

function isLikeOperator(operator: ValueOperator): operator is ResolvedLike['operator'] {
  return !COMPARE_OPERATORS.has(operator);
}

function writtenOperator(operator: Operator): string {
  return operator === 'nin' ? 'not in' : operator === 'null' ? 'is null, is not null' : operator;
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

/**
 * `<path> is null` whose path ends on a relation: a to-one relation exposed with `nullCheck` tests whether its row is
 * missing; otherwise `operator_not_allowed` (to-one) or `invalid_relationship` (to-many). Undefined for field paths.
 */
function relationNull(
  bound: BoundSchema,
  node: Extract<FilterNode, { kind: 'nullCheck' }>,
  scope: Scope,
): ResolvedRelationNull | undefined {
  const start = pathStart(bound, node.path, scope, 'filter');
  const last = start.rest[start.rest.length - 1] as Ident;
  const { hops, schema } = toOneHops(start.schema, start.rest.slice(0, -1), 'filter');
  const relation = schema.relations.get(last.name);
  if (!relation) return undefined;
  const written = node.negated ? 'is not null' : 'is null';
  if (relation.cardinality === 'many')
    throw errorAt(
      'invalid_relationship',
      `${shown(last.name)} is a to-many relation: '${written}' does not apply; write ${node.negated ? '' : 'not '}${last.name}/any(…)`,
      'filter',
      last.span,
    );
  if (!relation.nullCheck)
    throw errorAt(
      'operator_not_allowed',
      `operator '${written}' is not allowed on relation ${shown(last.name)}`,
      'filter',
      node.operatorSpan,
    );
  const resolved: ResolvedRelationNull = {
    kind: 'relationNull',
    relations: [...hops, relation],
    negated: node.negated,
    span: node.span,
  };
  return start.variable === undefined ? resolved : { ...resolved, from: start.variable };
}

function quantifier(bound: BoundSchema, node: QuantifierNode, scope: Scope): ResolvedQuantifier {
  const start = pathStart(bound, node.path, scope, 'filter');
  const last = start.rest[start.rest.length - 1] as Ident;
  const { hops, schema } = toOneHops(start.schema, start.rest.slice(0, -1), 'filter');
  const relation = relationAt(schema, last, 'filter', 'many');
  if (relation.cardinality === 'one')
    throw errorAt(
      'invalid_relationship',
      `${shown(last.name)} is a to-one relation: ${node.quantifier} needs a to-many relation (write ${last.name}/<field>)`,
      'filter',
      last.span,
    );
  const name = node.variable.name;
  if (scope.has(name))
    throw errorAt(
      'invalid_relationship',
      `variable ${shown(name)} shadows an active variable`,
      'filter',
      node.variable.span,
    );
  const inner = new Map(scope).set(name, relation.target);
  const resolved: ResolvedQuantifier = {
    kind: 'quantifier',
    quantifier: node.quantifier,
    relations: [...hops, relation],
    variable: name,
    predicate: resolveFilter(bound, node.predicate, inner),
    span: node.span,
  };
  return start.variable === undefined ? resolved : { ...resolved, from: start.variable };
}
