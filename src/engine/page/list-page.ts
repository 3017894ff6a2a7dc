import { inTransaction } from '../../orm/connection.ts';
import { reachesRelation } from '../../plan/entity-filters.ts';
import type { ParsedQuery } from '../../syntax/ast.ts';
import type { ListContext } from '../config.ts';
import type { Facets } from '../facets/run.ts';
import type { Scope } from '../scope.ts';
import type { Item } from '../serialize.ts';
import type { PageData } from './fetch-page.ts';
import { type Listing, openListing } from './listing.ts';

/** Paging facts of one page (see docs/pagination.md); `count` only when the request asked for it. */
export interface PageInfo {
  readonly limit: number;
  readonly offset: number;
  /** More rows follow this page; on a backward page (one requested with a prevCursor), more rows precede it. */
  readonly hasMore: boolean;
  /** Continues after the last item: whenever `hasMore` on a forward page; on a backward page, whenever it has items. */
  readonly nextCursor?: string;
  /** Pages back from the first item: on a page after an offset or a cursor, and on a backward page with `hasMore`. */
  readonly prevCursor?: string;
  /** `count=true` only: the exact number of matching rows. */
  readonly count?: number;
  /** `count=estimated` only: the database planner's estimate of that number (docs/pagination.md). */
  readonly estimatedCount?: number;
}

/** A list response: the page's items and its paging facts, and with `facets=`, the facets' values and counts. */
export interface Page<I = Item> {
  readonly items: I[];
  readonly page: PageInfo;
  /** `facets=` only: each facet's most frequent values with their counts, by facet name (docs/facets.md). */
  readonly facets?: Facets;
}

/**
 * List one page: check the whole request first (no query runs for a client error), then one data query of
 * `limit + 1` rows and, with `count=true`, one count query. Both carry the base scope, the root's MikroORM filters,
 * the search and the filter; only the data query is sorted, continued after the cursor and limited. With `facets=`,
 * one grouped statement per facet follows (docs/facets.md).
 */
export async function listPage<C extends ListContext>(scope: Scope<C>, parsed: ParsedQuery, ctx: C): Promise<Page> {
  const listing = await openListing(scope, parsed, ctx, false);
  const { data, count } = await fetchAndCount(scope, listing, () =>
    listing.fetch(listing.after, { backward: listing.backward }),
  );
  const page = pageOf(listing.paging, data, count, listing.resolved.count === 'estimated');
  return listing.resolved.facets ? { ...page, facets: await listing.facets() } : page;
}

/** Rows (of a page, of an offset) past which a request weighs more than a page and its count (admission). */
const CHEAP_ROWS = 1000;

/**
 * Read a listing's page and, when it asked for one, its count. The exact count of a cheap request (a page and its
 * count, no relation in its filter or sort, no nested list, under 1,000 rows of page and of offset: the weight
 * admission lets in as cheap by default) runs beside the page on PostgreSQL and MySQL/MariaDB, each on a
 * connection of its own, so the request waits for the longer of the two rather than their sum; in a transaction,
 * on SQLite (one connection) and for any other request, the count follows the page as before. Either way both
 * statements have ended before this settles, and a failed page is the error, as it would be first.
 */
export async function fetchAndCount<C extends ListContext, D extends PageData>(
  scope: Scope<C>,
  listing: Listing,
  fetch: () => Promise<D>,
): Promise<{ data: D; count: number | undefined }> {
  if (!listing.resolved.count) return { data: await fetch(), count: undefined };
  if (!countsBeside(scope, listing)) {
    const data = await fetch();
    return { data, count: await listing.count() };
  }
  const counting = listing.count();
  // Settled below in every case; until then a rejection must not count as unhandled.
  counting.catch(() => undefined);
  let data: D;
  try {
    data = await fetch();
  } catch (err) {
    await counting.catch(() => undefined);
    throw err;
  }
  return { data, count: await counting };
}

/** Whether a listing's count may run beside its page (see fetchAndCount). */
function countsBeside<C extends ListContext>(scope: Scope<C>, listing: Listing): boolean {
  const { resolved, paging } = listing;
  return (
    resolved.count === true &&
    !scope.keys.dialect.inProcess &&
    !inTransaction(scope.base) &&
    paging.limit > 0 &&
    paging.limit < CHEAP_ROWS &&
    (paging.offset ?? 0) < CHEAP_ROWS &&
    !resolved.selections?.length &&
    !resolved.facets?.length &&
    !reachesRelation(resolved)
  );
}

/** Assemble the response of one page. */
export function pageOf(
  paging: { readonly limit: number; readonly offset?: number },
  data: {
    readonly items: Item[];
    readonly hasMore: boolean;
    readonly nextCursor?: string;
    readonly prevCursor?: string;
  },
  count: number | undefined,
  estimated = false,
): Page {
  return {
    items: data.items,
    page: {
      limit: paging.limit,
      offset: paging.offset ?? 0,
      hasMore: data.hasMore,
      ...(data.nextCursor === undefined ? {} : { nextCursor: data.nextCursor }),
      ...(data.prevCursor === undefined ? {} : { prevCursor: data.prevCursor }),
      ...(count === undefined
        ? {}
        : estimated
          ? { estimatedCount: Math.max(count, provenRows(paging.offset ?? 0, data)) }
          : { count }),
    },
  };
}

/**
 * How many matching rows a page proves exist: those skipped by its offset, its items, and one more when it read
 * past them. An estimate below that would contradict the page it comes with.
 */
function provenRows(offset: number, data: { readonly items: readonly unknown[]; readonly hasMore: boolean }): number {
  return offset + data.items.length + (data.hasMore ? 1 : 0);
}
