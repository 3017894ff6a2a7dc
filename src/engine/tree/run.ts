import type { EntityManager } from '@mikro-orm/core';
import type { CursorValue } from '../../keyset/cursor-codec.ts';
import type { Item } from '../serialize.ts';
import {
  type CutPage,
  countsOf,
  cutPage,
  type LevelRow,
  levelRow,
  NESTED_CURSORS,
  type NestedPage,
  nestedPage,
} from './attach.ts';
import type { TreeList } from './check.ts';
import { keyAt } from './link.ts';
import type { PlannedLevel } from './plan.ts';
import { fetchLevelCounts, fetchLevelRows, type StatementSite } from './statement.ts';
import { identityOf, writeLevelItems } from './writers.ts';

/** One fetch's run of the nested levels: where statements run, how items are written, whether items get cursors. */
export interface TreeRun extends StatementSite {
  /** The EntityManager items are hydrated with when an entity's item writer declines. */
  readonly em: EntityManager;
  /** Put the cursor after every nested item under NESTED_CURSORS (GraphQL edges). */
  readonly cursors: boolean;
}

/** A parent row of a level: the item its nested results go into, and the link values its row carried. */
export interface TreeParent {
  readonly item: Item;
  readonly links: readonly CursorValue[];
}

/**
 * Run the levels under these parents, one after the other and each one's children right after it: one statement per
 * level for all its parents (and one grouped count with `<path>.count=true`), never one per parent. Each level's
 * result goes into its parents' items under the selection's key: an object or null (to-one), a page (to-many). An
 * abort stops the levels not yet run (each statement checks the signal first).
 */
export async function runLevels(
  run: TreeRun,
  levels: readonly PlannedLevel[],
  parents: readonly TreeParent[],
): Promise<void> {
  if (parents.length === 0) return;
  for (const level of levels) await runLevel(run, level, parents);
}

/** A level's parents' keys (null: no related row to look for), the distinct ones, and the rows read for them. */
interface LevelRead {
  readonly keys: readonly (readonly CursorValue[] | null)[];
  readonly wanted: ReadonlyMap<string, readonly CursorValue[]>;
  /** The rows of each parent, by its key string, in the order the statement returned them. */
  readonly groups: ReadonlyMap<string, LevelRow[]>;
  readonly counts: ReadonlyMap<string, number> | undefined;
}

async function runLevel(run: TreeRun, level: PlannedLevel, parents: readonly TreeParent[]): Promise<void> {
  const keys = parents.map((p) => keyAt(p.links, level.from));
  const wanted = new Map<string, readonly CursorValue[]>();
  for (const key of keys) if (key) wanted.set(JSON.stringify(key), key);
  const parentKeys = [...wanted.values()];
  const rows = (await fetchLevelRows(run, level, parentKeys)).map((row) => levelRow(row, level));
  const counts = level.list?.list.count ? countsOf(await fetchLevelCounts(run, level, parentKeys), level) : undefined;
  const groups = new Map<string, LevelRow[]>();
  for (const row of rows) {
    const group = groups.get(row.parentKey);
    if (group) group.push(row);
    else groups.set(row.parentKey, [row]);
  }
  const read: LevelRead = { keys, wanted, groups, counts };
  if (level.list) await attachPages(run, level, level.list, parents, read);
  else await attachObjects(run, level, parents, read);
}

/** To-one: each parent's object (the first row of its key, by primary key), or null when missing or filtered out. */
async function attachObjects(
  run: TreeRun,
  level: PlannedLevel,
  parents: readonly TreeParent[],
  read: LevelRead,
): Promise<void> {
  const chosen = new Map<string, LevelRow>();
  for (const [parent, group] of read.groups) chosen.set(parent, group[0]!);
  const { itemOf, place } = await writeAndDescend(run, level, [...chosen.values()]);
  parents.forEach((p, i) => {
    const key = read.keys[i];
    const row = key ? chosen.get(JSON.stringify(key)) : undefined;
    p.item[level.selection.key] = row ? place(itemOf(row)) : null;
  });
}

/** To-many: each parent's page, cut from its rows, with its count when asked. */
async function attachPages(
  run: TreeRun,
  level: PlannedLevel,
  list: TreeList,
  parents: readonly TreeParent[],
  read: LevelRead,
): Promise<void> {
  const cuts = new Map<string, CutPage>();
  for (const [parent, values] of read.wanted)
    cuts.set(parent, cutPage(list, level.keys, values, read.groups.get(parent) ?? [], run.cursors));
  const { itemOf, place } = await writeAndDescend(
    run,
    level,
    [...cuts.values()].flatMap((cut) => cut.rows),
  );
  parents.forEach((p, i) => {
    const key = read.keys[i];
    const parent = key ? JSON.stringify(key) : undefined;
    const cut = parent === undefined ? undefined : cuts.get(parent);
    const items = (cut?.rows ?? []).map((row) => place(itemOf(row)));
    const count = read.counts && (parent === undefined ? 0 : (read.counts.get(parent) ?? 0));
    p.item[level.selection.key] = nestedPage(list, cut, items, count, run.cursors);
  });
}

/**
 * Write a level's rows as items, each target row once (an m:n target or a shared to-one target appears under several
 * parents), then run the level's children with those items as their parents. `place` hands out the written item the
 * first time and a copy after (copyItem), so no object appears twice in an answer.
 */
async function writeAndDescend(
  run: TreeRun,
  level: PlannedLevel,
  rows: readonly LevelRow[],
): Promise<{ itemOf: (row: LevelRow) => Item; place: (item: Item) => Item }> {
  const { bound } = level.target;
  const index = new Map<string, number>();
  const unique: LevelRow[] = [];
  const at = new Map<LevelRow, number>();
  for (const row of rows) {
    const identity = identityOf(row.row, bound.meta);
    let i = index.get(identity);
    if (i === undefined) {
      i = unique.length;
      index.set(identity, i);
      unique.push(row);
    }
    at.set(row, i);
  }
  const items = writeLevelItems(
    run.em,
    bound,
    level.selection.fields,
    unique.map((r) => r.row),
  );
  await runLevels(
    run,
    level.children,
    unique.map((r, i) => ({ item: items[i]!, links: r.links })),
  );
  const used = new Set<Item>();
  return {
    itemOf: (row) => items[at.get(row)!]!,
    place: (item) => {
      if (used.has(item)) return copyItem(item, level.children);
      used.add(item);
      return item;
    },
  };
}

/** Copy an item and what its nested selections put into it, so a copy shares no object of the answer's tree. */
function copyItem(item: Item, levels: readonly PlannedLevel[]): Item {
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
