import { dialectFor } from '../dialect/index.ts';
import { type ErrorCode, errorAtPosition, type ListError } from '../errors.ts';
import { OPERATORS } from '../policy/options.ts';
import type { FilterNode, Ident, Literal, Path, QuantifierNode, SortTerm, Span, ValueOperator } from '../syntax/ast.ts';
import { clampDecimal, compareBetween, integerDigits, rewriteScale, scaleNeighbours } from './decimal-scale.ts';
import { CASE_INSENSITIVE_OPERATORS } from './field-kind.ts';
import { convertLiteral, foldAscii, type LiteralResult, likeLiteral, normalizeDecimal } from './literal.ts';
import { suggestion } from './suggest.ts';
import type {
  BoundField,
  BoundRelation,
  BoundSchema,
  FieldRef,
  Operator,
  ResolvedFilter,
  ResolvedLike,
  ResolvedQuantifier,
  ResolvedRelationNull,
  ResolvedSortTerm,
} from './types.ts';

type Parameter = 'filter' | 'sort';
/** Which relations a path may name at a point: to-one (a sort path), to-many (a quantifier's own), or either. */
type Reach = 'one' | 'many' | 'either';
/** Active quantifier variables and the schema each ranges over. */
type Scope = ReadonlyMap<string, BoundSchema>;

const NO_VARIABLES: Scope = new Map();

/** Build a ListError located at a span's start (the span's `end` is not part of the public position). */
function errorAt(code: ErrorCode, message: string, parameter: Parameter, span: Span): ListError {
  return errorAtPosition(code, message, parameter, span);
}

/** Quote a client-written name, cut short so that messages never echo large input. */
function shown(name: string): string {
  return `'${name.length > 64 ? `${name.slice(0, 64)}…` : name}'`;
}

/** Resolve a filter tree against a bound schema; `scope` holds the active quantifier variables. */
export function resolveFilter(bound: BoundSchema, node: FilterNode, scope: Scope = NO_VARIABLES): ResolvedFilter {
  switch (node.kind) {
    case 'comparison': {
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
    case 'membership': {
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
    default: {
      const never: never = node;
      return never;
    }
  }
}

/** Resolve one sort term: a sortable field reached from the root through to-one relations only. */
export function resolveSortTerm(bound: BoundSchema, term: SortTerm): ResolvedSortTerm {
  const target = fieldPath(bound, term.path, NO_VARIABLES, 'sort');
  if (!target.field.sortable)
    throw errorAt(
      'field_not_sortable',
      `field ${shown(target.field.publicName)} is not sortable`,
      'sort',
      term.path.span,
    );
  return { target, direction: term.direction };
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

const COMPARE_OPERATORS: ReadonlySet<ValueOperator> = new Set(['eq', 'ne', 'gt', 'gte', 'lt', 'lte']);

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

/** Where a path starts: the root schema, or the schema of the quantifier variable it begins with. */
function pathStart(bound: BoundSchema, path: Path, scope: Scope, parameter: Parameter) {
  if (scope.size === 0) return { schema: bound, variable: undefined, rest: path.segments };
  const [first, ...rest] = path.segments;
  const schema = first && scope.get(first.name);
  if (!first || !schema)
    throw errorAt(
      'invalid_relationship',
      `${shown(first?.name ?? '')} is not an active variable: paths inside any/all start with a variable`,
      parameter,
      first?.span ?? path.span,
    );
  if (rest.length === 0)
    throw errorAt(
      'invalid_relationship',
      `variable ${shown(first.name)} must be followed by a field`,
      parameter,
      path.span,
    );
  return { schema, variable: first.name, rest };
}

/** Walk relation segments that must all be to-one, collecting the hops. */
function toOneHops(schema: BoundSchema, segments: readonly Ident[], parameter: Parameter) {
  const hops: BoundRelation[] = [];
  let current = schema;
  // A filter path may also name a to-many relation here (the error then says to use any/all); a sort path may not.
  const reach: Reach = parameter === 'sort' ? 'one' : 'either';
  for (const segment of segments) {
    const relation = relationAt(current, segment, parameter, reach);
    if (relation.cardinality === 'many') {
      const message =
        parameter === 'sort'
          ? `cannot sort through to-many relation ${shown(segment.name)}`
          : `${shown(segment.name)} is a to-many relation: use ${segment.name}/any(…) or ${segment.name}/all(…)`;
      throw errorAt('invalid_relationship', message, parameter, segment.span);
    }
    hops.push(relation);
    current = relation.target;
  }
  return { hops, schema: current };
}

function relationAt(schema: BoundSchema, segment: Ident, parameter: Parameter, reach: Reach): BoundRelation {
  const relation = schema.relations.get(segment.name);
  if (relation) return relation;
  if (schema.fields.has(segment.name))
    throw errorAt('invalid_relationship', `${shown(segment.name)} is a field, not a relation`, parameter, segment.span);
  // An undisclosed relation is `invalid_relationship`, worded exactly like one that does not exist (docs/policy.md);
  // the suggestion comes from the exposed relations the path could take here, so it tells nothing about the rest.
  const usable = [...schema.relations.values()]
    .filter((r) => reach === 'either' || r.cardinality === reach)
    .map((r) => r.publicName);
  const hint = suggestion(segment.name, usable);
  throw errorAt('invalid_relationship', `unknown relationship ${shown(segment.name)}${hint}`, parameter, segment.span);
}

function fieldPath(bound: BoundSchema, path: Path, scope: Scope, parameter: Parameter): FieldRef {
  const start = pathStart(bound, path, scope, parameter);
  const last = start.rest[start.rest.length - 1] as Ident;
  const { hops, schema } = toOneHops(start.schema, start.rest.slice(0, -1), parameter);
  const field = schema.fields.get(last.name);
  if (!field) {
    if (schema.relations.has(last.name))
      throw errorAt(
        'invalid_relationship',
        `path ends on relation ${shown(last.name)}: name one of its fields`,
        parameter,
        last.span,
      );
    // Hidden and non-existent names look the same: only exposed fields this parameter can use are suggested.
    const usable = [...schema.fields.values()]
      .filter((f) => (parameter === 'sort' ? f.sortable : f.filterable))
      .map((f) => f.publicName);
    throw errorAt(
      'unknown_field',
      `unknown field ${shown(last.name)}${suggestion(last.name, usable)}`,
      parameter,
      last.span,
    );
  }
  const ref: FieldRef = { relations: hops, field, span: path.span };
  return start.variable === undefined ? ref : { ...ref, variable: start.variable };
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
