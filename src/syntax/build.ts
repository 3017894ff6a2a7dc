import type * as ohm from 'ohm-js';
import { type ErrorCode, errorAtPosition } from '../errors.ts';
import type { Limits } from '../limits.ts';
import type {
  AggregateCall,
  AggregateFunction,
  AggregateTest,
  FilterNode,
  Ident,
  Literal,
  MembershipNode,
  Path,
  Span,
  ValueOperator,
} from './ast.ts';
import { exceedsBytes } from './bytes.ts';
import { filterGrammar } from './grammar.ts';
import type { Locator } from './locator.ts';
import { refusalMessage } from './refusal.ts';

/**
 * Semantic actions over grammar.ohm: each action builds one AST node. Limits and quantifier scopes are checked
 * while building, in source order, so an oversized or out-of-scope filter fails at its first offending node and
 * never produces an unbounded tree.
 *
 * size: the actions of every grammar rule stay side by side, in the order of grammar.ohm, as one semantics.
 */

/** What one build tracks. Parsing is synchronous, so one module-level state per build is safe. */
interface BuildState {
  readonly text: string;
  readonly loc: Locator;
  readonly limits: Limits;
  /** The parameter errors name: `filter`, or `sort` for the call of an aggregate sort term. */
  readonly parameter: 'filter' | 'sort';
  nodes: number;
  /** Expression depth of the node whose children are being built (0 at the top). */
  depth: number;
  /** Kind of that node: an `and` under an `and` (or `or` under `or`) continues its chain at the same depth. */
  parent: FilterNode['kind'] | undefined;
  /** Active quantifier variables, outermost first. */
  readonly scopes: string[];
}

let state: BuildState | undefined;

/** Build the AST of a successful match of the `filter` rule, enforcing node, depth, path, list and literal limits. */
export function buildFilter(match: ohm.MatchResult, text: string, loc: Locator, limits: Limits): FilterNode {
  state = { text, loc, limits, parameter: 'filter', nodes: 0, depth: 0, parent: undefined, scopes: [] };
  try {
    return filterSemantics()(match)['node']() as FilterNode;
  } finally {
    state = undefined;
  }
}

/** Build the call of an aggregate sort term from a match of the `sortAggregate` rule, its errors naming `sort`. */
export function buildSortAggregate(match: ohm.MatchResult, text: string, loc: Locator, limits: Limits): AggregateCall {
  state = { text, loc, limits, parameter: 'sort', nodes: 0, depth: 0, parent: undefined, scopes: [] };
  try {
    return filterSemantics()(match)['node']() as unknown as AggregateCall;
  } finally {
    state = undefined;
  }
}

let semantics: ohm.Semantics | undefined;

/** The semantics over the grammar, created with it on first use (see filterGrammar). */
function filterSemantics(): ohm.Semantics {
  semantics ??= filterGrammar().createSemantics().addOperation<FilterNode>('node', actions);
  return semantics;
}

const actions: ohm.ActionDict<FilterNode> = {
  filter(_sp, body, _sp2, _end) {
    return body['node']();
  },
  disjunction(first, _sp, words, _sp2, rest) {
    return chain('or', first, words, rest);
  },
  conjunction(first, _sp, words, _sp2, rest) {
    return chain('and', first, words, rest);
  },
  primary(inner) {
    return inner['node']();
  },
  group(_open, _sp, body, _sp2, _close) {
    return body['node']();
  },
  negation(_not, _sp, operand) {
    const s = state!;
    const start = this.source.startIdx;
    countNode(s, start);
    const depth = enter(s, 'not', start);
    const { depth: savedDepth, parent: savedParent } = s;
    s.depth = depth;
    s.parent = 'not';
    const inner: FilterNode = operand['node']();
    s.depth = savedDepth;
    s.parent = savedParent;
    return { kind: 'not', operand: inner, span: s.loc.span(start, this.source.endIdx) };
  },
  quantifier(pathNode, _slash, word, _open, variable, _colon, _sp, body, _sp2, _close) {
    const s = state!;
    const start = this.source.startIdx;
    countNode(s, start);
    const depth = enter(s, 'quantifier', start);
    if (s.scopes.length >= s.limits.maxQuantifierDepth) {
      fail(s, 'limit_exceeded', refusalMessage.quantifiers(s.limits), start);
    }
    const path = buildPath(s, pathNode);
    const name: string = variable.sourceString;
    if (s.scopes.includes(name)) {
      fail(s, 'invalid_relationship', refusalMessage.shadows(name), variable.source.startIdx);
    }
    const v = ident(s, variable);
    const { depth: savedDepth, parent: savedParent } = s;
    s.scopes.push(name);
    s.depth = depth;
    s.parent = 'quantifier';
    const predicate: FilterNode = body['node']();
    s.scopes.pop();
    s.depth = savedDepth;
    s.parent = savedParent;
    const quantifier = word.sourceString === 'all' ? 'all' : 'any';
    return {
      kind: 'quantifier',
      quantifier,
      path,
      variable: v,
      predicate,
      span: s.loc.span(start, this.source.endIdx),
    };
  },
  sortAggregate(_sp, call, _end) {
    return aggregateCall(state!, call, 0) as unknown as FilterNode;
  },
  aggregate(callNode, _sp, predicate) {
    const s = state!;
    const start = this.source.startIdx;
    countNode(s, start);
    const depth = enter(s, 'aggregate', start);
    const call = aggregateCall(s, callNode, depth);
    const span = s.loc.span(start, this.source.endIdx);
    const c = predicate.child(0);
    let test: AggregateTest;
    let operatorSpan: Span;
    switch (c.ctorName) {
      case 'predicate_value':
        operatorSpan = spanOf(s, c.child(0));
        test = { kind: 'value', operator: c.child(0).sourceString as ValueOperator, value: literal(s, c.child(2)) };
        break;
      case 'predicate_in':
      case 'predicate_notIn': {
        const negated = c.ctorName === 'predicate_notIn';
        const m = membership(
          s,
          call.path,
          negated,
          c.child(0),
          c.child(negated ? 2 : 0),
          c.child(negated ? 4 : 2),
          span,
        );
        operatorSpan = m.operatorSpan;
        test = { kind: 'membership', negated, values: m.values };
        break;
      }
      default:
        operatorSpan = s.loc.span(c.child(0).source.startIdx, c.child(4).source.endIdx);
        test = { kind: 'nullCheck', negated: c.child(2).numChildren > 0 };
    }
    return { kind: 'aggregate', call, test, operatorSpan, span };
  },
  comparison(pathNode, _sp, predicate) {
    const s = state!;
    const start = this.source.startIdx;
    countNode(s, start);
    enter(s, 'comparison', start);
    const path = buildPath(s, pathNode);
    const span = s.loc.span(start, this.source.endIdx);
    const c = predicate.child(0);
    switch (c.ctorName) {
      case 'predicate_value': {
        const op = c.child(0);
        const operator = op.sourceString as ValueOperator;
        return { kind: 'comparison', path, operator, operatorSpan: spanOf(s, op), value: literal(s, c.child(2)), span };
      }
      case 'predicate_in':
        return membership(s, path, false, c.child(0), c.child(0), c.child(2), span);
      case 'predicate_notIn':
        return membership(s, path, true, c.child(0), c.child(2), c.child(4), span);
      default: {
        // predicate_null: kwIs rsp (kwNot rsp)? kwNull
        const operatorSpan = s.loc.span(c.child(0).source.startIdx, c.child(4).source.endIdx);
        return { kind: 'nullCheck', path, negated: c.child(2).numChildren > 0, operatorSpan, span };
      }
    }
  },
};

/**
 * Build `<path>/<function>(<field>?, <variable>: <predicate>?)` (an `aggregateCall` node). The inner filter opens a
 * variable scope as any/all do, counted against maxQuantifierDepth; its predicate nests one level below `depth`.
 */
function aggregateCall(s: BuildState, node: ohm.Node, depth: number): AggregateCall {
  const path = buildPath(s, node.child(0));
  const fn = node.child(2).child(0);
  const measure = fn.ctorName === 'aggregateFunction_measure';
  const name = fn.child(0).sourceString as AggregateFunction;
  const field = measure ? ident(s, fn.child(2)) : undefined;
  const filterIter = fn.child(measure ? 6 : 2);
  const span = s.loc.span(node.source.startIdx, node.source.endIdx);
  const call: AggregateCall = { function: name, path, ...(field ? { field } : {}), span };
  if (filterIter.numChildren === 0) return call;
  // aggregateFilter = ident ":" rsp disjunction sp
  const inner = filterIter.child(0);
  const variable = inner.child(0);
  if (s.scopes.length >= s.limits.maxQuantifierDepth) {
    fail(s, 'limit_exceeded', refusalMessage.quantifiers(s.limits), variable.source.startIdx);
  }
  const varName: string = variable.sourceString;
  if (s.scopes.includes(varName))
    fail(s, 'invalid_relationship', refusalMessage.shadows(varName), variable.source.startIdx);
  const v = ident(s, variable);
  const { depth: savedDepth, parent: savedParent } = s;
  s.scopes.push(varName);
  s.depth = depth;
  s.parent = 'aggregate';
  const predicate: FilterNode = inner.child(3)['node']();
  s.scopes.pop();
  s.depth = savedDepth;
  s.parent = savedParent;
  return { ...call, variable: v, predicate };
}

/** Build a left-associative chain `t1 op t2 op t3` as op(op(t1, t2), t3); the chain is one level deep. */
function chain(kind: 'and' | 'or', first: ohm.Node, words: ohm.Node, rest: ohm.Node): FilterNode {
  const count = rest.numChildren;
  if (count === 0) return first['node']();
  const s = state!;
  const start = first.source.startIdx;
  const depth = enter(s, kind, start);
  const { depth: savedDepth, parent: savedParent } = s;
  s.depth = depth;
  s.parent = kind;
  let left: FilterNode = first['node']();
  for (let i = 0; i < count; i++) {
    // Each `and`/`or` node is counted at its keyword, so the count error points where the text grew too big.
    countNode(s, words.child(i).source.startIdx);
    const term = rest.child(i);
    const right: FilterNode = term['node']();
    left = { kind, left, right, span: s.loc.span(start, term.source.endIdx) };
  }
  s.depth = savedDepth;
  s.parent = savedParent;
  return left;
}

function membership(
  s: BuildState,
  path: Path,
  negated: boolean,
  opFirst: ohm.Node,
  opLast: ohm.Node,
  list: ohm.Node,
  span: Span,
): MembershipNode {
  const operatorSpan = s.loc.span(opFirst.source.startIdx, opLast.source.endIdx);
  // list = "(" sp literal (sp "," sp literal)* sp ")"
  const values: Literal[] = [literal(s, list.child(2))];
  const more = list.child(6);
  for (let i = 0; i < more.numChildren; i++) {
    const node = more.child(i);
    if (values.length >= s.limits.maxInValues) {
      fail(s, 'limit_exceeded', refusalMessage.values(s.limits), node.source.startIdx);
    }
    values.push(literal(s, node));
  }
  return { kind: 'membership', path, negated, operatorSpan, values, span };
}

function literal(s: BuildState, node: ohm.Node): Literal {
  const inner = node.child(0);
  const { startIdx, endIdx } = inner.source;
  const span = s.loc.span(startIdx, endIdx);
  switch (inner.ctorName) {
    case 'string': {
      const raw = s.text.slice(startIdx + 1, endIdx - 1);
      const value = raw.includes("''") ? raw.replaceAll("''", "'") : raw;
      if (exceedsBytes(value, s.limits.maxLiteralBytes)) {
        fail(s, 'limit_exceeded', refusalMessage.literal(s.limits), startIdx);
      }
      return { kind: 'string', value, span };
    }
    case 'number':
      return { kind: 'number', text: s.text.slice(startIdx, endIdx), span };
    default:
      return { kind: 'boolean', value: s.text.charCodeAt(startIdx) === 0x74 /* t */, span };
  }
}

function buildPath(s: BuildState, node: ohm.Node): Path {
  // path = ident ("/" ident)*
  const first = node.child(0);
  const rest = node.child(2);
  const start = node.source.startIdx;
  if (s.scopes.length > 0) checkScope(s, first.sourceString, rest.numChildren, start);
  const segments: Ident[] = [ident(s, first)];
  for (let i = 0; i < rest.numChildren; i++) {
    const segment = rest.child(i);
    if (segments.length >= s.limits.maxPathDepth) {
      fail(s, 'limit_exceeded', refusalMessage.segments(s.limits), segment.source.startIdx);
    }
    segments.push(ident(s, segment));
  }
  return { segments, span: s.loc.span(start, node.source.endIdx) };
}

/** Inside any/all, a path must start with an active variable and name something after it. */
function checkScope(s: BuildState, head: string, more: number, index: number): void {
  const innermost = s.scopes[s.scopes.length - 1] ?? '';
  if (!s.scopes.includes(head)) {
    fail(s, 'invalid_relationship', refusalMessage.scopeStart(innermost), index);
  }
  if (more === 0) fail(s, 'invalid_relationship', refusalMessage.scopeField(head), index);
}

function ident(s: BuildState, node: ohm.Node): Ident {
  return { name: node.sourceString, span: spanOf(s, node) };
}

function spanOf(s: BuildState, node: ohm.Node): Span {
  return s.loc.span(node.source.startIdx, node.source.endIdx);
}

function countNode(s: BuildState, index: number): void {
  if (++s.nodes > s.limits.maxNodes) fail(s, 'limit_exceeded', refusalMessage.nodes(s.limits), index);
}

/** Compute the depth of a node about to be built, failing when it passes maxExpressionDepth. */
function enter(s: BuildState, kind: FilterNode['kind'], index: number): number {
  const depth = (kind === 'and' || kind === 'or') && s.parent === kind ? s.depth : s.depth + 1;
  if (depth > s.limits.maxExpressionDepth) {
    fail(s, 'limit_exceeded', refusalMessage.depth(s.limits), index);
  }
  return depth;
}

function fail(s: BuildState, code: ErrorCode, message: string, index: number): never {
  throw errorAtPosition(code, message, s.parameter, s.loc.position(index));
}
