/**
 * The tests' own model of the effective sort, written without the engine: parse a `sort` value, append the primary
 * key ascending, order NULLS LAST in both directions. Plus a walker that follows nextCursor through a scoped engine
 * and checks every page's shape on the way.
 */
import * as assert from 'uvu/assert';
import type { ScopedEngine } from '../../src/engine/index.ts';
import type { Page } from '../../src/engine/page/list-page.ts';

/** A value the database orders the same way JavaScript's `<` does (ASCII strings, numbers, bigints). */
export type Comparable = string | number | bigint | null;

/** How to read each sortable public field of a seed row. */
export type Getters<R> = Readonly<Record<string, (row: R) => Comparable>>;

/** Order rows by a `sort` value as the specification says: keys in order, then the PK ascending, NULLS LAST. */
export function orderBy<R>(rows: readonly R[], sort: string, get: Getters<R>, primaryKey: readonly string[]): R[] {
  const keys = sort
    .split(',')
    .filter((t) => t !== '')
    .map((t) => (t.startsWith('-') ? { name: t.slice(1), dir: -1 } : { name: t, dir: 1 }));
  for (const pk of primaryKey) if (!keys.some((k) => k.name === pk)) keys.push({ name: pk, dir: 1 });
  return [...rows].sort((a, b) => {
    for (const key of keys) {
      const getter = get[key.name];
      if (!getter) throw new Error(`test: no getter for ${key.name}`);
      const x = getter(a);
      const y = getter(b);
      if (x === null && y === null) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      if (x < y) return -key.dir;
      if (x > y) return key.dir;
    }
    return 0;
  });
}

/** The pages and items of one walk. */
export interface Walk {
  readonly items: Record<string, unknown>[];
  readonly pages: Page[];
}

/**
 * Follow nextCursor from the first page to the end, with page sizes taken in turn from `limits`. Each page must be
 * full when it says hasMore, carry a cursor exactly then, and stay within its limit.
 */
export async function walk(
  scoped: ScopedEngine,
  query: Record<string, string>,
  limits: readonly number[],
  maxPages = 200,
): Promise<Walk> {
  const items: Record<string, unknown>[] = [];
  const pages: Page[] = [];
  let cursor: string | undefined;
  for (let i = 0; ; i++) {
    if (i >= maxPages) throw new Error('test: the walk does not end');
    const limit = limits[i % limits.length]!;
    const page = await scoped.list({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
    pages.push(page);
    assert.is(page.page.limit, limit);
    assert.ok(page.items.length <= limit, 'a page holds more items than its limit');
    if (page.page.hasMore) {
      assert.is(page.items.length, limit, 'a page with more rows after it is not full');
      assert.type(page.page.nextCursor, 'string');
    } else assert.is(page.page.nextCursor, undefined);
    items.push(...page.items);
    if (!page.page.nextCursor) return { items, pages };
    cursor = page.page.nextCursor;
  }
}

/**
 * Follow prevCursor back from `cursor` to the first page, with page sizes taken in turn from `limits`. Each page must
 * hold its items in the requested order, be full when it says hasMore (rows precede it), carry a prevCursor exactly
 * then, and carry a nextCursor whenever it has items. Returns the pages in the order they were read (last first).
 */
export async function walkBack(
  scoped: ScopedEngine,
  query: Record<string, string>,
  cursor: string,
  limits: readonly number[],
  maxPages = 200,
): Promise<Walk> {
  const items: Record<string, unknown>[] = [];
  const pages: Page[] = [];
  let prev: string | undefined = cursor;
  for (let i = 0; prev; i++) {
    if (i >= maxPages) throw new Error('test: the backward walk does not end');
    const limit = limits[i % limits.length]!;
    const page = await scoped.list({ ...query, limit: String(limit), cursor: prev });
    pages.push(page);
    assert.is(page.page.limit, limit);
    assert.is(page.page.offset, 0);
    assert.ok(page.items.length <= limit, 'a backward page holds more items than its limit');
    assert.is(page.page.hasMore, page.page.prevCursor !== undefined, 'hasMore ⇔ prevCursor on a backward page');
    if (page.page.hasMore) assert.is(page.items.length, limit, 'a page with rows before it is not full');
    assert.is(page.page.nextCursor !== undefined, page.items.length > 0, 'a backward page continues after its items');
    items.unshift(...page.items);
    prev = page.page.prevCursor;
  }
  return { items, pages };
}
