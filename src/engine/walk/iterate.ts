import { asListError, invalidParameter, invalidSchema } from '../../errors.ts';
import type { ParsedQuery } from '../../syntax/ast.ts';
import type { ListContext } from '../config.ts';
import { type Page, pageOf } from '../page/list-page.ts';
import { openListing } from '../page/listing.ts';
import type { Scope } from '../scope.ts';
import type { Item } from '../serialize.ts';
import { itemsOf } from './items.ts';

/** Options of pages() and items(). */
export interface IterateOptions {
  /**
   * Rows per page, constant for the whole walk, from 1 to 10,000. The walk is the server's own code, so this is
   * not bounded by the endpoint's `maxLimit` (a client's `limit` in the query still is). Defaults to the request's
   * `limit`, else the engine's `maxLimit` for pages() and, for items(), 5,000 (1,000 when `fields` opens nested
   * selections, whose rows count against `maxTreeRows` beside the page's).
   */
  readonly pageSize?: number;
}

/** The largest page a server-side walk may ask for: one page is held in memory at a time (two: items() reading ahead). */
export const MAX_WALK_PAGE_SIZE = 10_000;
/**
 * items() reads this many rows per query unless told otherwise: few round trips and little work per page beside
 * the rows' own (docs/performance.md, Export), and memory still bounded (two pages when reading ahead).
 */
export const ITEMS_PAGE_SIZE = 5000;
/** items()' page when `fields` opens nested selections: each level may read as many rows again (maxTreeRows). */
export const NESTED_ITEMS_PAGE_SIZE = 1000;

/** The page size of an items() walk that sets none (no pageSize, no limit in the query). */
export function itemsPageSize(parsed: ParsedQuery): number {
  return parsed.fields?.some((f) => f.children !== undefined) ? NESTED_ITEMS_PAGE_SIZE : ITEMS_PAGE_SIZE;
}

/**
 * Walk every page of a request by following the cursor: constant page size, never offset, one page in memory at a
 * time (the consumer's pace sets the pace). The request is checked, scoped and planned once, on the first page;
 * each later page reruns that plan after the previous page's last keys, exactly what its `nextCursor` says.
 * `count=true` is counted once, on the first page. The query is parsed on the first next(), so a client error is
 * a rejection, never a synchronous throw.
 */
export async function* iteratePages<C extends ListContext>(
  scope: Scope<C>,
  parse: () => ParsedQuery,
  ctx: C,
  options: IterateOptions = {},
  defaultPageSize?: (parsed: ParsedQuery) => number,
): AsyncGenerator<Page, void, undefined> {
  try {
    yield* walkPages(scope, parse, ctx, options, defaultPageSize);
  } catch (err) {
    // One layer per page, not per item: whatever the walk throws reaches the consumer as a ListError.
    throw asListError(err);
  }
}

async function* walkPages<C extends ListContext>(
  scope: Scope<C>,
  parse: () => ParsedQuery,
  ctx: C,
  options: IterateOptions,
  defaultPageSize: ((parsed: ParsedQuery) => number) | undefined,
): AsyncGenerator<Page, void, undefined> {
  const parsed = parse();
  if (parsed.offset !== undefined)
    throw invalidParameter('offset', 'pages() and items() follow cursors and never use offset');
  if (parsed.facets !== undefined)
    throw invalidParameter('facets', 'facets are counted beside one page: ask list() for them, not pages() or items()');
  const { pageSize } = options;
  if (pageSize !== undefined && !(Number.isSafeInteger(pageSize) && pageSize >= 1 && pageSize <= MAX_WALK_PAGE_SIZE))
    throw invalidSchema(`pageSize must be a whole number from 1 to ${MAX_WALK_PAGE_SIZE}`);
  // The request's own limit is checked against maxLimit as in list(); only then does the walk's page size apply.
  const size = pageSize ?? (parsed.limit === undefined ? defaultPageSize?.(parsed) : undefined);
  const listing = await openListing(
    scope,
    parsed.limit === undefined && size === undefined ? { ...parsed, limit: scope.settings.paging.maxLimit } : parsed,
    ctx,
    true,
    size,
  );
  // Only the next page's keys are kept across its read, never the page before it (memory: one page, not two).
  let after = listing.after;
  for (let first = true; ; first = false) {
    const data = await listing.fetch(after);
    const count = first && listing.resolved.count ? await listing.count() : undefined;
    after = data.nextKeys;
    yield pageOf(listing.paging, data, count, first && listing.resolved.count === 'estimated');
    if (after === undefined) return;
  }
}

/**
 * Walk every item of a request, one at a time, page by page as iteratePages() does, reading the next page while the
 * consumer drains this one where the database is across a network (readsAhead()).
 */
export function iterateItems<C extends ListContext>(
  scope: Scope<C>,
  parse: () => ParsedQuery,
  ctx: C,
  options: IterateOptions = {},
): AsyncGenerator<Item, void, undefined> {
  return itemsOf(iteratePages(scope, parse, ctx, options, itemsPageSize), readsAhead(scope));
}

/**
 * Whether items() asks for the next page as soon as a page arrives: on PostgreSQL and MySQL/MariaDB the query then
 * runs on the server while the consumer drains the page before it; SQLite runs queries in-process, on the thread
 * that would drain the page, so there is nothing to overlap.
 */
export function readsAhead<C extends ListContext>(scope: Scope<C>): boolean {
  return !scope.keys.dialect.inProcess;
}
