import { type ErrorCode, errorAtPosition, type ListError, type Position } from '../errors.ts';
import type { Limits } from '../limits.ts';
import type { AggregateCall, FilterNode, Ident, Literal, Path } from './ast.ts';
import { exceedsBytes } from './bytes.ts';
import { showToken } from './keywords.ts';
import type { Locator } from './locator.ts';

/**
 * The limit and scope rules a well-formed filter must also pass, and their messages. build.ts checks them while it
 * builds Ohm's match; `firstRefusal` checks them over the tree the fast parser built, in the same order, so a
 * well-formed filter over a limit is refused without Ohm and with the very error Ohm's build would throw.
 */
export const refusalMessage = {
  nodes: (limits: Limits): string => `filter has more than ${limits.maxNodes} nodes`,
  depth: (limits: Limits): string => `filter nests deeper than ${limits.maxExpressionDepth} levels`,
  quantifiers: (limits: Limits): string => `filter nests more than ${limits.maxQuantifierDepth} any/all`,
  segments: (limits: Limits): string => `a path has more than ${limits.maxPathDepth} segments`,
  values: (limits: Limits): string => `a list has more than ${limits.maxInValues} values`,
  literal: (limits: Limits): string => `a string is longer than ${limits.maxLiteralBytes} bytes`,
  shadows: (name: string): string => `variable ${showToken(name)} shadows an active variable`,
  scopeStart: (innermost: string): string => `inside any/all a path must start with a variable, like '${innermost}/…'`,
  scopeField: (head: string): string => `variable ${showToken(head)} must be followed by a field`,
};

/** One check's state: the walk mirrors the build's own (build.ts, BuildState). */
interface Walk {
  readonly limits: Limits;
  readonly loc: Locator;
  /** Where each `and`/`or` keyword starts (UTF-16 index), in source order, the order the walk counts them in. */
  readonly keywords: readonly number[];
  keyword: number;
  nodes: number;
  depth: number;
  parent: FilterNode['kind'] | undefined;
  readonly scopes: string[];
}

/** A broken rule, or undefined: every step below returns the first one it meets and stops there. */
type Found = ListError | undefined;

/**
 * Find the first limit or scope rule a well-formed filter breaks, in the order build.ts checks them (pre-order, each
 * `and`/`or` counted at its keyword), as the error Ohm's build would throw; undefined when it breaks none. Nothing
 * is thrown on the way: a refusal must cost little more than the parse.
 */
export function firstRefusal(
  node: FilterNode,
  loc: Locator,
  limits: Limits,
  keywords: readonly number[],
): ListError | undefined {
  return visit({ limits, loc, keywords, keyword: 0, nodes: 0, depth: 0, parent: undefined, scopes: [] }, node);
}

function visit(w: Walk, node: FilterNode): Found {
  switch (node.kind) {
    case 'and':
    case 'or': {
      // A chain is entered once, at its start; an operand of its own kind continues it at the same depth.
      const depth = enter(w, node.kind);
      if (depth === undefined) return refuse(refusalMessage.depth(w.limits), node.span);
      const { depth: savedDepth, parent: savedParent } = w;
      w.depth = depth;
      w.parent = node.kind;
      const found =
        visit(w, node.left) ?? countNode(w, w.loc.position(w.keywords[w.keyword++] ?? 0)) ?? visit(w, node.right);
      w.depth = savedDepth;
      w.parent = savedParent;
      return found;
    }
    case 'not': {
      const depth = enter(w, 'not');
      const found = countNode(w, node.span) ?? tooDeep(w, depth, node.span);
      return found ?? below(w, depth as number, 'not', node.operand);
    }
    case 'quantifier': {
      const depth = enter(w, 'quantifier');
      const found =
        countNode(w, node.span) ??
        tooDeep(w, depth, node.span) ??
        tooManyScopes(w, node.span) ??
        path(w, node.path) ??
        shadows(w, node.variable);
      return found ?? scoped(w, node.variable, node.predicate, depth as number, 'quantifier');
    }
    case 'aggregate': {
      const depth = enter(w, 'aggregate');
      const found = countNode(w, node.span) ?? tooDeep(w, depth, node.span) ?? call(w, node.call, depth as number);
      if (found !== undefined || node.test.kind === 'nullCheck') return found;
      return node.test.kind === 'value' ? literal(w, node.test.value) : list(w, node.test.values);
    }
    default: {
      const found = countNode(w, node.span) ?? tooDeep(w, enter(w, node.kind), node.span) ?? path(w, node.path);
      if (found !== undefined || node.kind === 'nullCheck') return found;
      return node.kind === 'comparison' ? literal(w, node.value) : list(w, node.values);
    }
  }
}

/** An aggregate's call: its path, then its inner filter, a scope of its own one level below the aggregate. */
function call(w: Walk, c: AggregateCall, depth: number): Found {
  const found = path(w, c.path);
  if (found !== undefined || c.variable === undefined || c.predicate === undefined) return found;
  return (
    tooManyScopes(w, c.variable.span) ??
    shadows(w, c.variable) ??
    scoped(w, c.variable, c.predicate, depth, 'aggregate')
  );
}

/** A variable's predicate, one level below `depth`, with the variable active. */
function scoped(w: Walk, variable: Ident, predicate: FilterNode, depth: number, kind: FilterNode['kind']): Found {
  w.scopes.push(variable.name);
  const found = below(w, depth, kind, predicate);
  w.scopes.pop();
  return found;
}

/** Visit a node's operand with the node's depth and kind as its parent's. */
function below(w: Walk, depth: number, kind: FilterNode['kind'], node: FilterNode): Found {
  const { depth: savedDepth, parent: savedParent } = w;
  w.depth = depth;
  w.parent = kind;
  const found = visit(w, node);
  w.depth = savedDepth;
  w.parent = savedParent;
  return found;
}

function path(w: Walk, p: Path): Found {
  const head = p.segments[0];
  if (w.scopes.length > 0 && head !== undefined) {
    if (!w.scopes.includes(head.name)) {
      const innermost = w.scopes[w.scopes.length - 1] ?? '';
      return refuse(refusalMessage.scopeStart(innermost), p.span, 'invalid_relationship');
    }
    if (p.segments.length === 1) return refuse(refusalMessage.scopeField(head.name), p.span, 'invalid_relationship');
  }
  const at = p.segments[w.limits.maxPathDepth];
  return at === undefined ? undefined : refuse(refusalMessage.segments(w.limits), at.span);
}

/** An `in` list: its first value, then each further value counted before its own check. */
function list(w: Walk, values: readonly Literal[]): Found {
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as Literal;
    if (i >= w.limits.maxInValues) return refuse(refusalMessage.values(w.limits), value.span);
    const found = literal(w, value);
    if (found !== undefined) return found;
  }
  return undefined;
}

function literal(w: Walk, value: Literal): Found {
  if (value.kind !== 'string' || !exceedsBytes(value.value, w.limits.maxLiteralBytes)) return undefined;
  return refuse(refusalMessage.literal(w.limits), value.span);
}

function countNode(w: Walk, at: Position): Found {
  return ++w.nodes > w.limits.maxNodes ? refuse(refusalMessage.nodes(w.limits), at) : undefined;
}

/** The depth of a node about to be visited (build.ts, enter), or undefined past maxExpressionDepth. */
function enter(w: Walk, kind: FilterNode['kind']): number | undefined {
  const depth = (kind === 'and' || kind === 'or') && w.parent === kind ? w.depth : w.depth + 1;
  return depth > w.limits.maxExpressionDepth ? undefined : depth;
}

function tooDeep(w: Walk, depth: number | undefined, at: Position): Found {
  return depth === undefined ? refuse(refusalMessage.depth(w.limits), at) : undefined;
}

function tooManyScopes(w: Walk, at: Position): Found {
  const over = w.scopes.length >= w.limits.maxQuantifierDepth;
  return over ? refuse(refusalMessage.quantifiers(w.limits), at) : undefined;
}

function shadows(w: Walk, variable: Ident): Found {
  if (!w.scopes.includes(variable.name)) return undefined;
  return refuse(refusalMessage.shadows(variable.name), variable.span, 'invalid_relationship');
}

function refuse(message: string, at: Position, code: ErrorCode = 'limit_exceeded'): ListError {
  return errorAtPosition(code, message, 'filter', at);
}
