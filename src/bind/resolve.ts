import { OPERATORS } from '../policy/options.ts';
import type { FilterNode, Ident, Path, QuantifierNode, SortTerm, Span } from '../syntax/ast.ts';
import { sortModifiers } from '../syntax/sort.ts';
import { resolveAggregateSort, resolveAggregateTest } from './resolve-aggregate.ts';
import { comparisonOn, membershipOn } from './resolve-literal.ts';
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
  BoundSchema,
  FieldRef,
  Operator,
  ResolvedFilter,
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
  return comparisonOn(bound, target, node.operator, node.value, node.span);
}

/** Resolve `<path> in (…)` / `not in (…)`, leaving out literals no stored value can equal. */
function membership(
  bound: BoundSchema,
  node: Extract<FilterNode, { kind: 'membership' }>,
  scope: Scope,
): ResolvedFilter {
  const target = fieldPath(bound, node.path, scope, 'filter');
  requireOperator(target, node.path, node.negated ? 'nin' : 'in', node.operatorSpan);
  return membershipOn(bound, target, node.negated, node.values, node.span);
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

function writtenOperator(operator: Operator): string {
  return operator === 'nin' ? 'not in' : operator === 'null' ? 'is null, is not null' : operator;
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
