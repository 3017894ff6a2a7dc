import type { BoundSchema } from '../bind/types.ts';
import type { FilterNode, ParsedQuery } from '../syntax/ast.ts';
import type { Admission } from './admission.ts';
import type { EngineSettings, ListContext } from './config.ts';
import { isRemembered } from './request-text.ts';
import { type RequestWork, requestWork } from './request-work.ts';

/**
 * The key under which an engine hands its admission to adapters that admit several requests as one (a GraphQL
 * document). Registered with Symbol.for so that every copy of listql agrees on it.
 */
export const ADMISSION: unique symbol = Symbol.for('listql.admission') as never;

/** A request's work as the document budget counts it, with the weight admission classifies it by. */
export interface WeighedWork extends RequestWork {
  /** See requestWeight. */
  readonly weight: number;
}

/** Rows (of a page, of nested levels, of an offset) that weigh as much as one statement. */
const ROWS_PER_UNIT = 1000;
/** What a sort through a relation adds: the data query joins and orders every matching row before its limit. */
const RELATION_SORT = 2;

/**
 * Weigh a request for admission, from what its cost budget counted and what it asks for: one per statement (at least
 * one: a page, its count, each nested level and its count), the filters' work in the budget's unit (one correlated
 * sub-query; comparisons weigh fractions, and the count runs the filter again), one per 1,000 rows it may answer and
 * per 1,000 rows of offset it skips, and 2 for a sort through a relation. A plain keyset page weighs 1; a page with
 * its count, or with one to-one hop in its filter, about 2 (cheap by default); an `or` of quantifiers with a count
 * far more.
 */
export function requestWeight(work: RequestWork, parsed: Pick<ParsedQuery, 'offset' | 'sort'>): number {
  return (
    Math.max(1, work.statements) +
    work.subqueries +
    Math.floor(work.rows / ROWS_PER_UNIT) +
    offsetWeight(parsed.offset) +
    (sortsThroughRelation(parsed) ? RELATION_SORT : 0)
  );
}

/** The weight of a document's work summed from its fields: each field's own weight, or its work's statements and sub-queries. */
export function weightOf(work: RequestWork): number {
  const weight = (work as Partial<WeighedWork>).weight;
  return typeof weight === 'number' ? weight : Math.max(1, work.statements) + work.subqueries;
}

/**
 * Price a parsed request as list() would run it (the same checks; a request it would refuse throws that error) and
 * weigh it: the engine's answer under REQUEST_WORK.
 */
export function weighedWork<C extends ListContext>(
  settings: EngineSettings<C>,
  bound: BoundSchema,
  parsed: ParsedQuery,
): WeighedWork {
  const work = requestWork(settings, bound, parsed);
  return { ...work, weight: requestWeight(work, parsed) };
}

/**
 * The weight of a request about to run, or undefined when its own checks will refuse it before any statement (it
 * then needs no turn, and gets its own error rather than `overloaded`). A plain request (no relation in its filter or
 * sort, no count, no nested list) is weighed from its page alone, without binding it twice. `pageRows`: a walk's
 * page size, which may exceed the request's limit.
 */
export function weighRequest<C extends ListContext>(
  settings: EngineSettings<C>,
  bound: BoundSchema,
  parsed: ParsedQuery,
  pageRows = 0,
): number | undefined {
  const walk = Math.floor(pageRows / ROWS_PER_UNIT);
  if (isPlain(parsed)) {
    const limit = parsed.limit ?? settings.paging.defaultLimit;
    return 1 + Math.floor(limit / ROWS_PER_UNIT) + offsetWeight(parsed.offset) + walk;
  }
  try {
    return rememberedWeight(settings, bound, parsed) + walk;
  } catch {
    return undefined;
  }
}

/**
 * The weights of requests the parse memo hands out again (request-text.ts), by the engine settings and policy they
 * were weighed under: a weight follows from those and the request alone, so a request sent again (a nested tree, a
 * relation filter) is not bound and priced a second time before its turn. A request that throws is not remembered.
 */
const weights = new WeakMap<ParsedQuery, { readonly settings: object; readonly bound: BoundSchema; weight: number }>();

function rememberedWeight<C extends ListContext>(
  settings: EngineSettings<C>,
  bound: BoundSchema,
  parsed: ParsedQuery,
): number {
  const known = weights.get(parsed);
  if (known && known.settings === settings && known.bound === bound) return known.weight;
  const { weight } = weighedWork(settings, bound, parsed);
  if (isRemembered(parsed)) weights.set(parsed, { settings, bound, weight });
  return weight;
}

/** Return an engine's admission, or undefined when it has none (`admission: false`) or is not a listql engine. */
export function admissionOf(engine: object): Admission | undefined {
  const admission = (engine as { [ADMISSION]?: Admission })[ADMISSION];
  return typeof admission === 'object' ? admission : undefined;
}

function offsetWeight(offset: number | undefined): number {
  return offset === undefined ? 0 : Math.ceil(offset / ROWS_PER_UNIT);
}

function sortsThroughRelation(parsed: Pick<ParsedQuery, 'sort'>): boolean {
  return parsed.sort?.some((term) => term.path.segments.length > 1) === true;
}

/** A request whose cost is its page alone: no sub-query, no sort join, no count, no nested list. */
function isPlain(parsed: ParsedQuery): boolean {
  if (parsed.count === true || parsed.count === 'estimated' || parsed.nested !== undefined) return false;
  if (parsed.fields?.some((field) => field.children !== undefined) || sortsThroughRelation(parsed)) return false;
  return parsed.filter === undefined || rootOnly(parsed.filter);
}

/** Operators the cost budget charges nothing for at the root: they read a value, where a pattern scans text. */
const FREE_AT_ROOT: ReadonlySet<string> = new Set(['eq', 'ne', 'gt', 'gte', 'lt', 'lte']);

/**
 * A filter of plain comparisons of root fields only: no path through a relation, no quantifier, no null check
 * (`author is null` is a hop), no pattern (`contains` …), so the budget would count nothing for it.
 */
function rootOnly(node: FilterNode): boolean {
  switch (node.kind) {
    case 'comparison':
      return node.path.segments.length === 1 && FREE_AT_ROOT.has(node.operator);
    case 'membership':
      return node.path.segments.length === 1;
    case 'not':
      return rootOnly(node.operand);
    case 'and':
    case 'or':
      return rootOnly(node.left) && rootOnly(node.right);
    default:
      return false;
  }
}
