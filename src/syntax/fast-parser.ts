import type { ListError } from '../errors.ts';
import { type Limits, MAX_OPEN_PARENTHESES } from '../limits.ts';
import type {
  AggregateCall,
  AggregateFunction,
  AggregateTest,
  FilterNode,
  Ident,
  Literal,
  MembershipNode,
  NullCheckNode,
  Path,
  ValueOperator,
} from './ast.ts';
import { exceedsBytes } from './bytes.ts';
import {
  AGGREGATE_FUNCTIONS,
  isDigit,
  isIdentPart,
  isIdentStart,
  isSpace,
  KEYWORDS,
  VALUE_OPERATORS,
} from './keywords.ts';
import { deepNestingIndex } from './lexer.ts';
import { type Locator, locatorFor } from './locator.ts';
import { firstRefusal, refusalMessage } from './refusal.ts';

/**
 * A hand-written recursive-descent parser for the well-formed filters of grammar.ohm. It builds exactly the AST that
 * the Ohm semantics in build.ts build (same nodes, fields, field order and spans). It never explains a syntax error:
 * on text it does not accept (a syntax error, too many tokens or open parentheses, nesting it leaves to Ohm) it gives
 * up, and the caller runs Ohm, which stays the one source of those messages and positions. A well-formed filter
 * that breaks a limit or scope rule is parsed to its end all the same (Ohm would match it), then refused with the
 * error build.ts would throw (refusal.ts): a refusal costs one pass, not Ohm. test/syntax/differential.test.ts and
 * test/syntax/refusal.test.ts hold the two to the same answers.
 *
 * size: one parser over module-level cursor state, on the hot path of every new filter; split into files, each
 * step would have to pass that state across module boundaries.
 *
 * Each function below mirrors one grammar rule; where the grammar's ordered choice or repetition could back
 * off, a failure here can only end in a failed match there, so giving up is always the right answer.
 */

/** Thrown (never escapes this module) when the input is not plainly valid: Ohm then decides. */
const GIVE_UP: unique symbol = Symbol('give up');

/**
 * Parentheses plus `not`/any/all levels this parser accepts before leaving the input to Ohm. At the default limits
 * (128 parentheses, depth 16) every valid filter stays under it. Deeper input, valid only with a larger
 * maxExpressionDepth, goes to Ohm, whose recursion may run out of stack (somewhere past 500 levels, less on a deep
 * caller stack) and then reports a depth error at deepNestingIndex: accepting it here could answer differently. It
 * is refused here only when the refusal is that same depth error (a run of `not` words, say), which Ohm then gives
 * whether its stack runs out or not; the parse itself stays bounded by maxTokens.
 */
const MAX_NESTING = MAX_OPEN_PARENTHESES + 32;

const VALUE_OPERATOR_SET: ReadonlySet<string> = new Set(VALUE_OPERATORS);

/** A character a string literal may not hold. */
const CONTROL = /[\x00-\x1f\x7f]/;

/** One parse's state. Parsing is synchronous, so one module-level state per call is safe. */
let text = '';
let pos = 0;
let loc: Locator;
let limits: Limits;
let tokens = 0;
let nodes = 0;
let open = 0;
let nesting = 0;
/** Whether the input nests past MAX_NESTING: then it is refused here only with the answer Ohm gives either way. */
let deep = false;
/** Whether a limit or scope rule is broken: the parse goes on to the end, then refusal.ts finds the first one. */
let refused = false;
/** Where each `and`/`or` keyword starts, in source order: a node-count refusal may point at one. */
const keywords: number[] = [];
/** Active quantifier variables, outermost first. */
const scopes: string[] = [];

/**
 * Parse a filter that is valid within `limits` into the AST Ohm would build; throw the error Ohm's build would throw
 * for a well-formed filter that breaks a limit or scope rule; return undefined for anything else (a syntax error, or
 * input this parser leaves to Ohm). The caller has already checked maxFilterBytes.
 */
export function fastParseFilter(source: string, bounds: Limits): FilterNode | undefined {
  text = source;
  pos = 0;
  loc = locatorFor(source);
  limits = bounds;
  tokens = 0;
  nodes = 0;
  open = 0;
  nesting = 0;
  refused = false;
  deep = false;
  keywords.length = 0;
  scopes.length = 0;
  let refusal: ListError | undefined;
  try {
    skipSpace();
    const node = disjunction();
    skipSpace();
    if (pos !== text.length) return undefined;
    if (!refused && !deep && depthOf(node, 0, undefined) <= limits.maxExpressionDepth) return node;
    // Well-formed but refused: the first broken rule in build order, or Ohm when the walk finds none (never expected).
    refusal = firstRefusal(node, loc, limits, keywords);
    if (refusal === undefined || (deep && !asIfOutOfStack(refusal))) return undefined;
  } catch (error) {
    if (error === GIVE_UP || error instanceof RangeError) return undefined;
    throw error;
  } finally {
    text = '';
    keywords.length = 0;
    scopes.length = 0;
  }
  // Thrown out here, not inside the try: a throw caught and thrown again would cost as much as the walk.
  throw refusal;
}

/**
 * Whether a refusal of input nested past MAX_NESTING is also what Ohm answers when its recursion runs out of stack
 * (parseWithOhm: a depth error at deepNestingIndex): Ohm may or may not run out, and both answers must be this one.
 */
function asIfOutOfStack(refusal: ListError): boolean {
  const at = deepNestingIndex(text, limits.maxExpressionDepth);
  return refusal.message === refusalMessage.depth(limits) && refusal.position?.offset === loc.position(at).offset;
}

// disjunction = conjunction (rsp kwOr rsp conjunction)*
function disjunction(): FilterNode {
  const start = pos;
  let left = conjunction();
  while (keywordAfterSpace('or')) {
    countNode();
    requireSpace();
    const right = conjunction();
    left = { kind: 'or', left, right, span: loc.span(start, pos) };
  }
  return left;
}

// conjunction = primary (rsp kwAnd rsp primary)*
function conjunction(): FilterNode {
  const start = pos;
  let left = primary();
  while (keywordAfterSpace('and')) {
    countNode();
    requireSpace();
    const right = primary();
    left = { kind: 'and', left, right, span: loc.span(start, pos) };
  }
  return left;
}

// primary = quantifier | comparison | negation | group
function primary(): FilterNode {
  const start = pos;
  if (text.charCodeAt(pos) === 0x28) {
    // group = "(" sp disjunction sp ")"
    openParen();
    skipSpace();
    const inner = disjunction();
    skipSpace();
    closeParen();
    return inner;
  }
  const end = wordEnd(pos);
  if (end === pos) throw GIVE_UP;
  if (end - pos === 3 && text.startsWith('not', pos)) {
    // negation = kwNot rsp primary
    token(end);
    countNode();
    enterLevel();
    requireSpace();
    const operand = primary();
    nesting--;
    return { kind: 'not', operand, span: loc.span(start, pos) };
  }
  const path = readPath();
  if (text.charCodeAt(pos) !== 0x2f) return comparison(start, path);
  return AGGREGATE_FUNCTIONS.has(text.slice(pos + 1, wordEnd(pos + 1)))
    ? aggregate(start, path)
    : quantifier(start, path);
}

// aggregate = aggregateCall rsp predicate; aggregateCall = path "/" aggregateFunction
function aggregate(start: number, path: Path): FilterNode {
  countNode();
  enterLevel();
  const call = aggregateCall(start, path);
  nesting--;
  requireSpace();
  const opStart = pos;
  const end = wordEnd(pos);
  const word = text.slice(pos, end);
  token(end);
  let test: AggregateTest;
  if (VALUE_OPERATOR_SET.has(word)) {
    const operatorSpan = loc.span(opStart, end);
    requireSpace();
    test = { kind: 'value', operator: word as ValueOperator, value: literal() };
    return { kind: 'aggregate', call, test, operatorSpan, span: loc.span(start, pos) };
  }
  if (word === 'in' || word === 'not') {
    const negated = word === 'not';
    if (negated) {
      requireSpace();
      expectKeyword('in');
    }
    const m = membership(start, path, negated, opStart);
    test = { kind: 'membership', negated, values: m.values };
    return { kind: 'aggregate', call, test, operatorSpan: m.operatorSpan, span: loc.span(start, pos) };
  }
  if (word !== 'is') throw GIVE_UP;
  requireSpace();
  const negated = text.startsWith('not', pos) && wordEnd(pos) === pos + 3;
  if (negated) {
    token(pos + 3);
    requireSpace();
  }
  expectKeyword('null');
  test = { kind: 'nullCheck', negated };
  return { kind: 'aggregate', call, test, operatorSpan: loc.span(opStart, pos), span: loc.span(start, pos) };
}

// aggregateFunction = kwCount "(" aggregateFilter? ")" | kwMeasure "(" ident (sp "," sp aggregateFilter)? ")"
function aggregateCall(start: number, path: Path): AggregateCall {
  const wordStart = pos + 1;
  const end = wordEnd(wordStart);
  const fn = text.slice(wordStart, end) as AggregateFunction;
  if (text.charCodeAt(end) !== 0x28) throw GIVE_UP;
  tokens++; // "/"
  token(end);
  openParen();
  let field: Ident | undefined;
  let filter: { variable: Ident; predicate: FilterNode } | undefined;
  if (fn !== 'count') {
    field = ident();
    if (text.charCodeAt(pos) !== 0x29) {
      skipSpace();
      if (text.charCodeAt(pos) !== 0x2c) throw GIVE_UP;
      token(pos + 1);
      skipSpace();
      filter = scopedPredicate();
    }
  } else if (text.charCodeAt(pos) !== 0x29) filter = scopedPredicate();
  closeParen();
  const call: AggregateCall = { function: fn, path, ...(field ? { field } : {}), span: loc.span(start, pos) };
  return filter ? { ...call, ...filter } : call;
}

// ident ":" rsp disjunction sp: the scoped predicate of a quantifier and of an aggregate's inner filter
function scopedPredicate(): { variable: Ident; predicate: FilterNode } {
  if (scopes.length >= limits.maxQuantifierDepth) refused = true;
  const variable = ident();
  if (scopes.includes(variable.name)) refused = true;
  if (text.charCodeAt(pos) !== 0x3a) throw GIVE_UP;
  token(pos + 1);
  requireSpace();
  scopes.push(variable.name);
  const predicate = disjunction();
  scopes.pop();
  skipSpace();
  return { variable, predicate };
}

// quantifier = path "/" kwQuantifier "(" ident ":" rsp disjunction sp ")"
function quantifier(start: number, path: Path): FilterNode {
  const wordStart = pos + 1;
  const end = wordEnd(wordStart);
  const word = text.slice(wordStart, end);
  if ((word !== 'any' && word !== 'all') || text.charCodeAt(end) !== 0x28) throw GIVE_UP;
  tokens++; // "/"
  token(end);
  openParen();
  countNode();
  enterLevel();
  const { variable, predicate } = scopedPredicate();
  closeParen();
  nesting--;
  return { kind: 'quantifier', quantifier: word, path, variable, predicate, span: loc.span(start, pos) };
}

// comparison = path rsp predicate
function comparison(start: number, path: Path): FilterNode {
  countNode();
  requireSpace();
  const opStart = pos;
  const end = wordEnd(pos);
  const word = text.slice(pos, end);
  token(end);
  if (VALUE_OPERATOR_SET.has(word)) {
    // predicate_value = valueOp rsp literal
    const operatorSpan = loc.span(opStart, end);
    requireSpace();
    const value = literal();
    const operator = word as ValueOperator;
    return { kind: 'comparison', path, operator, operatorSpan, value, span: loc.span(start, pos) };
  }
  if (word === 'in') return membership(start, path, false, opStart);
  if (word === 'not') {
    // predicate_notIn = kwNot rsp kwIn rsp list
    requireSpace();
    expectKeyword('in');
    return membership(start, path, true, opStart);
  }
  if (word !== 'is') throw GIVE_UP;
  // predicate_null = kwIs rsp (kwNot rsp)? kwNull
  requireSpace();
  const negated = text.startsWith('not', pos) && wordEnd(pos) === pos + 3;
  if (negated) {
    token(pos + 3);
    requireSpace();
  }
  expectKeyword('null');
  const node: NullCheckNode = {
    kind: 'nullCheck',
    path,
    negated,
    operatorSpan: loc.span(opStart, pos),
    span: loc.span(start, pos),
  };
  return node;
}

// list = "(" sp literal (sp "," sp literal)* sp ")", after kwIn rsp
function membership(start: number, path: Path, negated: boolean, opStart: number): MembershipNode {
  const operatorSpan = loc.span(opStart, pos);
  requireSpace();
  if (text.charCodeAt(pos) !== 0x28) throw GIVE_UP;
  openParen();
  skipSpace();
  const values: Literal[] = [literal()];
  for (;;) {
    skipSpace();
    if (text.charCodeAt(pos) !== 0x2c) break;
    token(pos + 1);
    skipSpace();
    if (values.length >= limits.maxInValues) refused = true;
    values.push(literal());
  }
  closeParen();
  return { kind: 'membership', path, negated, operatorSpan, values, span: loc.span(start, pos) };
}

// literal = string | number | kwBoolean
function literal(): Literal {
  const start = pos;
  const c = text.charCodeAt(pos);
  if (c === 0x27) return string(start);
  if (c === 0x2d || isDigit(c)) {
    token(numberEnd(start));
    return { kind: 'number', text: text.slice(start, pos), span: loc.span(start, pos) };
  }
  const end = wordEnd(pos);
  const isTrue = end - pos === 4 && text.startsWith('true', pos);
  if (!isTrue && !(end - pos === 5 && text.startsWith('false', pos))) throw GIVE_UP;
  token(end);
  return { kind: 'boolean', value: isTrue, span: loc.span(start, pos) };
}

// string = "'" ("''" | ~("'" | "\x00".."\x1F" | "\x7F") any)* "'"
function string(start: number): Literal {
  // The closing quote is the first `'` not doubled; the native searches keep a 4 KiB literal to microseconds.
  let end = text.indexOf("'", start + 1);
  let doubled = false;
  while (end >= 0 && text.charCodeAt(end + 1) === 0x27) {
    doubled = true;
    end = text.indexOf("'", end + 2);
  }
  if (end < 0) throw GIVE_UP;
  const raw = text.slice(start + 1, end);
  if (CONTROL.test(raw)) throw GIVE_UP;
  const value = doubled ? raw.replaceAll("''", "'") : raw;
  if (exceedsBytes(value, limits.maxLiteralBytes)) refused = true;
  token(end + 1);
  return { kind: 'string', value, span: loc.span(start, pos) };
}

// number = "-"? integer fraction? exponent?, each optional part taken only when it matches whole
function numberEnd(start: number): number {
  let j = start;
  if (text.charCodeAt(j) === 0x2d) j++;
  const first = text.charCodeAt(j);
  if (!isDigit(first)) throw GIVE_UP;
  j++;
  if (first !== 0x30) while (isDigit(text.charCodeAt(j))) j++;
  if (text.charCodeAt(j) === 0x2e && isDigit(text.charCodeAt(j + 1))) {
    j += 2;
    while (isDigit(text.charCodeAt(j))) j++;
  }
  const e = text.charCodeAt(j);
  if (e === 0x65 || e === 0x45) {
    let k = j + 1;
    const sign = text.charCodeAt(k);
    if (sign === 0x2b || sign === 0x2d) k++;
    if (isDigit(text.charCodeAt(k))) {
      j = k + 1;
      while (isDigit(text.charCodeAt(j))) j++;
    }
  }
  return j;
}

// path = ident ("/" ident)*, with the scope rule the builder applies to every path
function readPath(): Path {
  const start = pos;
  const segments: Ident[] = [ident()];
  while (text.charCodeAt(pos) === 0x2f) {
    const end = wordEnd(pos + 1);
    const word = text.slice(pos + 1, end);
    if (end === pos + 1 || KEYWORDS.has(word)) break;
    // aggregateStart: `count(` (…) after a "/" ends the path, so a field may still be named `count`.
    if (AGGREGATE_FUNCTIONS.has(word) && text.charCodeAt(end) === 0x28) break;
    if (segments.length >= limits.maxPathDepth) refused = true;
    tokens++; // "/"
    pos++;
    segments.push(ident());
  }
  if (scopes.length > 0 && (segments.length < 2 || !scopes.includes(segments[0]?.name ?? ''))) refused = true;
  return { segments, span: loc.span(start, pos) };
}

// ident = ~reserved [A-Za-z_] [A-Za-z0-9_]*
function ident(): Ident {
  const start = pos;
  const end = wordEnd(pos);
  const name = text.slice(start, end);
  if (end === start || KEYWORDS.has(name)) throw GIVE_UP;
  token(end);
  return { name, span: loc.span(start, end) };
}

/** Where the name-shaped word at `index` ends (`index` itself when none starts there). */
function wordEnd(index: number): number {
  if (!isIdentStart(text.charCodeAt(index))) return index;
  let j = index + 1;
  while (isIdentPart(text.charCodeAt(j))) j++;
  return j;
}

/** Consume `rsp word` (`and`, `or`) when the whole word is there, else leave the position as it was. */
function keywordAfterSpace(word: string): boolean {
  let j = pos;
  while (isSpace(text.charCodeAt(j))) j++;
  if (j === pos || !text.startsWith(word, j) || isIdentPart(text.charCodeAt(j + word.length))) return false;
  pos = j;
  token(j + word.length);
  keywords.push(j);
  return true;
}

function expectKeyword(word: string): void {
  if (!text.startsWith(word, pos) || wordEnd(pos) !== pos + word.length) throw GIVE_UP;
  token(pos + word.length);
}

/** Count one token ending at `end` and move past it, giving up past maxTokens as the pre-scan would reject. */
function token(end: number): void {
  if (++tokens > limits.maxTokens) throw GIVE_UP;
  pos = end;
}

function openParen(): void {
  if (++open > MAX_OPEN_PARENTHESES) throw GIVE_UP;
  if (++nesting > MAX_NESTING) deep = true;
  token(pos + 1);
}

function closeParen(): void {
  if (text.charCodeAt(pos) !== 0x29) throw GIVE_UP;
  open--;
  nesting--;
  token(pos + 1);
}

function enterLevel(): void {
  if (++nesting > MAX_NESTING) deep = true;
}

function countNode(): void {
  if (++nodes > limits.maxNodes) refused = true;
}

function skipSpace(): void {
  while (isSpace(text.charCodeAt(pos))) pos++;
}

function requireSpace(): void {
  if (!isSpace(text.charCodeAt(pos))) throw GIVE_UP;
  skipSpace();
}

/**
 * The deepest level in a tree, as the builder counts it: every node one level below its parent, except an
 * `and` under an `and` (or `or` under `or`), which continues its parent's chain.
 */
function depthOf(node: FilterNode, parentDepth: number, parent: FilterNode['kind'] | undefined): number {
  const depth = (node.kind === 'and' || node.kind === 'or') && parent === node.kind ? parentDepth : parentDepth + 1;
  switch (node.kind) {
    case 'and':
    case 'or':
      return Math.max(depthOf(node.left, depth, node.kind), depthOf(node.right, depth, node.kind));
    case 'not':
      return depthOf(node.operand, depth, 'not');
    case 'quantifier':
      return depthOf(node.predicate, depth, 'quantifier');
    case 'aggregate':
      return node.call.predicate ? depthOf(node.call.predicate, depth, 'aggregate') : depth;
    default:
      return depth;
  }
}
