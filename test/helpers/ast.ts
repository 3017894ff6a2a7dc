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
    case 'aggregate': {
      const c = node.call;
      const inner = c.predicate ? `${c.variable?.name}: ${show(c.predicate)}` : '';
      const args = [c.field?.name, inner].filter(Boolean).join(', ');
      const t = node.test;
      const test =
        t.kind === 'value'
          ? `${t.operator} ${lit(t.value)}`
          : t.kind === 'membership'
            ? `${t.negated ? 'nin' : 'in'} [${t.values.map(lit).join(',')}]`
            : t.negated
              ? 'notnull'
              : 'null';
      return `agg(${path(c.path)}/${c.function}(${args}) ${test})`;
    }
    default: {
      const never: never = node;
      return never;
    }
  }
}
const path = (p: Path): string => p.segments.map((s) => s.name).join('/');
const lit = (l: Literal): string =>
  l.kind === 'string' ? `'${l.value}'` : l.kind === 'number' ? l.text : `${l.value}`;
