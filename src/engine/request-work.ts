import { checkBudget, checkTreeBudget } from '../bind/cost.ts';
import { resolveQuery } from '../bind/index.ts';
import type { BoundSchema, ResolvedSortTerm } from '../bind/types.ts';
import { dialectFor } from '../dialect/index.ts';
import { resolvePaging } from '../plan/paging.ts';
import type { ParsedQuery } from '../syntax/ast.ts';
import type { EngineSettings, ListContext } from './config.ts';
import { resolveDefaultSort } from './default-sort.ts';
import type { QueryInput } from './request.ts';
import { treeLanes } from './tree/index.ts';

/**
 * The key under which an engine prices a request without running it, for adapters that must weigh several requests
 * as one (a GraphQL document). Registered with Symbol.for so that every copy of listql agrees on it.
 */
export const REQUEST_WORK: unique symbol = Symbol.for('listql.requestWork') as never;

/** What one list request may make the database do, in the units the document budget counts (docs/security.md). */
export interface RequestWork {
  /**
   * Correlated sub-queries, weighted as the cost budget weighs them (count and relation sorts run them again), the
   * filters of nested lists included.
   */
  readonly subqueries: number;
  /**
   * Statements the request sends: the data query (none for a page of 0 rows) and the count when asked for, then per
   * nested level one statement (when it can have parents) and one more for its count, and one per facet.
   */
  readonly statements: number;
  /** Rows the request may answer with: its page size, plus every nested level's parents × rows per parent. */
  readonly rows: number;
  /**
   * Pooled connections the request may hold at once (its nested levels side by side): the admission slots it takes
   * (1 when absent).
   */
  readonly connections?: number;
}

/**
 * Price a parsed request as list() would run it, after the same binding and budget checks (the tree's rows included),
 * and run nothing; a request list() would refuse throws the same ListError.
 */
export function requestWork<C extends ListContext>(
  settings: EngineSettings<C>,
  bound: BoundSchema,
  parsed: ParsedQuery,
): RequestWork {
  const resolved = resolveQuery(bound, parsed, {
    maxOffset: settings.paging.maxOffset,
    maxSelectionDepth: settings.limits.maxSelectionDepth,
    maxFacetValues: settings.limits.maxFacetValues,
  });
  // Priced as list() prices it (page/check-request.ts): the order actually read (the engine's defaultSort when the
  // request has no sort) and the primary key decide how many UNION ALL branches a page after a cursor is read as.
  const sort = parsed.sort === undefined ? (defaultSortOf(settings, bound) ?? resolved.sort) : resolved.sort;
  const primaryKey = bound.primaryKey.map((k) => k.column);
  const cost = checkBudget(resolved, settings.limits, { dialect: dialectFor(bound.platform), sort, primaryKey });
  const { limit } = resolvePaging(resolved, settings.paging);
  const tree = checkTreeBudget(resolved.selections, limit, settings.limits);
  const facets = resolved.facets?.length ?? 0;
  const statements = (limit > 0 ? 1 : 0) + (resolved.count ? 1 : 0) + tree.statements + facets;
  const connections = connectionsOf(parsed, dialectFor(bound.platform).inProcess);
  return { subqueries: cost.subqueries, statements, rows: tree.rows, connections };
}

/**
 * The pooled connections a request's nested levels may hold at once, as admission counts its slots: its widest set of
 * sibling selections (treeLanes); one on SQLite, whose statements never overlap. A count beside its page (a cheap
 * request's, page/list-page.ts) is not counted: cheap requests have their own share, sized for their pages.
 */
export function connectionsOf(parsed: Pick<ParsedQuery, 'fields'>, inProcess: boolean): number {
  return treeLanes(parsed.fields, inProcess);
}
/** The engines' defaultSort, resolved once per engine (its settings object). */
const defaultSorts = new WeakMap<object, readonly ResolvedSortTerm[] | undefined>();

function defaultSortOf<C extends ListContext>(
  settings: EngineSettings<C>,
  bound: BoundSchema,
): readonly ResolvedSortTerm[] | undefined {
  if (settings.defaultSort === undefined) return undefined;
  if (!defaultSorts.has(settings))
    defaultSorts.set(settings, resolveDefaultSort(bound, settings.defaultSort, settings.limits).terms);
  return defaultSorts.get(settings);
}

/** What an engine answers under REQUEST_WORK. */
export type RequestWorkOf = (query: QueryInput) => RequestWork;

/** Return an engine's request pricer, or undefined when it is not a listql engine. */
export function requestWorkOf(engine: object): RequestWorkOf | undefined {
  const price = (engine as { [REQUEST_WORK]?: unknown })[REQUEST_WORK];
  return typeof price === 'function' ? (price as RequestWorkOf) : undefined;
}
