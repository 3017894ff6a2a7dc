/**
 * Drive list() like a client: one page, or a full cursor walk whose page size changes between pages, checking the
 * paging facts of every page on the way (hasMore ⇔ nextCursor, page size bound, count the same on every page).
 */
import * as assert from 'uvu/assert';
import type { ScopedEngine } from '../../src/engine/index.ts';

/** What a walk saw: every item id in order, and the pages' sizes and counts. */
export interface WalkResult {
  readonly ids: unknown[];
  readonly pages: number;
  readonly counts: readonly (number | undefined)[];
}

/** The between-pages hook of a walk: mutate the data, switch scope… */
export type BetweenPages = (pageIndex: number) => Promise<void>;

/** Walk every page of `values` by following nextCursor, with page sizes cycling through `sizes`. */
export async function walkPages(
  scoped: () => ScopedEngine,
  values: Record<string, string>,
  sizes: readonly number[],
  between?: BetweenPages,
  maxPages = 2000,
): Promise<WalkResult> {
  const ids: unknown[] = [];
  const counts: (number | undefined)[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const limit = sizes[i % sizes.length] ?? 1;
    const { offset: _offset, ...rest } = values;
    const page = await scoped().list({ ...rest, limit: String(limit), ...(cursor ? { cursor } : {}) });
    assert.ok(page.items.length <= limit, `page ${i} has ${page.items.length} items for limit ${limit}`);
    assert.is(page.page.limit, limit);
    assert.is(page.page.hasMore, page.page.nextCursor !== undefined, `page ${i}: hasMore without cursor or back`);
    ids.push(...page.items.map((item) => item['id']));
    counts.push(page.page.count);
    if (!page.page.hasMore) return { ids, pages: i + 1, counts };
    assert.ok(page.items.length === limit, `page ${i} is short (${page.items.length}/${limit}) but hasMore`);
    cursor = page.page.nextCursor;
    if (between) await between(i);
  }
  throw new Error(`walk did not end within ${maxPages} pages`);
}
