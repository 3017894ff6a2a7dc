/**
 * Drive list() like a client: one page, or a full cursor walk whose page size changes between pages, checking the
 * paging facts of every page on the way (hasMore ⇔ nextCursor, page size bound, count the same on every page).
 */
import * as assert from 'uvu/assert';
import type { ScopedEngine } from '../../src/engine/index.ts';
import type { Page } from '../../src/engine/page/list-page.ts';

/** What a walk saw: every item id in order, and the pages' sizes and counts. */
export interface WalkResult {
  readonly ids: unknown[];
  readonly pages: number;
  readonly counts: readonly (number | undefined)[];
  /** Per page, in the order read: its item ids and its cursors. */
  readonly trail: readonly PageTrail[];
}

/** One page of a walk as a client keeps it: item ids, prevCursor and nextCursor. */
export interface PageTrail {
  readonly ids: unknown[];
  readonly prevCursor: string | undefined;
  readonly nextCursor: string | undefined;
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
  const trail: PageTrail[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const limit = sizes[i % sizes.length] ?? 1;
    const { offset: _offset, ...rest } = values;
    const page = await scoped().list({ ...rest, limit: String(limit), ...(cursor ? { cursor } : {}) });
    assert.ok(page.items.length <= limit, `page ${i} has ${page.items.length} items for limit ${limit}`);
    assert.is(page.page.limit, limit);
    assert.is(page.page.hasMore, page.page.nextCursor !== undefined, `page ${i}: hasMore without cursor or back`);
    const hasPrev = i > 0 && page.items.length > 0;
    assert.is(page.page.prevCursor !== undefined, hasPrev, `page ${i}: a prevCursor exactly on later, non-empty pages`);
    ids.push(...page.items.map((item) => item['id']));
    counts.push(page.page.count);
    trail.push(trailOf(page));
    if (!page.page.hasMore) return { ids, pages: i + 1, counts, trail };
    assert.ok(page.items.length === limit, `page ${i} is short (${page.items.length}/${limit}) but hasMore`);
    cursor = page.page.nextCursor;
    if (between) await between(i);
  }
  throw new Error(`walk did not end within ${maxPages} pages`);
}

/**
 * Walk back from `cursor` (a prevCursor) by following prevCursor to the first page, with page sizes cycling through
 * `sizes`. Every page keeps the requested order, says hasMore exactly when it carries a prevCursor (rows precede it),
 * is full then, and continues forward with a nextCursor whenever it has items. `ids` are in the requested order.
 */
export async function walkBackPages(
  scoped: () => ScopedEngine,
  values: Record<string, string>,
  cursor: string,
  sizes: readonly number[],
  maxPages = 2000,
): Promise<WalkResult> {
  const ids: unknown[] = [];
  const counts: (number | undefined)[] = [];
  const trail: PageTrail[] = [];
  let prev: string | undefined = cursor;
  for (let i = 0; i < maxPages; i++) {
    const limit = sizes[i % sizes.length] ?? 1;
    const { offset: _offset, ...rest } = values;
    const page = await scoped().list({ ...rest, limit: String(limit), cursor: prev! });
    assert.ok(page.items.length <= limit, `back page ${i} has ${page.items.length} items for limit ${limit}`);
    assert.is(page.page.limit, limit);
    assert.is(page.page.offset, 0);
    assert.is(page.page.hasMore, page.page.prevCursor !== undefined, `back page ${i}: hasMore without prevCursor`);
    assert.is(page.page.nextCursor !== undefined, page.items.length > 0, `back page ${i}: nextCursor after its items`);
    ids.unshift(...page.items.map((item) => item['id']));
    counts.push(page.page.count);
    trail.push(trailOf(page));
    if (!page.page.hasMore) return { ids, pages: i + 1, counts, trail };
    assert.ok(page.items.length === limit, `back page ${i} is short (${page.items.length}/${limit}) but hasMore`);
    prev = page.page.prevCursor;
  }
  throw new Error(`backward walk did not end within ${maxPages} pages`);
}

function trailOf(page: Page): PageTrail {
  return {
    ids: page.items.map((item) => item['id']),
    prevCursor: page.page.prevCursor,
    nextCursor: page.page.nextCursor,
  };
}
