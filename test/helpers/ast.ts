/** Render filter ASTs compactly for table-driven tests, e.g. `and(cmp(name eq 'x'), not(in(id [1,2])))`. */
import type { FilterNode, Literal, Path } from '../../src/syntax/ast.ts';

/** Render an AST compactly, e.g. `and(cmp(name eq 'x'), not(in(id [1,2])))`. */
export function show(node: FilterNode): string {
  switch (node.kind) {
    case 'comparison':
      return `cmp(${path(node.path)} ${node.operator} ${lit(node.value)})`;
    case 'membership':
      return `${node.negated ? 'nin' : 'in'}(${path(node.path)} [${node.values.map(lit).join(',')}])`;
    case 'nullCheck':
      return `${node.negated ? 'notnull' : 'null'}(${path(node.path)})`;
    case 'not':
      return `not(${show(node.operand)})`;
    case 'and':
    case 'or':
      return `${node.kind}(${show(node.left)}, ${show(node.right)})`;
    case 'quantifier':
      return `${node.quantifier}(${path(node.path)} ${node.variable.name}: ${show(node.predicate)})`;
    default: {
      const never: never = node;
      return never;
    }
  }
}
const path = (p: Path): string => p.segments.map((s) => s.name).join('/');
const lit = (l: Literal): string =>
  l.kind === 'string' ? `'${l.value}'` : l.kind === 'number' ? l.text : `${l.value}`;
