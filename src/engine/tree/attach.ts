import { turnPage } from '../../keyset/backward.ts';
import type { CursorValue } from '../../keyset/cursor-codec.ts';
import type { CursorKey } from '../../keyset/cursor-plan.ts';
import { endCursors } from '../../keyset/end-cursors.ts';
import { dropKeys, takeKeys } from '../../keyset/key-columns.ts';
import { nestedCursorAfter, nestedCursorBefore } from '../../keyset/nested-cursor.ts';
import type { Item } from '../serialize.ts';
import type { TreeList } from './check.ts';
import { keyIdentity, linkAlias, parentAlias, takeKeyColumn, takeKeyColumns, valueIdentity } from './link.ts';
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
  /** The identity of the parent's key values, to group by (keyIdentity). */
  readonly parentKey: unknown;
  readonly links: readonly CursorValue[];
  /** A list's row: its number within its parent's list (the statement's order); 0 for a to-one row. */
  readonly rank: number;
  /** Where its item is among the level's written items (run.ts writeAndDescend); -1 until written. */
  slot: number;
}

/** The link values of a row whose level has no children: one shared empty list, not one per row. */
const NO_LINKS: readonly CursorValue[] = Object.freeze([]);

/**
 * Take a row's parent key, link values and row numbers out of it; its sort keys stay until its page is cut. `keep`:
 * read them and leave the row as it is (a driver row, which the row writer reads by its entity's columns only).
 * A one-column parent key is read as its identity directly (keyIdentity of one value), without a list per row.
 */
export function levelRow(row: Row, level: PlannedLevel, keep = false): LevelRow {
  const inner = level.link.inner;
  const parentKey =
    inner.length === 1
      ? valueIdentity(takeKeyColumn(row, inner[0]!, parentAlias(0), keep))
      : keyIdentity(takeKeyColumns(row, inner, parentAlias, keep));
  const links = level.links.length === 0 ? NO_LINKS : takeKeyColumns(row, level.links, linkAlias, keep);
  // PostgreSQL answers row numbers as strings (bigint).
  const rank = level.list ? Number(row[RANK]) : 0;
  if (!keep) {
    delete row[RANK];
    delete row[BACK_RANK];
  }
  return { row, parentKey, links, rank, slot: -1 };
}

/**
 * A to-one level's row of each parent key: the first its statement returned (ordered by primary key), the only one
 * read, so no list of a parent's rows is made.
 */
export function firstRows(rows: readonly Row[], level: PlannedLevel, driver: boolean): Map<unknown, LevelRow> {
  const chosen = new Map<unknown, LevelRow>();
  for (const statementRow of rows) {
    const row = levelRow(statementRow, level, driver);
    if (!chosen.has(row.parentKey)) chosen.set(row.parentKey, row);
  }
  return chosen;
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
 * other parent's at its offset. Its cursors name the parent, and with `cursors`, one follows every item (`'ends'`:
 * the first and the last item only, one for a page of one item).
 */
export function cutPage(
  list: TreeList,
  keys: readonly CursorKey[],
  parent: readonly CursorValue[],
  rows: readonly LevelRow[],
  cursors: boolean | 'ends',
  keep = false,
): CutPage {
  const position = list.position;
  const continued = position !== undefined && JSON.stringify(position.parent) === JSON.stringify(parent);
  const backFromCursor = continued && !list.backward && position.backward;
  const backward = list.backward || backFromCursor;
  // turnPage reads a backward page nearest to its end first: a list read backward arrives so; a forward list's
  // continued parent paging back arrives in list order.
  // turnPage reverses a backward page in place: only then is a copy needed.
  const read = backFromCursor ? [...rows].reverse() : backward ? [...rows] : (rows as LevelRow[]);
  const { rows: page, hasPrevious, hasNext, hasMore } = turnPage(read, list.paging, continued, backward);
  const take = (row: Row) => takeKeys(row, keys, keep);
  const ends = cursors === 'ends';
  // Read once where one row would be read twice (taking its keys out of a mapped row): a page of one row that
  // needs it as both its first and its last.
  const once = page.length === 1 && (ends || (hasPrevious && hasNext));
  const rowKeys = cursors === true || once ? page.map((r) => take(r.row)) : undefined;
  const first = page[0];
  const last = page.at(-1);
  const firstKeys = first && (hasPrevious || ends) ? (rowKeys?.[0] ?? take(first.row)) : undefined;
  const lastKeys = last && (hasNext || ends) ? (rowKeys?.at(-1) ?? take(last.row)) : undefined;
  const prevKeys = hasPrevious ? firstKeys : undefined;
  const nextKeys = hasNext ? lastKeys : undefined;
  const nextCursor = nextKeys && nestedCursorAfter(list.cursor, parent, nextKeys);
  // A driver row keeps its key columns: the row writer reads its entity's columns only.
  if (!keep) for (const r of read) dropKeys(r.row, keys);
  // Built member by member (in this order), without a spread of a throw-away object per optional member.
  const cut: { -readonly [K in keyof CutPage]: CutPage[K] } = { rows: page, hasMore };
  if (nextCursor !== undefined) cut.nextCursor = nextCursor;
  if (prevKeys !== undefined) cut.prevCursor = nestedCursorBefore(list.cursor, parent, prevKeys);
  if (cursors === true) cut.cursors = (rowKeys ?? []).map((values) => nestedCursorAfter(list.cursor, parent, values));
  else if (ends)
    cut.cursors = endCursors(firstKeys, lastKeys, page.length, nextCursor, (keys) =>
      nestedCursorAfter(list.cursor, parent, keys),
    );
  return cut;
}

/** Assemble one parent's nested page; the per-item cursors go under NESTED_CURSORS, out of JSON's sight. */
export function nestedPage(
  list: TreeList,
  cut: CutPage | undefined,
  items: Item[],
  count: number | undefined,
  cursors: boolean | 'ends',
): NestedPage {
  // Members in this order (JSON keeps it), each optional one set only when present, as cutPage builds its own.
  const info: { -readonly [K in keyof NestedPageInfo]: NestedPageInfo[K] } = {
    limit: list.paging.limit,
    offset: list.paging.offset,
    hasMore: cut?.hasMore ?? false,
  };
  if (cut?.nextCursor !== undefined) info.nextCursor = cut.nextCursor;
  if (cut?.prevCursor !== undefined) info.prevCursor = cut.prevCursor;
  if (count !== undefined) info.count = count;
  const page: NestedPage = { items, page: info };
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

/** Copy an item and what its nested selections put into it, so a copy shares no object of the answer's tree. */
export function copyItem(item: Item, levels: readonly PlannedLevel[]): Item {
  const copy = { ...item };
  for (const level of levels) {
    const value = item[level.selection.key];
    if (typeof value !== 'object' || value === null) continue;
    copy[level.selection.key] = level.list
      ? copyPage(value as NestedPage, level.children)
      : copyItem(value as Item, level.children);
  }
  return copy;
}

function copyPage(page: NestedPage, levels: readonly PlannedLevel[]): NestedPage {
  const copy: NestedPage = { items: page.items.map((item) => copyItem(item, levels)), page: { ...page.page } };
  const cursors = page[NESTED_CURSORS];
  if (cursors) Object.defineProperty(copy, NESTED_CURSORS, { value: [...cursors], enumerable: false });
  return copy;
}
