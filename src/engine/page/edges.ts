import type { ParsedQuery } from '../../syntax/ast.ts';
import type { ListContext } from '../config.ts';
import type { Scope } from '../scope.ts';
import { fetchAndCount, type Page, pageOf } from './list-page.ts';
import { openListing } from './listing.ts';

/**
 * The key under which a scoped engine lists a page with a cursor after every item, for adapters whose protocol
 * wants one per item (GraphQL edges). Registered with Symbol.for so that every copy of listql agrees on it.
 */
export const LIST_EDGES: unique symbol = Symbol.for('listql.listEdges') as never;

/** A page and, per item, the cursor that continues after it. */
export interface EdgesPage {
  readonly page: Page;
  readonly cursors: readonly string[];
}

/** How an edges page is read. */
export interface EdgesOptions {
  /**
   * Page backward (GraphQL `last`/`before`): the `limit` rows before the cursor's position, or the last `limit`
   * rows without a cursor. Given, it overrides the direction the cursor token names: the position is its keys.
   */
  readonly backward?: boolean;
  /**
   * The nested lists paged backward (`last`, `before`), by dotted path (`reviews`, `author.books`): each parent's
   * list is read from its end, or from before the cursor's position for the parent the cursor names. With `backward`
   * or this given, every other nested list is read forward and a nested cursor's position is its keys, whatever
   * direction its token names.
   */
  readonly backwardLists?: readonly string[];
  /**
   * `'all'` (the default): a cursor after every item. `'ends'`: after the first and the last item only (what
   * `pageInfo` needs when no edge's cursor is selected); EdgesPage.cursors then holds at most those two.
   */
  readonly cursors?: 'all' | 'ends';
  /**
   * The nested lists' cursors: `'all'` (the default), a cursor after every nested item; `'ends'`, after each nested
   * page's first and last item only (what a nested `pageInfo` needs when no nested edge's cursor is selected);
   * `'none'`, no per-item cursor at all (nested pages keep their `nextCursor` and `prevCursor`).
   */
  readonly nestedCursors?: 'all' | 'ends' | 'none';
}

/** What a scoped engine answers under LIST_EDGES: list() with a cursor per item. */
export type EdgesLister<Q, C> = (query: Q, ctx?: C, options?: EdgesOptions) => Promise<EdgesPage>;

/** List one page as list() does, and encode the cursor after each of its items. */
export async function listEdges<C extends ListContext>(
  scope: Scope<C>,
  parsed: ParsedQuery,
  ctx: C,
  options: EdgesOptions = {},
): Promise<EdgesPage> {
  const directed = options.backward !== undefined || options.backwardLists !== undefined;
  // The direction of nested lists means nothing to a request without any: left out, its checks are remembered
  // (listing-memo.ts) as a REST request's are.
  const nested = parsed.fields?.some((field) => field.children !== undefined) === true;
  const lists = directed && nested ? new Set(options.backwardLists) : undefined;
  const listing = await openListing(scope, parsed, ctx, false, undefined, lists);
  const backward = options.backward ?? listing.backward;
  const { data, count } = await fetchAndCount(scope, listing, () =>
    listing.fetch(listing.after, {
      cursors: options.cursors === 'ends' ? 'ends' : true,
      backward,
      ...(options.nestedCursors === undefined ? {} : { nestedCursors: options.nestedCursors }),
    }),
  );
  const page = pageOf(listing.paging, data, count);
  const facets = listing.resolved.facets ? await listing.facets() : undefined;
  return { page: facets ? { ...page, facets } : page, cursors: data.cursors ?? [] };
}

/** Return the edges lister of a scoped engine, or undefined when it is not a listql engine. */
export function edgesListerOf<Q, C>(scoped: object): EdgesLister<Q, C> | undefined {
  const lister = (scoped as { [LIST_EDGES]?: unknown })[LIST_EDGES];
  return typeof lister === 'function' ? (lister as EdgesLister<Q, C>) : undefined;
}
