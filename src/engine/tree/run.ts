import type { EntityManager } from '@mikro-orm/core';
import type { CursorValue } from '../../keyset/cursor-codec.ts';
import type { Item } from '../serialize.ts';
import { type CutPage, copyItem, countsOf, cutPage, firstRows, type LevelRow, levelRow, nestedPage } from './attach.ts';
import type { TreeList } from './check.ts';
import { keyAt, keyIdentity } from './link.ts';
import type { PlannedLevel } from './plan.ts';
import { fetchLevelCounts, fetchLevelRows, type StatementSite } from './statement.ts';
import { identityReader, writeRows } from './writers.ts';

/** One fetch's run of the nested levels: where statements run, how items are written, whether items get cursors. */
export interface TreeRun extends StatementSite {
  /** The EntityManager items are hydrated with when an entity's item writer declines. */
  readonly em: EntityManager;
  /**
   * Put the cursor after every nested item under NESTED_CURSORS (GraphQL edges); `'ends'`: after each nested page's
   * first and last item only (a nested `pageInfo`).
   */
  readonly cursors: boolean | 'ends';
}

/**
 * How many of a fetch's level statements may be in flight at once: sibling levels (and their children) run side by
 * side on separate pooled connections up to this many; with 1 they run one after another.
 */
export class Lanes {
  readonly #size: number;
  #busy = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  /** Whether levels may overlap at all. */
  get parallel(): boolean {
    return this.#size > 1;
  }

  /** Run `work` in a free lane, waiting for one first. */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    if (this.#busy >= this.#size) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#busy++;
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#busy--;
    }
  }
}

const ONE_LANE = new Lanes(1);

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
  lanes: Lanes = ONE_LANE,
): Promise<void> {
  if (parents.length === 0) return;
  if (!lanes.parallel || levels.length < 2) {
    for (const level of levels) await runLevel(run, level, parents, lanes);
    return;
  }
  // Side by side; every level settles before the first failure (in level order) is thrown, so none outlives the fetch.
  // Each item gets its levels' keys first, in level order, so its keys come in the order a sequential run gives.
  for (const { item } of parents) for (const level of levels) item[level.selection.key] = null;
  const settled = await Promise.allSettled(levels.map((level) => runLevel(run, level, parents, lanes)));
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
}

/** A level's parents' distinct keys, each parent's key identity, and the rows read for them. */
interface LevelRead {
  /** The distinct keys by their identity (keyIdentity), and each parent's identity (undefined: no key). */
  readonly wanted: ReadonlyMap<unknown, readonly CursorValue[]>;
  readonly identities: readonly unknown[];
  /** The rows of each parent, by its key's identity, in the order the statement returned them. */
  readonly groups: ReadonlyMap<unknown, LevelRow[]>;
  readonly counts: ReadonlyMap<unknown, number> | undefined;
  /** The rows are the driver's, written by the row writer (statement.ts LevelRows). */
  readonly driver: boolean;
}

async function runLevel(
  run: TreeRun,
  level: PlannedLevel,
  parents: readonly TreeParent[],
  lanes: Lanes,
): Promise<void> {
  const wanted = new Map<unknown, readonly CursorValue[]>();
  const identities: unknown[] = [];
  for (const parent of parents) {
    const key = keyAt(parent.links, level.from);
    const identity = key ? keyIdentity(key) : undefined;
    if (key) wanted.set(identity, key);
    identities.push(identity);
  }
  const parentKeys = [...wanted.values()];
  const fetch = async () => ({
    found: await fetchLevelRows(run, level, parentKeys),
    counted: level.list?.list.count ? await fetchLevelCounts(run, level, parentKeys) : undefined,
  });
  // One lane: the levels run one after another anyway, so none waits for it.
  const { found, counted } = await (lanes.parallel ? lanes.hold(fetch) : fetch());
  const { driver } = found;
  if (!level.list)
    return attachObjects(run, level, parents, identities, firstRows(found.rows, level, driver), lanes, driver);
  const counts = counted && countsOf(counted, level);
  const groups = new Map<unknown, LevelRow[]>();
  for (const statementRow of found.rows) {
    const row = levelRow(statementRow, level, driver);
    const group = groups.get(row.parentKey);
    if (group) group.push(row);
    else groups.set(row.parentKey, [row]);
  }
  // A list's statement leaves its rows unordered: each parent's rows in their row numbers' order.
  for (const group of groups.values()) inOrder(group);
  await attachPages(run, level, level.list, parents, { wanted, identities, groups, counts, driver }, lanes);
}

/** Put a parent's rows in their row numbers' order (unique within a parent), unless they came so. */
function inOrder(rows: LevelRow[]): void {
  for (let i = 1; i < rows.length; i++)
    if (rows[i - 1]!.rank > rows[i]!.rank) {
      rows.sort((a, b) => a.rank - b.rank);
      return;
    }
}

/**
 * To-one: each parent's object (`chosen`: the first row of its key, by primary key), or null when missing or
 * filtered out. `identities`: each parent's key identity, undefined for a parent without a key.
 */
async function attachObjects(
  run: TreeRun,
  level: PlannedLevel,
  parents: readonly TreeParent[],
  identities: readonly unknown[],
  chosen: ReadonlyMap<unknown, LevelRow>,
  lanes: Lanes,
  driver: boolean,
): Promise<void> {
  const take = await writeAndDescend(run, level, [...chosen.values()], lanes, driver);
  const { key } = level.selection;
  for (let i = 0; i < parents.length; i++) {
    const identity = identities[i];
    const row = identity === undefined ? undefined : chosen.get(identity);
    parents[i]!.item[key] = row ? take(row) : null;
  }
}

/** To-many: each parent's page, cut from its rows, with its count when asked. */
async function attachPages(
  run: TreeRun,
  level: PlannedLevel,
  list: TreeList,
  parents: readonly TreeParent[],
  read: LevelRead,
  lanes: Lanes,
): Promise<void> {
  const cuts = new Map<unknown, CutPage>();
  const rows: LevelRow[] = [];
  for (const [parent, values] of read.wanted) {
    const cut = cutPage(list, level.keys, values, read.groups.get(parent) ?? NO_ROWS, run.cursors, read.driver);
    cuts.set(parent, cut);
    for (const row of cut.rows) rows.push(row);
  }
  const take = await writeAndDescend(run, level, rows, lanes, read.driver);
  const { key } = level.selection;
  for (let i = 0; i < parents.length; i++) {
    const parent = read.identities[i];
    const cut = parent === undefined ? undefined : cuts.get(parent);
    const items = cut ? cut.rows.map(take) : [];
    const count = read.counts && (parent === undefined ? 0 : (read.counts.get(parent) ?? 0));
    parents[i]!.item[key] = nestedPage(list, cut, items, count, run.cursors);
  }
}

/** A parent without rows: one shared empty list, which cutPage only reads. */
const NO_ROWS: LevelRow[] = [];

/**
 * Write a level's rows as items, each target row once (an m:n target or a shared to-one target appears under several
 * parents), then run the level's children with those items as their parents. The function returned hands out a row's
 * written item the first time and a copy after (copyItem), so no object appears twice in an answer.
 */
async function writeAndDescend(
  run: TreeRun,
  level: PlannedLevel,
  rows: readonly LevelRow[],
  lanes: Lanes,
  driver: boolean,
): Promise<(row: LevelRow) => Item> {
  const { bound } = level.target;
  const identityOf = identityReader(bound.meta, driver);
  const index = new Map<unknown, number>();
  const unique: LevelRow[] = [];
  for (const row of rows) {
    const identity = identityOf(row.row);
    let i = index.get(identity);
    if (i === undefined) {
      i = unique.length;
      index.set(identity, i);
      unique.push(row);
    }
    row.slot = i;
  }
  const items = writeRows(
    run.em,
    bound,
    level.selection.fields,
    unique.map((r) => r.row),
    driver,
  );
  if (level.children.length > 0)
    await runLevels(
      run,
      level.children,
      unique.map((r, i) => ({ item: items[i]!, links: r.links })),
      lanes,
    );
  const taken = new Uint8Array(items.length);
  return (row) => {
    const item = items[row.slot]!;
    if (taken[row.slot]) return copyItem(item, level.children);
    taken[row.slot] = 1;
    return item;
  };
}
