import { invalidParameter, ListError } from '../errors.ts';
import type { ParsedQuery } from '../syntax/ast.ts';
import type { ListContext } from './config.ts';
import { listPage, type Page, type Scope } from './list.ts';
import type { Item } from './serialize.ts';

/** Options of pages() and items(). */
export interface IterateOptions {
  /** Rows per page, constant for the whole walk; defaults to the request's `limit`, else the engine's maxLimit. */
  readonly pageSize?: number;
}

/**
 * Walk every page of a request by following `nextCursor`: constant page size, never offset, one page in memory at a
 * time (the consumer's pace sets the pace). `count=true` is counted once, on the first page.
 */
export async function* iteratePages<C extends ListContext>(
  scope: Scope<C>,
  parsed: ParsedQuery,
  ctx: C,
  options: IterateOptions = {},
): AsyncGenerator<Page, void, undefined> {
  if (parsed.offset !== undefined)
    throw invalidParameter('offset', 'pages() and items() follow cursors and never use offset');
  const { maxLimit } = scope.settings.paging;
  const pageSize = options.pageSize ?? parsed.limit ?? maxLimit;
  if (options.pageSize !== undefined && !(Number.isSafeInteger(pageSize) && pageSize >= 1 && pageSize <= maxLimit))
    throw new ListError('invalid_schema', `pageSize must be a whole number from 1 to maxLimit (${maxLimit})`);
  let query: ParsedQuery = { ...parsed, limit: pageSize };
  for (;;) {
    const page = await listPage(scope, query, ctx);
    yield page;
    const next = page.page.nextCursor;
    if (next === undefined) return;
    const { count: _count, ...rest } = query;
    query = { ...rest, cursor: next };
  }
}

/** Walk every item of a request, one at a time, page by page as iteratePages() does. */
export async function* iterateItems<C extends ListContext>(
  scope: Scope<C>,
  parsed: ParsedQuery,
  ctx: C,
  options: IterateOptions = {},
): AsyncGenerator<Item, void, undefined> {
  for await (const page of iteratePages(scope, parsed, ctx, options)) yield* page.items;
}
