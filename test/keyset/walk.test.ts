/**
 * Full cursor walks through list(): every page size from 1 to 7, over duplicate and NULL sort values in every
 * field kind, descending keys, bigints around 2^53, decimals written two ways, timestamps that differ only in
 * microseconds (PostgreSQL, MariaDB) and a composite primary key. The concatenated pages must equal the whole result in the
 * order the tests compute on their own from the seed rows: no gap, no duplicate. Also: a limit that changes between
 * pages, the cursor of an offset page, and a cursor carried from one tenant's scope to another's.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type ScopedEngine } from '../../src/engine/index.ts';
import type { Page } from '../../src/engine/page/list-page.ts';
import {
  CELLS,
  type Cell,
  Cell as CellEntity,
  cellPolicy,
  ENTRIES,
  Entry,
  type EntrySeed,
  entryPolicy,
  seedWalk,
  TAGS,
  TEAMS,
  toMillis,
  walkEntities,
} from '../fixtures/walk.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';
import { type Getters, orderBy, type Walk, walk, walkBack } from '../helpers/walk.ts';

const PAGE_SIZES = [1, 2, 3, 4, 5, 6, 7];

/** How the database orders each Entry field, per dialect: SQLite keeps datetimes as epoch milliseconds. */
function entryGetters(dialect: Dialect): Getters<EntrySeed> {
  return {
    id: (e) => e.id,
    score: (e) => e.score,
    title: (e) => e.label,
    big: (e) => BigInt(e.big),
    amount: (e) => (e.amount === null ? null : Number(e.amount)),
    ratio: (e) => e.ratio,
    flag: (e) => (e.flag === null ? null : Number(e.flag)),
    day: (e) => e.day,
    at: (e) => (dialect === 'sqlite' ? toMillis(e.at).getTime() : e.at),
    'group/name': (e) => TEAMS.find((t) => t.id === e.team)?.name ?? null,
  };
}

const CELL_GETTERS: Getters<Cell> = {
  row: (c) => c.row,
  col: (c) => c.col,
  weight: (c) => c.weight ?? null,
};

interface WalkRow {
  readonly name: string;
  readonly sort: string;
  readonly filter?: string;
  /** The seed rows the filter keeps (soft-deleted rows are always out). */
  readonly keep?: (e: EntrySeed) => boolean;
}

const ENTRY_WALKS: readonly WalkRow[] = [
  { name: 'primary key only', sort: '' },
  { name: 'primary key descending', sort: '-id' },
  { name: 'nullable integer with duplicates', sort: 'score' },
  { name: 'nullable integer descending', sort: '-score' },
  { name: 'descending, then ascending string', sort: '-score,title' },
  { name: 'string, then descending nullable integer', sort: 'title,-score' },
  { name: 'timestamps apart by microseconds', sort: 'at' },
  { name: 'timestamps descending', sort: '-at' },
  { name: 'timestamps, then string descending', sort: 'at,-title' },
  { name: 'bigint around 2^53 and at the 64-bit bounds', sort: 'big' },
  { name: 'bigint descending, primary key descending', sort: '-big,-id' },
  { name: 'decimal written 10.50 and 10.5', sort: '-amount' },
  { name: 'double with tiny values', sort: 'ratio' },
  { name: 'boolean, then descending date', sort: 'flag,-day' },
  { name: 'date, integer, descending string', sort: 'day,score,-title' },
  { name: 'a to-one relation field (LEFT JOIN, NULL when missing)', sort: 'group/name' },
  { name: 'a relation field descending, then a nullable integer', sort: '-group/name,-score' },
  { name: 'a relation field, then microsecond timestamps', sort: 'group/name,at' },
  {
    name: 'a to-many filter stays on every page',
    sort: 'at',
    filter: "tags/any(t: t/name eq 'red') or score eq 0",
    keep: (e) => TAGS.some((t) => t.entry === e.id && t.name === 'red') || e.score === 0,
  },
  {
    name: 'a filter stays on every page',
    sort: '-score',
    filter: "title ne 'b'",
    keep: (e) => e.label !== 'b',
  },
];

const CELL_WALKS: readonly string[] = ['', '-weight', 'weight,-col', '-row,weight'];

/**
 * Walk back from the last page of a forward walk at the same page size: the backward pages are the forward pages
 * before it, newest first, with the very same items and cursors (a page's cursors encode its own first and last rows).
 */
async function assertWalksBack(
  scoped: ScopedEngine,
  query: Record<string, string>,
  forward: Walk,
  size: number,
): Promise<void> {
  const { pages } = forward;
  assert.is(pages[0]!.page.prevCursor, undefined, 'the first page has no prevCursor');
  pages.slice(1).forEach((p, i) => {
    assert.type(p.page.prevCursor, 'string', `forward page ${i + 1} has a prevCursor`);
  });
  if (pages.length < 2) return;
  const back = await walkBack(scoped, query, pages.at(-1)!.page.prevCursor!, [size]);
  const facts = (p: Page) => ({ items: p.items, nextCursor: p.page.nextCursor, prevCursor: p.page.prevCursor });
  assert.equal(back.pages.map(facts), pages.slice(0, -1).reverse().map(facts), `backward at page size ${size}`);
}

function entries(em: EntityManager) {
  return (em as any).createQueryBuilder(Entry, 'e');
}

eachDialect(
  'engine walks: every page size, exact and complete',
  { entities: walkEntities, seed: seedWalk },
  (test, dialect) => {
    const live = ENTRIES.filter((e) => !e.deleted);

    for (const row of ENTRY_WALKS) {
      test(`entry: ${row.name} (sort=${row.sort || '∅'})`, async ({ db, em }) => {
        const engine = createEngine(db.orm, { policy: entryPolicy, maxLimit: 50 });
        const scoped = engine.from(entries(em));
        const expected = orderBy(live.filter(row.keep ?? (() => true)), row.sort, entryGetters(dialect), ['id']).map(
          (e) => e.id,
        );
        const query = { ...(row.sort ? { sort: row.sort } : {}), ...(row.filter ? { filter: row.filter } : {}) };
        for (const size of PAGE_SIZES) {
          const forward = await walk(scoped, query, [size]);
          const { items, pages } = forward;
          assert.equal(
            items.map((i) => i.id),
            expected,
            `page size ${size}`,
          );
          assert.is(pages.length, Math.max(1, Math.ceil(expected.length / size)), `pages at size ${size}`);
          await assertWalksBack(scoped, query, forward, size);
        }
      });
    }

    for (const sort of CELL_WALKS) {
      test(`composite key: sort=${sort || '∅'}`, async ({ db, em }) => {
        const engine = createEngine(db.orm, { policy: cellPolicy });
        const scoped = engine.from((em as any).createQueryBuilder(CellEntity, 'c'));
        const expected = orderBy(CELLS, sort, CELL_GETTERS, ['row', 'col']).map((c) => `${c.row}/${c.col}`);
        for (const size of PAGE_SIZES) {
          const forward = await walk(scoped, sort ? { sort } : {}, [size]);
          assert.equal(
            forward.items.map((i) => `${i.row}/${i.col}`),
            expected,
            `page size ${size}`,
          );
          await assertWalksBack(scoped, sort ? { sort } : {}, forward, size);
        }
      });
    }

    test('the limit may change between pages', async ({ db, em }) => {
      const scoped = createEngine(db.orm, { policy: entryPolicy }).from(entries(em));
      const expected = orderBy(live, '-score,title', entryGetters(dialect), ['id']).map((e) => e.id);
      for (const limits of [
        [3, 1, 7, 2],
        [7, 1],
        [1, 6, 2, 5],
      ]) {
        const { items } = await walk(scoped, { sort: '-score,title' }, limits);
        assert.equal(
          items.map((i) => i.id),
          expected,
          `limits ${limits.join(',')}`,
        );
      }
    });

    test('walking back with other page sizes than forward covers the rows before, exactly once', async ({ db, em }) => {
      const scoped = createEngine(db.orm, { policy: entryPolicy }).from(entries(em));
      for (const sort of ['-score,title', 'group/name,at', 'flag,-day']) {
        const expected = orderBy(live, sort, entryGetters(dialect), ['id']).map((e) => e.id);
        for (const [forwardLimits, backLimits] of [
          [
            [3, 1, 7, 2],
            [2, 5, 1],
          ],
          [[7, 1], [4]],
          [[1, 6, 2, 5], [20]],
        ] as const) {
          const forward = await walk(scoped, { sort }, forwardLimits);
          const last = forward.pages.at(-1)!;
          const start = expected.indexOf(last.items[0]!.id as number);
          const back = await walkBack(scoped, { sort }, last.page.prevCursor!, backLimits);
          const label = `sort=${sort}, forward ${forwardLimits.join(',')}, back ${backLimits.join(',')}`;
          assert.equal(
            back.items.map((i) => i.id),
            expected.slice(0, start),
            label,
          );
          // Each backward page is the `limit` rows right before the one it came from, in the requested order.
          let end = start;
          back.pages.forEach((p, i) => {
            const limit = backLimits[i % backLimits.length]!;
            assert.equal(
              p.items.map((x) => x.id),
              expected.slice(Math.max(0, end - limit), end),
              `${label}: page ${i}`,
            );
            end = Math.max(0, end - limit);
          });
          // A backward page's nextCursor continues forward right after its last item.
          const middle = back.pages[0]!;
          const onward = await walk(scoped, { sort, cursor: middle.page.nextCursor! }, [3]);
          assert.equal(
            onward.items.map((i) => i.id),
            expected.slice(start),
            `${label}: onward`,
          );
        }
      }
    });

    test('a base scope joining a to-many relation (select distinct) walks back too', async ({ db, em }) => {
      const tagged = entries(em)
        .leftJoin('e.tags', 't')
        .where({ 't.name': { $in: ['red', 'blue'] } });
      const scoped = createEngine(db.orm, { policy: entryPolicy }).from(tagged);
      const ids = new Set(TAGS.filter((t) => t.name === 'red' || t.name === 'blue').map((t) => t.entry));
      for (const sort of ['-score', 'score', 'title,-at', 'group/name']) {
        const expected = orderBy(
          live.filter((e) => ids.has(e.id)),
          sort,
          entryGetters(dialect),
          ['id'],
        ).map((e) => e.id);
        for (const size of [1, 2]) {
          const forward = await walk(scoped, { sort }, [size]);
          assert.equal(
            forward.items.map((i) => i.id),
            expected,
            `sort=${sort}, size ${size}`,
          );
          await assertWalksBack(scoped, { sort }, forward, size);
        }
      }
    });

    test('an offset page after the first carries a prevCursor; the first page none', async ({ db, em }) => {
      const scoped = createEngine(db.orm, { policy: entryPolicy }).from(entries(em));
      const expected = orderBy(live, 'at', entryGetters(dialect), ['id']).map((e) => e.id);
      assert.is((await scoped.list({ sort: 'at', limit: '3' })).page.prevCursor, undefined);
      assert.is((await scoped.list({ sort: 'at', limit: '3', offset: '0' })).page.prevCursor, undefined);
      const page = await scoped.list({ sort: 'at', offset: '4', limit: '3' });
      const back = await walkBack(scoped, { sort: 'at' }, page.page.prevCursor!, [3]);
      assert.equal(
        back.pages.map((p) => p.items.map((i) => i.id)),
        [expected.slice(1, 4), expected.slice(0, 1)],
      );
      assert.is(back.pages[1]!.page.hasMore, false);
      // Past the end: an empty offset page has no row to page back from.
      const empty = await scoped.list({ sort: 'at', offset: '40', limit: '3' });
      assert.is(empty.items.length, 0);
      assert.is(empty.page.prevCursor, undefined);
    });

    test('an offset page carries a cursor that continues after its last item', async ({ db, em }) => {
      const scoped = createEngine(db.orm, { policy: entryPolicy }).from(entries(em));
      const expected = orderBy(live, 'at', entryGetters(dialect), ['id']).map((e) => e.id);
      const first = await scoped.list({ sort: 'at', offset: '4', limit: '3' });
      assert.equal(
        first.items.map((i) => i.id),
        expected.slice(4, 7),
      );
      assert.is(first.page.offset, 4);
      assert.ok(first.page.hasMore);
      const rest = await walk(scoped, { sort: 'at', cursor: first.page.nextCursor! }, [5]);
      assert.equal(
        rest.items.map((i) => i.id),
        expected.slice(7),
      );
    });

    test("a cursor minted in tenant 1's scope only ever yields tenant 2's rows in theirs", async ({ db, em }) => {
      const engine = createEngine(db.orm, { policy: entryPolicy });
      const tenant1 = engine.from(entries(em).where({ tenant: 1 }));
      const tenant2 = engine.from(entries(em).where({ tenant: 2 }));
      const first = await tenant1.list({ sort: 'title', limit: '4' });
      const cursor = first.page.nextCursor!;
      const tenant2Order = orderBy(
        live.filter((e) => e.tenant === 2),
        'title',
        entryGetters(dialect),
        ['id'],
      );
      // The cursor is only a position: tenant 2's rows after that position in the same order, nothing of tenant 1.
      const last = live.find((e) => e.id === first.items.at(-1)!.id)!;
      const after = orderBy([...tenant2Order, last], 'title', entryGetters(dialect), ['id']);
      const expected = after.slice(after.indexOf(last) + 1).map((e) => e.id);
      const { items } = await walk(tenant2, { sort: 'title', cursor }, [2]);
      assert.equal(
        items.map((i) => i.id),
        expected,
      );
      assert.ok(expected.length > 0);
    });
  },
);
