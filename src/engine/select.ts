import { invalidParameter } from '../errors.ts';
import type { FieldsObject } from '../syntax/fields-object.ts';
import type { ListParameters } from '../syntax/parameters.ts';
import type { ListContext } from './config.ts';
import type { Explanation } from './describe/explain.ts';
import type { Page } from './page/list-page.ts';
import type { QueryInput } from './request.ts';
import type { SelectedRequest } from './request-type.ts';
import type { Item } from './serialize.ts';
import type { IterateOptions } from './walk/iterate.ts';

/**
 * A scope with its `fields` chosen in code (ScopedEngine.select): list(), pages(), items() and explain() as the
 * scope's own, whose requests leave `fields` out (the selection is their `fields`), may name the nested lists the
 * selection opens (`'reviews.limit'`), and answer with items typed by the selection (`T`, a SelectedItem).
 */
export interface SelectedScope<C extends ListContext = ListContext, T = Item, Paths extends string = string> {
  /** List one page, as ScopedEngine.list() does with the selection as `fields`; throws ListError. */
  list(query?: SelectedRequest<Paths>, ctx?: C): Promise<Page<T>>;
  /** Walk every page by following `nextCursor`, as ScopedEngine.pages() does. */
  pages(query?: SelectedRequest<Paths>, ctx?: C, options?: IterateOptions): AsyncGenerator<Page<T>, void, undefined>;
  /** Walk every item, page by page, as ScopedEngine.items() does. */
  items(query?: SelectedRequest<Paths>, ctx?: C, options?: IterateOptions): AsyncGenerator<T, void, undefined>;
  /** The SQL list() would send for this request, running nothing, as ScopedEngine.explain() builds it. */
  explain(query?: SelectedRequest<Paths>, ctx?: C): Promise<Explanation>;
}

/** What a selected scope runs its requests on: a scope's own methods. */
interface Unselected<C> {
  list(query: QueryInput, ctx?: C): Promise<Page<unknown>>;
  pages(query: QueryInput, ctx?: C, options?: IterateOptions): AsyncGenerator<Page<unknown>, void, undefined>;
  items(query: QueryInput, ctx?: C, options?: IterateOptions): AsyncGenerator<unknown, void, undefined>;
  explain(query: QueryInput, ctx?: C): Promise<Explanation>;
}

/**
 * A selected scope over a scope's methods. It only writes the selection into each request as `fields` (the array as
 * given, read at each request): the engine's parser and binder check it as they check any `fields`, with the same
 * errors, and a request that brings its own `fields` is refused. Errors surface as the scope's do: rejections, and
 * from the first next() of a walk, never synchronous throws.
 */
export function selectedScope<C extends ListContext>(scoped: Unselected<C>, fields: FieldsObject): SelectedScope<C> {
  const request = (query: SelectedRequest | undefined): ListParameters => withSelection(fields, query);
  return Object.freeze({
    list: async (query?: SelectedRequest, ctx?: C) => (await scoped.list(request(query), ctx)) as Page,
    pages: (query?: SelectedRequest, ctx?: C, options?: IterateOptions) =>
      walk(() => scoped.pages(request(query), ctx, options) as AsyncGenerator<Page, void, undefined>),
    items: (query?: SelectedRequest, ctx?: C, options?: IterateOptions) =>
      walk(() => scoped.items(request(query), ctx, options) as AsyncGenerator<Item, void, undefined>),
    explain: async (query?: SelectedRequest, ctx?: C) => scoped.explain(request(query), ctx),
  });
}

/** The request with the selection as its `fields`; `invalid_parameter` when it has `fields` of its own. */
function withSelection(fields: FieldsObject, query: SelectedRequest | undefined): ListParameters {
  const own: unknown = query?.fields;
  if (own !== undefined) {
    const message = 'fields is given by select(): leave it out of the request, or list without select()';
    throw invalidParameter('fields', message, typeof own === 'string' ? own : '', 0);
  }
  return { ...query, fields };
}

/** The scope's walk, or one whose first next() rejects with what building its request threw. */
function walk<T>(start: () => AsyncGenerator<T, void, undefined>): AsyncGenerator<T, void, undefined> {
  try {
    return start();
  } catch (err) {
    return refused(err);
  }
}

// biome-ignore lint/correctness/useYield: a walk that fails on its first next(), as the scope's own walks do.
async function* refused(err: unknown): AsyncGenerator<never, void, undefined> {
  throw err;
}
