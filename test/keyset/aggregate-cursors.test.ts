/**
 * Aggregates as cursor keys, on every dialect: forward and backward walks over aggregate sorts (ties broken by the
 * primary key, NULL averages of books without reviews, `:nullsfirst`) equal an order computed here from the seed; a
 * walk while reviews are added and deleted between pages gives, on each page, the new result after the cursor's
 * position; cursors sign the aggregate (another aggregate's cursor is refused).
 */
import { type Collection, type EntityManager, EntitySchema } from '@mikro-orm/core';
import { graphql } from 'graphql';
import * as assert from 'uvu/assert';
import { client } from '../../src/client/index.ts';
import { createEngine, type ScopedEngine } from '../../src/engine/index.ts';
import type { Page } from '../../src/engine/page/list-page.ts';
import { isListError } from '../../src/errors.ts';
import { graphqlSchema } from '../../src/graphql/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { eachDialect } from '../helpers/db.ts';
import { walk, walkBack } from '../helpers/walk.ts';

class Novel {
  id!: number;
  title!: string;
  notes?: Collection<Note>;
}

class Note {
  id!: number;
  novel!: Novel;
  stars?: number | null;
  deletedAt?: Date | null;
}

const NovelSchema = new EntitySchema<Novel>({
  class: Novel,
  tableName: 'ak_novel',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    title: { type: 'string' },
    notes: { kind: '1:m', entity: () => Note, mappedBy: 'novel' },
  },
});

const NoteSchema = new EntitySchema<Note>({
  class: Note,
  tableName: 'ak_note',
  filters: { softDelete: { name: 'softDelete', cond: { deletedAt: null }, default: true } },
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    novel: { kind: 'm:1', entity: () => Novel },
    stars: { type: 'integer', nullable: true },
    deletedAt: { type: 'datetime', nullable: true },
  },
});

const notes = schema(Note).expose('id', sortable()).expose('stars', filterable(), sortable());
const policy = schema(Novel)
  .expose('id', sortable(), filterable())
  .expose('title', sortable())
  .relation('notes', notes, { aggregates: { count: true, sum: ['stars'], avg: ['stars'], max: ['stars'] } });

// Stars of each novel's live notes (a deleted note of 3 stars on novel 2; NULL stars on novel 9). Ties on every
// aggregate; novels 5 and 10 have no notes: count 0, the others NULL.
const NOTES: Record<number, readonly (number | null)[]> = {
  1: [5, 3],
  2: [4, 4],
  3: [1],
  4: [2, 5, 5],
  5: [],
  6: [4],
  7: [3, 5],
  8: [1, 2, 3],
  9: [null, 4],
  10: [],
  11: [5, 3, 4, 4],
  12: [2, 2],
};

interface Stats {
  readonly count: number;
  /** Sum and count of non-NULL stars: avg compared exactly as sum/count. */
  readonly sum: number | null;
  readonly n: number;
  readonly max: number | null;
  readonly gte4: number;
}

function statsOf(stars: readonly (number | null)[]): Stats {
  const values = stars.filter((s): s is number => s !== null);
  return {
    count: stars.length,
    sum: values.length ? values.reduce((a, b) => a + b, 0) : null,
    n: values.length,
    max: values.length ? Math.max(...values) : null,
    gte4: values.filter((s) => s >= 4).length,
  };
}

type Key = { readonly value: number | null; readonly n?: number };
const KEY: Record<string, (s: Stats) => Key> = {
  'notes/count()': (s) => ({ value: s.count }),
  'notes/count(r: r/stars gte 4)': (s) => ({ value: s.gte4 }),
  'notes/sum(stars)': (s) => ({ value: s.sum }),
  'notes/avg(stars)': (s) => ({ value: s.sum, n: s.n }),
  'notes/max(stars)': (s) => ({ value: s.max }),
};

/** -1, 0, 1 as a < b, with averages compared as fractions (exact). */
function compareKeys(a: Key, b: Key): number {
  const x = a.n === undefined ? (a.value as number) : (a.value as number) * (b.n ?? 1);
  const y = b.n === undefined ? (b.value as number) : (b.value as number) * (a.n ?? 1);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The order a sort asks for over `data`: terms in order, then id ascending; NULLs last unless `:nullsfirst`. */
function expectedIds(sort: string, data: Record<number, readonly (number | null)[]>): number[] {
  const terms = sort.split(/,(?![^(]*\))/).map((t) => {
    const desc = t.startsWith('-');
    const nullsFirst = t.endsWith(':nullsfirst');
    const name = t.replace(/^-/, '').replace(/:nullsfirst$/, '');
    return { name, dir: desc ? -1 : 1, nullsFirst };
  });
  const rows = Object.entries(data).map(([id, stars]) => ({ id: Number(id), stats: statsOf(stars) }));
  return rows
    .sort((a, b) => {
      for (const t of terms) {
        if (t.name === 'id') return (a.id - b.id) * t.dir;
        const x = KEY[t.name]!(a.stats);
        const y = KEY[t.name]!(b.stats);
        if (x.value === null && y.value === null) continue;
        if (x.value === null) return t.nullsFirst ? -1 : 1;
        if (y.value === null) return t.nullsFirst ? 1 : -1;
        const c = compareKeys(x, y);
        if (c !== 0) return c * t.dir;
      }
      return a.id - b.id;
    })
    .map((r) => r.id);
}

let nextNote = 1000;

async function seed(em: EntityManager): Promise<void> {
  let id = 1;
  for (const novel of Object.keys(NOTES).map(Number)) em.create(Novel, { id: novel, title: `Novel ${novel}` });
  for (const [novel, stars] of Object.entries(NOTES))
    for (const s of stars) em.create(Note, { id: id++, novel: em.getReference(Novel, Number(novel)), stars: s });
  em.create(Note, {
    id: id++,
    novel: em.getReference(Novel, 2),
    stars: 3,
    deletedAt: new Date('2024-01-01T00:00:00Z'),
  });
  await em.flush();
}

const WALKS = [
  '-notes/count()',
  'notes/count()',
  '-notes/avg(stars)',
  'notes/avg(stars):nullsfirst',
  '-notes/sum(stars):nullsfirst,-id',
  'notes/max(stars),-id',
  '-notes/count(r: r/stars gte 4),notes/avg(stars)',
];

// Two aggregate keys after a cursor need 6 of the budget: more than SQLite's share of one statement at the defaults.
const scopedOf = (db: { orm: any }, em: EntityManager, maxSubqueries = 64): ScopedEngine =>
  createEngine(db.orm, { policy, maxLimit: 50, limits: { maxSubqueries } }).from(
    (em as any).createQueryBuilder(Novel, 'n'),
  );

eachDialect('aggregates as cursor keys', { entities: [NovelSchema, NoteSchema], seed }, (test) => {
  for (const sort of WALKS)
    test(`walks forward and back: sort=${sort}`, async ({ db, em }) => {
      const scoped = scopedOf(db, em);
      const expected = expectedIds(sort, NOTES);
      for (const size of [1, 2, 3, 5, 12]) {
        const forward = await walk(scoped, { sort }, [size]);
        assert.equal(
          forward.items.map((i) => i['id']),
          expected,
          `forward at page size ${size}`,
        );
        const last: Page = forward.pages.at(-1)!;
        if (!last.page.prevCursor) continue;
        const back = await walkBack(scoped, { sort }, last.page.prevCursor, [size]);
        const before = expected.slice(0, expected.indexOf(last.items[0]!['id'] as number));
        assert.equal(
          back.items.map((i) => i['id']),
          before,
          `backward at page size ${size}`,
        );
      }
    });

  test('related rows change between pages: each page is the new result after the position', async ({ db, em }) => {
    const scoped = scopedOf(db, em);
    const sort = '-notes/count()';
    const data: Record<number, (number | null)[]> = Object.fromEntries(
      Object.entries(NOTES).map(([k, v]) => [k, [...v]]),
    );
    const added: number[] = [];
    try {
      const first = await scoped.list({ sort, limit: '4' });
      assert.equal(
        first.items.map((i) => i['id']),
        expectedIds(sort, data).slice(0, 4),
      );
      const last = first.items.at(-1)!['id'] as number;
      const position = { count: statsOf(data[last]!).count, id: last };
      // Novel 12 (2 notes, after the position) gains 2 and moves ahead of it; novel 3 (1 note) gains 1; novel 6 loses
      // its only note (the deletion is soft: the filter hides it).
      const fork = em.fork();
      for (const [novel, stars] of [
        [12, 5],
        [12, 5],
        [3, 2],
      ] as const) {
        const id = nextNote++;
        added.push(id);
        fork.create(Note, { id, novel: fork.getReference(Novel, novel), stars });
        data[novel]!.push(stars);
      }
      await fork.flush();
      const six = await fork.findOneOrFail(Note, { novel: 6 });
      six.deletedAt = new Date('2024-02-01T00:00:00Z');
      await fork.flush();
      data[6] = [];
      const next = await scoped.list({ sort, limit: '4', cursor: first.page.nextCursor! });
      // The new order, from just after the old position: (count, id) after (position.count, position.id) descending.
      const after = expectedIds(sort, data).filter((id) => {
        const count = statsOf(data[id]!).count;
        return count < position.count || (count === position.count && id > position.id);
      });
      assert.equal(
        next.items.map((i) => i['id']),
        after.slice(0, 4),
      );
      assert.ok(!next.items.some((i) => i['id'] === 12), 'a row that moved before the position is not repeated');
      // Backward from the second page: the new result before its first row.
      const back = await scoped.list({ sort, limit: '50', cursor: next.page.prevCursor! });
      const firstOfNext = next.items[0]!['id'] as number;
      const order = expectedIds(sort, data);
      assert.equal(
        back.items.map((i) => i['id']),
        order.slice(0, order.indexOf(firstOfNext)),
      );
    } finally {
      const fork = em.fork();
      await fork.nativeDelete(Note, { id: { $in: added } }, { filters: false });
      await fork.nativeUpdate(Note, { novel: 6 }, { deletedAt: null }, { filters: false });
    }
  });

  test('the budget charges an aggregate key alike on every page, over the default budget, and names it', async ({
    db,
    em,
  }) => {
    const sort = '-notes/count(r: r/stars gte 4),id';
    // The default limits (maxSubqueries 8): one aggregate key weighs 9, refused before any statement, first page or not.
    const refused = async (query: Record<string, string>) => {
      try {
        await scopedOf(db, em, 8).list(query);
        assert.unreachable('accepted');
      } catch (error) {
        assert.ok(isListError(error) && error.code === 'limit_exceeded', String(error));
        assert.is(error.parameter, 'sort');
        assert.match(
          error.message,
          'notes/count(r: r/stars gte 4) evaluated over every row of the scope, charged 6 times',
        );
      }
    };
    await refused({ sort, limit: '2' });
    const first = await scopedOf(db, em).list({ sort, limit: '2' });
    await refused({ sort, limit: '2', cursor: first.page.nextCursor! });
    // With a budget that admits it, the page after the cursor is accepted like the first.
    const second = await scopedOf(db, em).list({ sort, limit: '2', cursor: first.page.nextCursor! });
    assert.is(second.items.length, 2);
  });

  test('GraphQL takes aggregates in its sort and filter arguments, forward and backward', async ({ db }) => {
    const em = db.orm.em.fork();
    const engine = createEngine(db.orm, { policy, maxLimit: 50, limits: { maxSubqueries: 64 } });
    const built = graphqlSchema({
      endpoints: [
        {
          field: 'novels',
          type: 'Novel',
          engine,
          scope: () => ({ base: (em.fork() as any).createQueryBuilder(Novel, 'n') }),
        },
      ],
    });
    const sort = '-notes/avg(stars),id';
    const run = async (args: string) => {
      const result = await graphql({
        schema: built,
        source: `{ novels(sort: ${JSON.stringify(sort)}, filter: "notes/count() gt 0"${args}) { edges { node { id } } pageInfo { startCursor endCursor } } }`,
      });
      assert.is(result.errors, undefined, JSON.stringify(result.errors));
      return (result.data as any).novels;
    };
    const first = await run(', first: 4');
    const second = await run(`, first: 4, after: ${JSON.stringify(first.pageInfo.endCursor)}`);
    const back = await run(`, last: 4, before: ${JSON.stringify(second.pageInfo.startCursor)}`);
    const ids = (page: any) => page.edges.map((e: any) => Number(e.node.id));
    const withNotes = expectedIds(sort, NOTES).filter((id) => NOTES[id]!.length > 0);
    assert.equal([...ids(first), ...ids(second)], withNotes.slice(0, 8));
    assert.equal(ids(back), ids(first));
  });

  test('the typed client writes aggregate sort keys; the engine pages by them', async ({ db, em }) => {
    const request = client<typeof policy>().sort('-notes/count(r: r/stars gte 4)', 'notes/avg(stars):nullsfirst');
    const sort = new URLSearchParams(request.toString()).get('sort')!;
    assert.is(sort, '-notes/count(r: r/stars gte 4),notes/avg(stars):nullsfirst');
    assert.throws(() => client<typeof policy>().sort('notes/count():nullsfrst' as never), /unknown sort modifier/);
    const page = await scopedOf(db, em).list({ sort, limit: '50' });
    assert.equal(
      page.items.map((i) => i['id']),
      expectedIds(sort, NOTES),
    );
  });

  test('a cursor signs the aggregate: another aggregate, field or inner filter refuses it', async ({ db, em }) => {
    const scoped = scopedOf(db, em);
    const cursorOf = async (sort: string) => (await scoped.list({ sort, limit: '2' })).page.nextCursor!;
    const pairs: [string, string][] = [
      ['-notes/count()', '-notes/sum(stars)'],
      ['-notes/count()', '-notes/count(r: r/stars gte 4)'],
      ['-notes/count(r: r/stars gte 4)', '-notes/count(r: r/stars gte 5)'],
      ['notes/avg(stars)', 'notes/max(stars)'],
      ['-notes/count()', 'notes/count()'],
      ['-notes/count()', '-id'],
    ];
    for (const [from, to] of pairs) {
      const cursor = await cursorOf(from);
      try {
        await scoped.list({ sort: to, cursor });
        assert.unreachable(`${from} → ${to}`);
      } catch (error) {
        assert.ok(isListError(error) && error.code === 'invalid_cursor', `${from} → ${to}: ${String(error)}`);
      }
    }
    // The same sort written with other spacing is the same key.
    const cursor = await cursorOf('-notes/count(r: r/stars gte 4)');
    const page = await scoped.list({ sort: '-notes/count(r:  r/stars  gte 4)', cursor });
    assert.ok(page.items.length > 0);
  });
});
