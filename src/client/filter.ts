import { literal } from './literal.ts';
import { pathText, variableName } from './names.ts';
import type {
  ComparisonOperator,
  FilterPath,
  LiteralValue,
  OperandsFor,
  OperatorAt,
  QuantifiedPolicy,
  QuantifierPath,
} from './types.ts';

/**
 * A filter expression, built by a FilterBuilder and written as filter text by the request it is given to. `S` is
 * the scope it belongs to, for the types only: `''` for the top level, a quantifier's variable inside it, so a
 * comparison of the top level used inside `any(…)` (where every path must start with a variable) does not compile.
 */
export interface Filter<S extends string = string> {
  /** What the expression is; `empty` for `and()`/`or()` of nothing, which adds no filter. */
  readonly kind: 'comparison' | 'and' | 'or' | 'not' | 'quantifier' | 'empty';
  /** Types only: the scope of the expression. */
  readonly '~scope'?: S;
}

/** An operand `and()` and `or()` leave out, for conditions written inline (`query && b('title', 'contains', query)`). */
export type Skip = undefined | null | false;

/** The scope of a list of operands: where all of them may stand. */
type ScopeOf<F> = F extends Filter<infer S> ? S : never;

/**
 * A variable name a quantifier may introduce inside the active ones `A`: not one of them, not a reserved word (any
 * name when `A` is `any`, a builder typed without a policy).
 */
type FreeVariable<V extends string, A extends string> = unknown extends A
  ? unknown
  : [V] extends [A]
    ? never
    : V extends 'and' | 'or' | 'not' | 'in' | 'is' | 'null' | 'any' | 'all' | 'true' | 'false' | 'asc' | 'desc'
      ? never
      : unknown;

/**
 * Builds the filter expressions of policy P: called as `b(path, operator, value)` for a comparison, with
 * `b.and`, `b.or`, `b.not`, and `b.any`/`b.all` over a to-many relation with a typed variable. Paths, operators and
 * values are checked against what P's type records (docs/client.md). Inside a quantifier, the builder it passes
 * writes every path after its variable (`r/stars`), and builders of outer variables stay usable.
 *
 * @example b.and(b('year', 'gte', 1970), b.any('reviews', 'r', (r) => r('stars', 'gte', 4)))
 */
export interface FilterBuilder<P, S extends string = '', A extends string = never> {
  /** A comparison (`price gt 10`), a membership (`id in (1, 2)`), or a null check (`publisher is null`). */
  <const K extends FilterPath<P>, const O extends OperatorAt<P, K>>(
    path: K,
    operator: O,
    ...operands: OperandsFor<P, K, O>
  ): Filter<S>;
  /** All operands hold (`a and b and c`); `undefined`, `null` and `false` operands are left out. */
  and<const F extends readonly (Filter | Skip)[]>(...operands: F): Filter<ScopeOf<F[number]>>;
  /** Any operand holds (`a or b`); `undefined`, `null` and `false` operands are left out. */
  or<const F extends readonly (Filter | Skip)[]>(...operands: F): Filter<ScopeOf<F[number]>>;
  /** The operand does not hold (`not (a or b)`). */
  not<T extends string>(operand: Filter<T>): Filter<T>;
  /** At least one related row satisfies the predicate (`reviews/any(r: r/stars gte 4)`). */
  any<const R extends QuantifierPath<P>, const V extends string>(
    relation: R,
    variable: V & FreeVariable<V, A>,
    predicate: (v: FilterBuilder<QuantifiedPolicy<P, R>, V, A | V>) => Filter<NoInfer<A | V>>,
  ): Filter<S>;
  /** No related row fails the predicate, true for none (`reviews/all(r: r/stars gte 2)`). */
  all<const R extends QuantifierPath<P>, const V extends string>(
    relation: R,
    variable: V & FreeVariable<V, A>,
    predicate: (v: FilterBuilder<QuantifiedPolicy<P, R>, V, A | V>) => Filter<NoInfer<A | V>>,
  ): Filter<S>;
}

/** The expressions as built: comparisons hold their text, the rest their operands. */
type Node =
  | { readonly kind: 'comparison'; readonly scope: string; readonly text: string }
  | { readonly kind: 'and' | 'or'; readonly left: Node; readonly right: Node }
  | { readonly kind: 'not'; readonly operand: Node }
  | {
      readonly kind: 'quantifier';
      readonly scope: string;
      readonly head: string;
      readonly variable: string;
      readonly predicate: Node;
    }
  | { readonly kind: 'empty' };

/** Every expression a builder made: anything else given as a filter is refused. */
const NODES = new WeakSet<object>();
const EMPTY: Node = made({ kind: 'empty' });

function made<N extends Node>(node: N): N {
  NODES.add(Object.freeze(node));
  return node;
}

function nodeOf(value: unknown): Node {
  if (typeof value !== 'object' || value === null || !NODES.has(value))
    throw new TypeError('a filter is an expression made by the filter builder');
  return value as Node;
}

/** The filter builder of one scope: `''` for the top level (or a nested list's), else a quantifier's variable. */
export function filterBuilder(scope: string): FilterBuilder<any, any, any> {
  const prefix = scope === '' ? '' : `${scope}/`;
  const quantifier =
    (word: 'any' | 'all') =>
    (relation: string, variable: string, build: (v: FilterBuilder<any, any, any>) => Filter): Filter => {
      const head = `${prefix}${pathText(relation)}/${word}`;
      const predicate = nodeOf(build(filterBuilder(variableName(variable))));
      if (predicate.kind === 'empty') throw new RangeError(`${head}: the predicate is empty`);
      return made({ kind: 'quantifier', scope, head, variable, predicate });
    };
  const comparison = (path: string, operator: ComparisonOperator, ...operands: unknown[]): Filter =>
    made({ kind: 'comparison', scope, text: `${prefix}${pathText(path)} ${predicateText(operator, operands)}` });
  return Object.assign(comparison, {
    and: combine('and'),
    or: combine('or'),
    not,
    any: quantifier('any'),
    all: quantifier('all'),
  }) as unknown as FilterBuilder<any, any, any>;
}

const VALUE_OPERATORS = new Set([
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'startswith',
  'endswith',
  'ieq',
  'ine',
  'icontains',
  'istartswith',
  'iendswith',
]);

/** The text after a comparison's path: `gt 10`, `in ('a', 'b')`, `is not null`. */
function predicateText(operator: string, operands: readonly unknown[]): string {
  if (operator === 'is null' || operator === 'is not null') return operator;
  const [value] = operands;
  if (operator === 'in' || operator === 'not in') {
    if (!Array.isArray(value) || value.length === 0)
      throw new RangeError(`${operator} takes a list of one value or more`);
    return `${operator} (${value.map((v: LiteralValue) => literal(v)).join(', ')})`;
  }
  if (!VALUE_OPERATORS.has(operator)) throw new TypeError(`${JSON.stringify(operator)} is not an operator`);
  return `${operator} ${literal(value as LiteralValue)}`;
}

function combine(kind: 'and' | 'or') {
  return (...operands: readonly unknown[]): Filter => {
    const nodes = operands.filter((o) => o !== undefined && o !== null && o !== false).map(nodeOf);
    const kept = nodes.filter((n) => n.kind !== 'empty');
    return kept.length === 0 ? EMPTY : kept.reduce((left, right) => made({ kind, left, right }));
  };
}

function not(operand: unknown): Filter {
  const node = nodeOf(operand);
  if (node.kind === 'empty') throw new RangeError('not() of an empty filter');
  return made({ kind: 'not', operand: node });
}

/**
 * The filter text of an expression of the top level, or undefined when it is empty. `and` binds tighter than `or`
 * and both associate to the left, so parentheses are written only where the tree needs them (`a and (b or c)`,
 * `a or (b or c)`): the server reads back exactly the tree built. Throws RangeError for a path used outside the
 * quantifier of its variable, a top-level path inside a quantifier, or a variable that shadows an active one.
 */
export function filterText(filter: unknown): string | undefined {
  const node = nodeOf(filter);
  return node.kind === 'empty' ? undefined : write(node, []);
}

function write(node: Node, active: readonly string[]): string {
  switch (node.kind) {
    case 'comparison':
      return inScope(node.scope, active, node.text);
    case 'quantifier': {
      const head = inScope(node.scope, active, node.head);
      if (active.includes(node.variable))
        throw new RangeError(`${head}: variable '${node.variable}' is already active`);
      return `${head}(${node.variable}: ${write(node.predicate, [...active, node.variable])})`;
    }
    case 'not':
      return `not ${grouped(node.operand, active, node.operand.kind === 'and' || node.operand.kind === 'or')}`;
    case 'and':
    case 'or': {
      const left = grouped(node.left, active, node.kind === 'and' && node.left.kind === 'or');
      const right = grouped(
        node.right,
        active,
        node.right.kind === 'or' || (node.kind === 'and' && node.right.kind === 'and'),
      );
      return `${left} ${node.kind} ${right}`;
    }
    default:
      throw new RangeError('an empty filter inside an expression');
  }
}

function grouped(node: Node, active: readonly string[], parenthesize: boolean): string {
  const text = write(node, active);
  return parenthesize ? `(${text})` : text;
}

function inScope(scope: string, active: readonly string[], text: string): string {
  if (scope === '' ? active.length > 0 : !active.includes(scope))
    throw new RangeError(
      scope === ''
        ? `${text}: inside a quantifier every path starts with a variable`
        : `${text}: used outside the quantifier of '${scope}'`,
    );
  return text;
}
