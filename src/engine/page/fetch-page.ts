import { arrayRowColumns, arrayRowsGuard, objectRow } from '../../dialect/array-rows.ts';
import type { StatementGuard } from '../../dialect/index.ts';
import { turnPage } from '../../keyset/backward.ts';
import type { CursorValue } from '../../keyset/cursor-codec.ts';
import { type CursorPlan, cursorAfter, cursorBefore } from '../../keyset/cursor-plan.ts';
import { endCursors } from '../../keyset/end-cursors.ts';
import { takeKeys } from '../../keyset/key-columns.ts';
import { useConnection } from '../../orm/connection.ts';
import { utcDateColumns } from '../../orm/date-text.ts';
import type { Paging } from '../../plan/paging.ts';
import { runAbortable } from '../abort.ts';
import type { ListContext } from '../config.ts';
import { executeOwned, executeUnmapped } from '../execute.ts';
import { checkPlan } from '../plan-check.ts';
import { pageItems, readsDriverRows } from '../row-items.ts';
import type { Scope } from '../scope.ts';
import type { Item } from '../serialize.ts';
import { type Tree, takeTreeLinks } from '../tree/index.ts';
import type { PageStatement } from './compiled-data.ts';

/** One page of rows turned into items, and where the next page starts. */
export interface PageData {
  readonly items: Item[];
  /** Forward: more rows follow the page. Backward: more rows precede it. */
  readonly hasMore: boolean;
  readonly nextCursor?: string;
  /** Pages back from the first item (see docs/pagination.md for when it is present). */
  readonly prevCursor?: string;
  /** The key values nextCursor carries, so a walk continues without decoding its own cursor. */
  readonly nextKeys?: readonly CursorValue[];
  /**
   * With `{ cursors: true }`: per item, the cursor that continues after it (GraphQL edges). With `'ends'`: the first
   * and the last item's only (none for an empty page, one for a page of one item).
   */
  readonly cursors?: readonly string[];
}

/** Options of one fetch. */
export interface FetchOptions {
  /** Encode a cursor after every item, not only after the last (GraphQL edges need one per item). */
  readonly cursors?: boolean | 'ends';
  /** Read the `limit` rows before the given key values instead of after them (a backward cursor), or the last ones. */
  readonly backward?: boolean;
  /** With `cursors`, the nested pages' per-item cursors: every item's (`'all'`), first and last only, or none. */
  readonly nestedCursors?: 'all' | 'ends' | 'none';
}

/**
 * Run a page's statement and turn its rows into the page: whether more rows follow (or precede), the cursors at its
 * ends (or after every item, or after the first and last, as asked), the nested selections' link values, and the
 * items (written straight from rows where the entity allows it, else hydrated and serialized).
 */
export async function fetchPage<C extends ListContext>(
  scope: Scope<C>,
  plan: CursorPlan,
  statement: PageStatement,
  paging: Paging,
  after: readonly CursorValue[] | undefined,
  guard: StatementGuard,
  connection: object | undefined,
  options: FetchOptions,
  tree: Tree | undefined,
): Promise<PageData & { readonly links?: CursorValue[][] }> {
  const backward = options.backward === true;
  const { qb, keys } = statement;
  if (connection) useConnection(qb, connection);
  await checkPlan(scope.settings, qb, guard);
  // Rows straight from the driver where the row writer can write them (row-items.ts).
  const driverRows = readsDriverRows(scope, qb);
  const sent = driverRows && !tree ? writerGuard(scope, guard) : guard;
  const { inProcess } = scope.keys.dialect;
  const rows = await runAbortable(
    guard.signal,
    () => (driverRows ? executeUnmapped<Item>(qb, sent) : executeOwned<Item>(qb, sent)),
    inProcess,
  );
  // Rows read as arrays (dialect/array-rows.ts): the rows whose keys a cursor needs are made objects for takeKeys().
  const columns = arrayRowColumns(rows);
  const keysOf = (row: Item) => takeKeys(columns ? objectRow(row as unknown as unknown[], columns) : row, keys);

  const { rows: pageRows, hasPrevious, hasNext, hasMore } = turnPage(rows, paging, after !== undefined, backward);
  const ends = options.cursors === 'ends';
  const rowKeys = options.cursors === true || pageRows.length === 1 ? pageRows.map(keysOf) : undefined;
  const first = pageRows[0];
  const last = pageRows.at(-1);
  const firstKeys = first && (hasPrevious || ends) ? (rowKeys?.[0] ?? keysOf(first)) : undefined;
  const lastKeys = last && (hasNext || ends) ? (rowKeys?.at(-1) ?? keysOf(last)) : undefined;
  const prevKeys = hasPrevious ? firstKeys : undefined;
  const nextKeys = hasNext ? lastKeys : undefined;
  const nextCursor = nextKeys && cursorAfter(plan, nextKeys);
  const prevCursor = prevKeys && cursorBefore(plan, prevKeys);
  const cursors =
    options.cursors === true
      ? rowKeys?.map((values) => cursorAfter(plan, values))
      : ends
        ? endCursors(firstKeys, lastKeys, pageRows.length, nextCursor, (keys) => cursorAfter(plan, keys))
        : undefined;
  // Nested selections: each row's link values, taken out before its item is written.
  const links = tree ? pageRows.map((row) => takeTreeLinks(row, tree)) : undefined;
  const items = pageItems(scope, pageRows, keys, driverRows, columns);
  const data: PageData = {
    items,
    hasMore,
    ...(nextKeys === undefined ? {} : { nextCursor: nextCursor!, nextKeys }),
    ...(prevCursor === undefined ? {} : { prevCursor }),
  };
  if (links) return { ...data, ...(cursors ? { cursors } : {}), links };
  return cursors ? { ...data, cursors } : data;
}

/**
 * The guard of a statement whose rows only the row writer reads: a dialect may give their UTC date columns as Dates
 * (MySQL/MariaDB, from bytes), and may read them as arrays (SQLite) where the row writer reads those and no global
 * result cache could hand one reader's rows to another.
 */
function writerGuard<C extends ListContext>(scope: Scope<C>, guard: StatementGuard): StatementGuard {
  const { writerDatesGuard } = scope.keys.dialect;
  const own = writerDatesGuard ? writerDatesGuard(guard, utcDateColumns(scope.em, scope.bound.meta)) : guard;
  if (scope.em.config.get('resultCache')?.global) return own;
  return arrayRowsGuard(own, own !== guard);
}
