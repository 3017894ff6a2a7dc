import type { FilterNode, Literal } from '../syntax/ast.ts';
import { comparisonOn, membershipOn } from './resolve-literal.ts';
import type { BoundSchema, ResolvedFilter } from './types.ts';

/**
 * A resolved filter with new literals: `node` is the parsed filter a resolved filter was made of (`resolved`), and
 * `literals` the string and number literals of another request of the same text but for them, in the order written
 * (`true` and `false` are part of the text, not literals here). Each literal is converted by the very functions the
 * resolver uses for that field and operator (comparisonOn, membershipOn): what they refuse throws the same error.
 * Undefined when the result would not have the structure of `resolved` (a decimal rewritten around its column's scale,
 * a list value left out, an aggregate, literals that do not match in number or kind): that request is resolved afresh.
 * Paths and operators are not checked again: they are the same text as in `node`, and were checked when it resolved.
 */
export function withLiterals(
  bound: BoundSchema,
  node: FilterNode,
  resolved: ResolvedFilter,
  literals: readonly Literal[],
): ResolvedFilter | undefined {
  const walk: Walk = { bound, literals, next: 0 };
  const out = relit(walk, node, resolved);
  return out !== undefined && walk.next === literals.length ? out : undefined;
}

interface Walk {
  readonly bound: BoundSchema;
  readonly literals: readonly Literal[];
  next: number;
}

/** The next literal of the walk in place of `written` (a boolean stays), when its kind matches. */
function take(walk: Walk, written: Literal): Literal | undefined {
  if (written.kind === 'boolean') return written;
  const literal = walk.literals[walk.next++];
  return literal?.kind === written.kind ? literal : undefined;
}

function relit(walk: Walk, node: FilterNode, resolved: ResolvedFilter): ResolvedFilter | undefined {
  if ('written' in resolved && resolved.written) return undefined;
  switch (node.kind) {
    case 'comparison': {
      if (resolved.kind !== 'compare' && resolved.kind !== 'like') return undefined;
      const literal = take(walk, node.value);
      if (literal === undefined) return undefined;
      if (literal === node.value) return resolved;
      const fresh = comparisonOn(walk.bound, resolved.target, node.operator, literal, resolved.span);
      return fresh.kind === resolved.kind && !('written' in fresh && fresh.written) ? fresh : undefined;
    }
    case 'membership': {
      if (resolved.kind !== 'in' || resolved.values.length !== node.values.length) return undefined;
      const literals: Literal[] = [];
      for (const value of node.values) {
        const literal = take(walk, value);
        if (literal === undefined) return undefined;
        literals.push(literal);
      }
      const fresh = membershipOn(walk.bound, resolved.target, node.negated, literals, resolved.span);
      return fresh.kind === 'in' && !fresh.written && fresh.values.length === literals.length ? fresh : undefined;
    }
    case 'nullCheck':
      return resolved.kind === 'null' || resolved.kind === 'relationNull' ? resolved : undefined;
    case 'not': {
      if (resolved.kind !== 'not') return undefined;
      const operand = relit(walk, node.operand, resolved.operand);
      return operand === undefined ? undefined : operand === resolved.operand ? resolved : { ...resolved, operand };
    }
    case 'and':
    case 'or': {
      if (resolved.kind !== node.kind) return undefined;
      const left = relit(walk, node.left, resolved.left);
      const right = left === undefined ? undefined : relit(walk, node.right, resolved.right);
      if (left === undefined || right === undefined) return undefined;
      return left === resolved.left && right === resolved.right ? resolved : { ...resolved, left, right };
    }
    case 'quantifier': {
      if (resolved.kind !== 'quantifier') return undefined;
      const predicate = relit(walk, node.predicate, resolved.predicate);
      return predicate === undefined
        ? undefined
        : predicate === resolved.predicate
          ? resolved
          : { ...resolved, predicate };
    }
    default:
      // Aggregates (their inner filter's literals come before the test's) are resolved afresh.
      return undefined;
  }
}
