import type { AggregateCall, AggregateTest, FilterNode, Literal, Path } from './ast.ts';

/**
 * Write a filter back in one canonical form: single spaces, every `and`/`or` operand that is itself a compound in
 * parentheses, literals as written (numbers by their text, strings with `'` doubled). Two filters that parse to the
 * same tree print alike, so the text can stand for the filter in a cursor signature or a cache key.
 *
 * @example filterText(parseFilter("a eq 1  and (b eq 'x''y' or c is null)")) // "a eq 1 and (b eq 'x''y' or c is null)"
 */
export function filterText(node: FilterNode): string {
  switch (node.kind) {
    case 'comparison':
      return `${pathText(node.path)} ${node.operator} ${literalText(node.value)}`;
    case 'membership':
      return `${pathText(node.path)} ${node.negated ? 'not in' : 'in'} (${node.values.map(literalText).join(', ')})`;
    case 'nullCheck':
      return `${pathText(node.path)} ${node.negated ? 'is not null' : 'is null'}`;
    case 'not':
      return `not ${operand(node.operand, 'not')}`;
    case 'and':
    case 'or':
      return `${operand(node.left, node.kind)} ${node.kind} ${operand(node.right, 'not')}`;
    case 'quantifier':
      return `${pathText(node.path)}/${node.quantifier}(${node.variable.name}: ${filterText(node.predicate)})`;
    case 'aggregate':
      return `${aggregateText(node.call)} ${testText(node.test)}`;
    default: {
      const never: never = node;
      return never;
    }
  }
}

/** Write an aggregate call canonically: `reviews/count()`, `reviews/avg(stars, r: r/stars gte 4)`. */
export function aggregateText(call: AggregateCall): string {
  const inner = call.predicate && call.variable ? `${call.variable.name}: ${filterText(call.predicate)}` : '';
  const args = call.field ? (inner ? `${call.field.name}, ${inner}` : call.field.name) : inner;
  return `${pathText(call.path)}/${call.function}(${args})`;
}

function testText(test: AggregateTest): string {
  switch (test.kind) {
    case 'value':
      return `${test.operator} ${literalText(test.value)}`;
    case 'membership':
      return `${test.negated ? 'not in' : 'in'} (${test.values.map(literalText).join(', ')})`;
    default:
      return test.negated ? 'is not null' : 'is null';
  }
}

/** An operand: a compound is parenthesized, except the left operand of a chain of its own kind (left-associative). */
function operand(node: FilterNode, parent: 'and' | 'or' | 'not'): string {
  const text = filterText(node);
  const compound = node.kind === 'and' || node.kind === 'or';
  return compound && node.kind !== parent ? `(${text})` : text;
}

function pathText(path: Path): string {
  return path.segments.map((s) => s.name).join('/');
}

function literalText(literal: Literal): string {
  if (literal.kind === 'string') return `'${literal.value.replaceAll("'", "''")}'`;
  return literal.kind === 'number' ? literal.text : String(literal.value);
}
