/**
 * Aggregates over a to-many relation (`reviews/count()`, `reviews/avg(stars, r: r/stars gte 4)`) against a bound
 * schema: the relation path, the policy's opt-in, the measured field, the inner filter, and the literals a filter
 * tests the value with.
 */
import { dialectFor } from '../dialect/index.ts';
import { errorAtPosition, isListError } from '../errors.ts';
import { SUMMABLE_KINDS } from '../policy/bind-aggregates.ts';
import type {
  AggregateCall,
  AggregateNode,
  FilterNode,
  Ident,
  Literal,
  SortTerm,
  ValueOperator,
} from '../syntax/ast.ts';
import { aggregateText } from '../syntax/filter-text.ts';
import { sortModifiers } from '../syntax/sort.ts';
import { convertLiteral, normalizeDecimal } from './literal.ts';
import {
  errorAt,
  NO_VARIABLES,
  type Parameter,
  pathStart,
  relationAt,
  type Scope,
  shown,
  toOneHops,
} from './resolve-path.ts';
import { suggestion } from './suggest.ts';
import type {
  AggregateSortTerm,
  BoundField,
  BoundRelation,
  BoundSchema,
  FieldKind,
  ResolvedAggregate,
  ResolvedAggregateTest,
  ResolvedFilter,
} from './types.ts';

/** Resolves an inner filter (resolveFilter, passed in so that the two files do not import each other). */
export type InnerResolver = (bound: BoundSchema, node: FilterNode, scope: Scope) => ResolvedFilter;

/**
 * Resolve an aggregate call: to-one hops, then a to-many relation whose policy allows this aggregate (else the error
 * a forbidden field gets: `field_not_filterable` / `field_not_sortable`), the field it measures, and the inner filter
 * in its own variable scope.
 */
export function resolveAggregate(
  bound: BoundSchema,
  call: AggregateCall,
  scope: Scope,
  parameter: Parameter,
  inner: InnerResolver,
): ResolvedAggregate {
  const start = pathStart(bound, call.path, scope, parameter);
  const last = start.rest[start.rest.length - 1] as Ident;
  const { hops, schema } = toOneHops(start.schema, start.rest.slice(0, -1), parameter);
  const relation = relationAt(schema, last, parameter, 'many');
  if (relation.cardinality === 'one')
    throw errorAt(
      'invalid_relationship',
      `${shown(last.name)} is a to-one relation: ${call.function}() needs a to-many relation`,
      parameter,
      last.span,
    );
  const field = measuredField(relation, call, parameter);
  const resolved: ResolvedAggregate = {
    function: call.function,
    relations: [...hops, relation],
    ...(field ? { field } : {}),
    ...(start.variable === undefined ? {} : { from: start.variable }),
    valueKind: valueKindOf(call.function, field),
    nullable: call.function !== 'count',
    text: aggregateText(call),
    span: call.span,
  };
  if (!call.variable || !call.predicate) return resolved;
  const name = call.variable.name;
  if (scope.has(name))
    throw errorAt(
      'invalid_relationship',
      `variable ${shown(name)} shadows an active variable`,
      parameter,
      call.variable.span,
    );
  const predicate = innerIn(parameter, () => inner(bound, call.predicate!, new Map(scope).set(name, relation.target)));
  return { ...resolved, variable: name, predicate };
}

/** Resolve an inner filter; in a sort term, its errors name `sort` (the filter's resolver names `filter`). */
function innerIn(parameter: Parameter, resolve: () => ResolvedFilter): ResolvedFilter {
  if (parameter === 'filter') return resolve();
  try {
    return resolve();
  } catch (error) {
    if (!isListError(error) || error.parameter !== 'filter') throw error;
    throw errorAtPosition(error.code, error.message, parameter, error.position);
  }
}

/** Resolve a sort term by an aggregate (`-reviews/count()`); `:ci` does not apply to one. */
export function resolveAggregateSort(bound: BoundSchema, term: SortTerm, inner: InnerResolver): AggregateSortTerm {
  const aggregate = resolveAggregate(bound, term.aggregate as AggregateCall, NO_VARIABLES, 'sort', inner);
  if (term.caseInsensitive)
    throw errorAt(
      'field_not_sortable',
      `${aggregate.text} cannot be sorted case-insensitively (':ci')`,
      'sort',
      term.span,
    );
  return { aggregate, direction: term.direction, ...sortModifiers(term) };
}

/** The field of `sum`/`avg`/`min`/`max`, which the relation's policy must list for that function. */
function measuredField(relation: BoundRelation, call: AggregateCall, parameter: Parameter): BoundField | undefined {
  const allowed = relation.aggregates;
  const refused = parameter === 'sort' ? 'field_not_sortable' : 'field_not_filterable';
  const usable = allowedText(relation);
  const written = `${relation.publicName}/${call.function}(${call.field?.name ?? ''})`;
  const notAllowed = () =>
    errorAt(
      refused,
      `aggregate '${written}' is not allowed${usable ? `; allowed: ${usable}` : ''}`,
      parameter,
      call.span,
    );
  if (call.function === 'count') {
    if (!allowed?.count) throw notAllowed();
    return undefined;
  }
  const name = call.field as Ident;
  const listed = allowed?.fields[call.function] ?? new Set<string>();
  const field = relation.target.fields.get(name.name);
  if (!field) {
    // Hidden and non-existent names look alike: only the fields this function may take are suggested.
    const hint = suggestion(name.name, listed);
    throw errorAt('unknown_field', `unknown field ${shown(name.name)}${hint}`, parameter, name.span);
  }
  if (!listed.has(field.publicName)) throw notAllowed();
  return field;
}

/** The aggregates a relation allows, as a client writes them (`reviews/count(), reviews/avg(stars)`). */
function allowedText(relation: BoundRelation): string {
  const allowed = relation.aggregates;
  if (!allowed) return '';
  const out = allowed.count ? [`${relation.publicName}/count()`] : [];
  for (const [fn, fields] of Object.entries(allowed.fields))
    for (const f of fields) out.push(`${relation.publicName}/${fn}(${f})`);
  return out.join(', ');
}

/** The kind of an aggregate's value: count a bigint, sum of integers a bigint, avg of non-floats a decimal. */
function valueKindOf(fn: AggregateCall['function'], field: BoundField | undefined): FieldKind {
  if (fn === 'count' || !field) return 'bigint';
  if (fn === 'min' || fn === 'max') return field.kind;
  if (field.kind === 'float') return 'float';
  if (fn === 'avg' || field.kind === 'decimal' || !SUMMABLE_KINDS.has(field.kind)) return 'decimal';
  return 'bigint';
}

/** The operators that compare a value (the rest test text). */
export const COMPARE_OPERATORS: ReadonlySet<ValueOperator> = new Set(['eq', 'ne', 'gt', 'gte', 'lt', 'lte']);

/**
 * Resolve `<aggregate> <op> <literal>`, `in (…)`, `is null`: the comparison operators, `in`, `not in`, and (not for
 * count, which is never NULL) `is null`. min and max take literals of their field's type; count, sum and avg numbers.
 */
export function resolveAggregateTest(
  bound: BoundSchema,
  node: AggregateNode,
  scope: Scope,
  inner: InnerResolver,
): ResolvedAggregateTest {
  const aggregate = resolveAggregate(bound, node.call, scope, 'filter', inner);
  const t = node.test;
  const refuse = (written: string) =>
    errorAt(
      'operator_not_allowed',
      `operator '${written}' is not allowed on ${aggregate.text}; allowed: eq, ne, gt, gte, lt, lte, in, not in${aggregate.nullable ? ', is null, is not null' : ''}`,
      'filter',
      node.operatorSpan,
    );
  const base = { kind: 'aggregate', aggregate, span: node.span } as const;
  if (t.kind === 'nullCheck') {
    if (!aggregate.nullable) throw refuse(t.negated ? 'is not null' : 'is null');
    return { ...base, test: { kind: 'null', negated: t.negated } };
  }
  const literals = t.kind === 'value' ? [t.value] : t.values;
  if (t.kind === 'value' && !COMPARE_OPERATORS.has(t.operator)) throw refuse(t.operator);
  const values = literals.map((l) => aggregateLiteral(bound, aggregate, l));
  const numberKind = numberKindOf(aggregate, values);
  const withKind = numberKind ? { numberKind } : {};
  if (t.kind === 'value')
    return { ...base, ...withKind, test: { kind: 'compare', operator: t.operator as 'eq', value: values[0] } };
  return { ...base, ...withKind, test: { kind: 'in', negated: t.negated, values } };
}

/** A literal as bound: min/max through the field's type; count/sum/avg a plain decimal string. */
function aggregateLiteral(bound: BoundSchema, aggregate: ResolvedAggregate, literal: Literal): unknown {
  if ((aggregate.function === 'min' || aggregate.function === 'max') && aggregate.field) {
    const result = convertLiteral(aggregate.field, literal, bound.platform, dialectFor(bound.platform));
    if (!result.ok) throw errorAt('invalid_literal', `invalid literal: ${result.reason}`, 'filter', literal.span);
    return result.value;
  }
  const decimal = literal.kind === 'number' ? normalizeDecimal(literal.text) : undefined;
  if (decimal === undefined)
    throw errorAt(
      'invalid_literal',
      `invalid literal: ${aggregate.function}() compares with a number`,
      'filter',
      literal.span,
    );
  return decimal;
}

function numberKindOf(
  aggregate: ResolvedAggregate,
  values: readonly unknown[],
): 'integer' | 'decimal' | 'float' | undefined {
  if (aggregate.function === 'min' || aggregate.function === 'max') return undefined;
  if (aggregate.valueKind === 'float') return 'float';
  return values.every((v) => typeof v === 'string' && !v.includes('.')) ? 'integer' : 'decimal';
}
