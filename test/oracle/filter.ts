/**
 * The reference's own filter tree, and the printer that turns it into filter text for the library to parse.
 * Each literal carries both the text sent to the library and the exact value the reference compares with, so the
 * reference never parses or converts a literal the way the library does.
 */
import type { FieldSpec, Op, RelationSpec } from './model.ts';
import type { Value } from './values.ts';

/** A literal: the text written in the filter, and the value it must mean. */
export interface GenLiteral {
  readonly text: string;
  readonly value: Value;
}

/** A path: from the root (no variable) or a quantifier variable, through to-one hops, to a field. */
export interface GenPath {
  readonly variable?: string;
  readonly hops: readonly RelationSpec[];
  readonly field: FieldSpec;
}

/** The operators that compare a path with one literal (the list and null tests have their own nodes). */
export type ValueOp = Exclude<Op, 'in' | 'nin' | 'null'>;

export type GenFilter =
  | { readonly kind: 'cmp'; readonly path: GenPath; readonly op: ValueOp; readonly literal: GenLiteral }
  | { readonly kind: 'in'; readonly path: GenPath; readonly negated: boolean; readonly literals: readonly GenLiteral[] }
  | { readonly kind: 'null'; readonly path: GenPath; readonly negated: boolean }
  /** `<to-one hops> is null`: the related row at the end of the hops is missing or hidden (`negated`: present). */
  | {
      readonly kind: 'relNull';
      readonly variable?: string;
      readonly hops: readonly RelationSpec[];
      readonly negated: boolean;
    }
  | { readonly kind: 'not'; readonly operand: GenFilter }
  | { readonly kind: 'and' | 'or'; readonly left: GenFilter; readonly right: GenFilter }
  | {
      readonly kind: 'quant';
      readonly quantifier: 'any' | 'all';
      /** The to-one hops, then the to-many relation, starting at `from` (a variable) or the root. */
      readonly from?: string;
      readonly hops: readonly RelationSpec[];
      readonly variable: string;
      readonly predicate: GenFilter;
    }
  /**
   * An aggregate of the related rows (those that pass the inner predicate) compared with a number:
   * `<hops>/count(<variable>: <predicate>) <op> <value>`, or with `fn`, `<hops>/<fn>(<field>, <variable>: …)`, which
   * may also be tested with `is null` / `is not null` (`op` 'null' / 'notnull', `value` then unused).
   */
  | {
      readonly kind: 'count';
      readonly from?: string;
      readonly hops: readonly RelationSpec[];
      readonly fn?: AggregateFn;
      readonly field?: FieldSpec;
      readonly inner?: { readonly variable: string; readonly predicate: GenFilter };
      readonly op: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'null' | 'notnull';
      readonly value: number;
    };

/** The aggregates beside `count()`: NULL when no related row has a non-NULL value of the field. */
export type AggregateFn = 'sum' | 'avg' | 'min' | 'max';

/** Render an aggregate (no comparison): `reviews/count()`, `author/books/avg(price, b: b/title ne 'x')`. */
export function printAggregate(
  a: Pick<Extract<GenFilter, { kind: 'count' }>, 'from' | 'hops' | 'fn' | 'field' | 'inner'>,
  print: (f: GenFilter) => string,
  ws: () => string = () => ' ',
): string {
  const path = [...(a.from ? [a.from] : []), ...a.hops.map((h) => h.name)].join('/');
  const inner = a.inner ? `${a.inner.variable}:${ws()}${print(a.inner.predicate)}` : '';
  if (!a.fn) return `${path}/count(${inner})`;
  return `${path}/${a.fn}(${a.field?.name ?? ''}${inner ? `,${ws()}${inner}` : ''})`;
}

/** Whitespace used between tokens when printing; any non-empty mix of SPACE, TAB, CR and LF is valid. */
export type Spacing = readonly string[];

/** Render a path as the grammar writes it. */
export function printPath(path: GenPath): string {
  return [...(path.variable ? [path.variable] : []), ...path.hops.map((h) => h.name), path.field.name].join('/');
}

/** Render a filter tree as filter text, with parentheses exactly where the tree's shape needs them. */
export function printFilter(filter: GenFilter, spacing: Spacing = [' ']): string {
  let turn = 0;
  const ws = (): string => spacing[turn++ % spacing.length] ?? ' ';
  const group = (f: GenFilter, needs: boolean): string => (needs ? `(${print(f)})` : print(f));
  const print = (f: GenFilter): string => {
    switch (f.kind) {
      case 'cmp':
        return `${printPath(f.path)}${ws()}${f.op}${ws()}${f.literal.text}`;
      case 'in': {
        const list = f.literals.map((l) => l.text).join(`,${ws()}`);
        return `${printPath(f.path)}${ws()}${f.negated ? `not${ws()}in` : 'in'}${ws()}(${list})`;
      }
      case 'null':
        return `${printPath(f.path)}${ws()}is${ws()}${f.negated ? `not${ws()}` : ''}null`;
      case 'relNull': {
        const path = [...(f.variable ? [f.variable] : []), ...f.hops.map((h) => h.name)].join('/');
        return `${path}${ws()}is${ws()}${f.negated ? `not${ws()}` : ''}null`;
      }
      case 'not':
        return `not${ws()}${group(f.operand, f.operand.kind === 'and' || f.operand.kind === 'or')}`;
      case 'and':
        return `${group(f.left, f.left.kind === 'or')}${ws()}and${ws()}${group(f.right, f.right.kind === 'and' || f.right.kind === 'or')}`;
      case 'or':
        return `${print(f.left)}${ws()}or${ws()}${group(f.right, f.right.kind === 'or')}`;
      case 'quant': {
        const path = [...(f.from ? [f.from] : []), ...f.hops.map((h) => h.name)].join('/');
        return `${path}/${f.quantifier}(${f.variable}:${ws()}${print(f.predicate)})`;
      }
      case 'count': {
        const aggregate = printAggregate(f, print, ws);
        if (f.op === 'null' || f.op === 'notnull')
          return `${aggregate}${ws()}is${ws()}${f.op === 'notnull' ? `not${ws()}` : ''}null`;
        return `${aggregate}${ws()}${f.op}${ws()}${f.value}`;
      }
      default: {
        const never: never = f;
        throw new Error(`oracle: unknown node ${String(never)}`);
      }
    }
  };
  return print(filter);
}

/** Count the nodes the library counts (every node of the tree; parentheses make none). */
export function countNodes(filter: GenFilter): number {
  switch (filter.kind) {
    case 'not':
      return 1 + countNodes(filter.operand);
    case 'and':
    case 'or':
      return 1 + countNodes(filter.left) + countNodes(filter.right);
    case 'quant':
      return 1 + countNodes(filter.predicate);
    case 'count':
      return 1 + (filter.inner ? countNodes(filter.inner.predicate) : 0);
    default:
      return 1;
  }
}

/** Measure nesting as the library's limit does: a chain of one connective counts once, each `not` adds one. */
export function expressionDepth(filter: GenFilter, parent?: GenFilter['kind']): number {
  switch (filter.kind) {
    case 'not':
      return 1 + expressionDepth(filter.operand, 'not');
    case 'and':
    case 'or': {
      const own = parent === filter.kind ? 0 : 1;
      return own + Math.max(expressionDepth(filter.left, filter.kind), expressionDepth(filter.right, filter.kind));
    }
    case 'quant':
      return 1 + expressionDepth(filter.predicate, 'quant');
    case 'count':
      return 1 + (filter.inner ? expressionDepth(filter.inner.predicate, 'count') : 0);
    default:
      return 1;
  }
}
