import { turnPage } from '../../keyset/backward.ts';
import type { CursorValue } from '../../keyset/cursor-codec.ts';
import type { CursorKey } from '../../keyset/cursor-plan.ts';
import { dropKeys, takeKeys } from '../../keyset/key-columns.ts';
import { nestedCursorAfter, nestedCursorBefore } from '../../keyset/nested-cursor.ts';
import type { Item } from '../serialize.ts';
import type { TreeList } from './check.ts';
import { keyIdentity, linkAlias, parentAlias, takeKeyColumns } from './link.ts';
import type { PlannedLevel } from './plan.ts';
import { BACK_RANK, RANK } from './window.ts';

/** A row of a nested level as its statement returns it (property names; listql's extra columns until taken). */
export type Row = Record<string, unknown>;

/**
 * Under this key (registered with Symbol.for, so every copy of listql agrees), a nested page read for GraphQL edges
 * carries the cursor after each of its items, in item order. A symbol key never reaches JSON.
 */
export const NESTED_CURSORS: unique symbol = Symbol.for('listql.nestedCursors') as never;

/** Paging facts of one parent's nested list: the top-level page's, `count` with `<path>.count=true`. */
export interface NestedPageInfo {
  readonly limit: number;
  readonly offset: number;
  readonly hasMore: boolean;
  readonly nextCursor?: string;
  readonly prevCursor?: string;
  readonly count?: number;
}

/** One parent's nested list: the shape of a top-level page. */
export interface NestedPage {
  readonly items: Item[];
  readonly page: NestedPageInfo;
  /** Only for GraphQL edges: the cursor after each item. */
  readonly [NESTED_CURSORS]?: readonly string[];
}

/** A level's row with listql's columns taken out: whose it is, and the link values its own children need. */
export interface LevelRow {
  readonly row: Row;
  /** The parent's key values, and their identity to group by (keyIdentity). */
  readonly parent: readonly CursorValue[];
  readonly parentKey: unknown;
  readonly links: readonly CursorValue[];
}

/** Take a row's parent key, link values and row numbers out of it; its sort keys stay until its page is cut. */
export function levelRow(row: Row, level: PlannedLevel): LevelRow {
  const parent = takeKeyColumns(row, level.link.inner, parentAlias);
  const links = takeKeyColumns(row, level.links, linkAlias);
  delete row[RANK];
  delete row[BACK_RANK];
  return { row, parent, parentKey: keyIdentity(parent), links };
}

/** One parent's page of rows, cut from the rows its statement read, with the page's facts but not yet its items. */
export interface CutPage {
  readonly rows: readonly LevelRow[];
  readonly hasMore: boolean;
  readonly nextCursor?: string;
  readonly prevCursor?: string;
  readonly cursors?: readonly string[];
}

/**
 * Cut one parent's page from its rows (in list order, `limit + 1` at most), as the top level cuts its page
 * (keyset/backward.ts turnPage): the continued parent's list starts at its cursor, forward or backward; every
 * other parent's at its offset. Its cursors name the parent, and with `cursors`, one follows every item.
 */
export function cutPage(
  list: TreeList,
  keys: readonly CursorKey[],
  parent: readonly CursorValue[],
  rows: readonly LevelRow[],
  cursors: boolean,
): CutPage {
  const position = list.position;
  const continued = position !== undefined && JSON.stringify(position.parent) === JSON.stringify(parent);
  const backFromCursor = continued && !list.backward && position.backward;
  const backward = list.backward || backFromCursor;
  // turnPage reads a backward page nearest to its end first: a list read backward arrives so; a forward list's
  // continued parent paging back arrives in list order.
  const read = backFromCursor ? [...rows].reverse() : [...rows];
  const { rows: page, hasPrevious, hasNext, hasMore } = turnPage(read, list.paging, continued, backward);
  const rowKeys = cursors || page.length === 1 ? page.map((r) => takeKeys(r.row, keys)) : undefined;
  const first = page[0];
  const last = page.at(-1);
  const prevKeys = hasPrevious && first ? (rowKeys?.[0] ?? takeKeys(first.row, keys)) : undefined;
  const nextKeys = hasNext && last ? (rowKeys?.at(-1) ?? takeKeys(last.row, keys)) : undefined;
  for (const r of read) dropKeys(r.row, keys);
  return {
    rows: page,
    hasMore,
    ...(nextKeys === undefined ? {} : { nextCursor: nestedCursorAfter(list.cursor, parent, nextKeys) }),
    ...(prevKeys === undefined ? {} : { prevCursor: nestedCursorBefore(list.cursor, parent, prevKeys) }),
    ...(cursors ? { cursors: (rowKeys ?? []).map((values) => nestedCursorAfter(list.cursor, parent, values)) } : {}),
  };
}

/** Assemble one parent's nested page; the per-item cursors go under NESTED_CURSORS, out of JSON's sight. */
export function nestedPage(
  list: TreeList,
  cut: CutPage | undefined,
  items: Item[],
  count: number | undefined,
  cursors: boolean,
): NestedPage {
  const page: NestedPage = {
    items,
    page: {
      limit: list.paging.limit,
      offset: list.paging.offset,
      hasMore: cut?.hasMore ?? false,
      ...(cut?.nextCursor === undefined ? {} : { nextCursor: cut.nextCursor }),
      ...(cut?.prevCursor === undefined ? {} : { prevCursor: cut.prevCursor }),
      ...(count === undefined ? {} : { count }),
    },
  };
  if (cursors) Object.defineProperty(page, NESTED_CURSORS, { value: cut?.cursors ?? [], enumerable: false });
  return page;
}

/** Read a level's grouped count rows: each parent's count by its key's identity (keyIdentity). */
export function countsOf(rows: readonly Row[], level: PlannedLevel): Map<unknown, number> {
  const counts = new Map<unknown, number>();
  for (const row of rows) {
    const parent = takeKeyColumns(row, level.link.inner, parentAlias);
    // PostgreSQL answers counts as strings (bigint).
    counts.set(keyIdentity(parent), Number(row.lq_count ?? 0));
  }
  return counts;
}
