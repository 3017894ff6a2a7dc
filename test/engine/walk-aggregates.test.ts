/**
 * items() and pages() over aggregate sorts, on every dialect: the whole walk equals an order computed here from the
 * seed (count, average as an exact fraction, NULL averages of novels without notes, `:nullsfirst`, the primary key
 * as tie-breaker); a walk resumed from a saved cursor gives the rest of it; notes added and removed between pages of
 * one pages() walk give, on each later page, the new result after the cursor's position.
 */
import { type Collection, type EntityManager, EntitySchema } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type ScopedEngine } from '../../src/engine/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { eachDialect } from '../helpers/db.ts';

class Novel {
  id!: number;
  title!: string;
  notes?: Collection<Note>;
}

class Note {
  id!: number;
  novel!: Novel;
  stars?: number | null;
}

const NovelSchema = new EntitySchema<Novel>({
  class: Novel,
  tableName: 'wa_novel',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    title: { type: 'string' },
    notes: { kind: '1:m', entity: () => Note, mappedBy: 'novel' },
  },
});

const NoteSchema = new EntitySchema<Note>({
  class: Note,
  tableName: 'wa_note',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    novel: { kind: 'm:1', entity: () => Novel },
    stars: { type: 'integer', nullable: true },
  },
});

const policy = schema(Novel)
  .expose('id', sortable(), filterable())
  .expose('title', sortable())
  .relation('notes', schema(Note).expose('stars', filterable(), sortable()), {
    aggregates: { count: true, sum: ['stars'], avg: ['stars'] },
  });

/**
 * Stars of each novel's notes: 0–5 notes of 1–5 stars (sometimes NULL), from a fixed generator, so counts and
 * averages tie often. Two distinct averages of at most 5 values of 1–5 differ by more than 1/30, far above the 4
 * extra digits MariaDB keeps, so no rounding can tie them.
 */
function seedData(): Record<number, (number | null)[]> {
  let state = 7;
  const next = (n: number): number => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * n);
  };
  const out: Record<number, (number | null)[]> = {};
  for (let id = 1; id <= 40; id++)
    out[id] = Array.from({ length: next(6) }, () => (next(8) === 0 ? null : 1 + next(5)));
  return out;
}
const NOTES = seedData();

type Key = { readonly num: number | null; readonly den: number };
const KEY: Record<string, (stars: readonly (number | null)[]) => Key> = {
  'notes/count()': (s) => ({ num: s.length, den: 1 }),
  'notes/sum(stars)': (s) => {
    const v = s.filter((x): x is number => x !== null);
    return { num: v.length ? v.reduce((a, b) => a + b, 0) : null, den: 1 };
  },
  'notes/avg(stars)': (s) => {
    const v = s.filter((x): x is number => x !== null);
    return { num: v.length ? v.reduce((a, b) => a + b, 0) : null, den: Math.max(v.length, 1) };
  },
};

/** The ids in the order `sort` asks for: keys in turn (NULLs last unless `:nullsfirst`), then id ascending. */
function expectedIds(sort: string, data: Record<number, readonly (number | null)[]>): number[] {
  const terms = sort.split(/,(?![^(]*\))/).map((t) => ({
    name: t.replace(/^-/, '').replace(/:nullsfirst$/, ''),
    dir: t.startsWith('-') ? -1 : 1,
    nullsFirst: t.endsWith(':nullsfirst'),
  }));
  const ids = Object.keys(data).map(Number);
  return ids.sort((a, b) => {
    for (const t of terms) {
      if (t.name === 'id') return (a - b) * t.dir;
      const x = KEY[t.name]!(data[a]!);
      const y = KEY[t.name]!(data[b]!);
      if (x.num === null && y.num === null) continue;
      if (x.num === null) return t.nullsFirst ? -1 : 1;
      if (y.num === null) return t.nullsFirst ? 1 : -1;
      const c = x.num * y.den - y.num * x.den;
      if (c !== 0) return Math.sign(c) * t.dir;
    }
    return a - b;
  });
}

let nextNote = 1;

async function seed(em: EntityManager): Promise<void> {
  for (const [novel, stars] of Object.entries(NOTES)) {
    em.create(Novel, { id: Number(novel), title: `Novel ${novel}` });
    for (const s of stars) em.create(Note, { id: nextNote++, novel: em.getReference(Novel, Number(novel)), stars: s });
  }
  await em.flush();
}

const scopedOf = (db: { orm: any }, em: EntityManager): ScopedEngine =>
  createEngine(db.orm, { policy, maxLimit: 50, limits: { maxSubqueries: 64 } }).from(
    (em as any).createQueryBuilder(Novel, 'n'),
  );

const SORTS = [
  '-notes/count(),id',
  'notes/count(),-id',
  'notes/avg(stars):nullsfirst,id',
  '-notes/avg(stars),notes/count(),id',
  '-notes/sum(stars):nullsfirst,-notes/count()',
];

const ids = (items: readonly Record<string, unknown>[]): number[] => items.map((i) => i['id'] as number);

eachDialect('walks over aggregate sorts', { entities: [NovelSchema, NoteSchema], seed }, (test) => {
  for (const sort of SORTS)
    test(`items() and pages() walk the whole order: sort=${sort}`, async ({ db, em }) => {
      const scoped = scopedOf(db, em);
      const expected = expectedIds(sort, NOTES);
      for (const pageSize of [1, 3, 7, 40]) {
        const items: Record<string, unknown>[] = [];
        for await (const item of scoped.items({ sort }, undefined, { pageSize })) items.push(item);
        assert.equal(ids(items), expected, `items() at page size ${pageSize}`);
      }
      const pages = [];
      for await (const page of scoped.pages({ sort, limit: '6' })) pages.push(page);
      assert.equal(
        pages.flatMap((p) => ids(p.items)),
        expected,
        'pages()',
      );
      assert.ok(
        pages.slice(0, -1).every((p) => p.items.length === 6),
        'every page but the last is full',
      );
      // Resume from the cursor saved after the third page: the rest of the walk, nothing repeated or skipped.
      const saved = pages[2]!.page.nextCursor!;
      const rest = [];
      for await (const page of scoped.pages({ sort, limit: '4', cursor: saved })) rest.push(...ids(page.items));
      assert.equal(rest, expected.slice(18), 'resumed from a saved cursor');
    });

  test('notes change between pages: each later page is the new result after the position', async ({ db, em }) => {
    const scoped = scopedOf(db, em);
    const sort = '-notes/count(),id';
    const data: Record<number, (number | null)[]> = Object.fromEntries(
      Object.entries(NOTES).map(([k, v]) => [k, [...v]]),
    );
    const added: number[] = [];
    const removed: { id: number; novel: number; stars: number | null }[] = [];
    try {
      const walker = scoped.pages({ sort, limit: '5' });
      const first = (await walker.next()).value!;
      const expected = expectedIds(sort, data);
      assert.equal(ids(first.items), expected.slice(0, 5));
      const last = ids(first.items).at(-1)!;
      const position = { count: data[last]!.length, id: last };
      // A novel after the position gains notes enough to move before it, one just after gains one, and the first
      // novel after the position with notes loses one.
      const order = expected.slice(5);
      const [jumper, gainer] = [order.at(-1)!, order[3]!];
      const loser = order.find((id) => data[id]!.length > 0 && id !== jumper && id !== gainer)!;
      const fork = em.fork();
      for (const novel of [jumper, jumper, jumper, jumper, jumper, jumper, gainer]) {
        const id = 10_000 + added.length;
        added.push(id);
        fork.create(Note, { id, novel: fork.getReference(Novel, novel), stars: 3 });
        data[novel]!.push(3);
      }
      await fork.flush();
      const gone = await fork.findOneOrFail(Note, { novel: loser }, { orderBy: { id: 'asc' } });
      removed.push({ id: gone.id, novel: loser, stars: gone.stars ?? null });
      fork.remove(gone);
      await fork.flush();
      data[loser]!.splice(data[loser]!.indexOf(gone.stars ?? null), 1);
      const rest: number[] = [];
      for (let step = await walker.next(); !step.done; step = await walker.next()) rest.push(...ids(step.value.items));
      const after = expectedIds(sort, data).filter((id) => {
        const count = data[id]!.length;
        return count < position.count || (count === position.count && id > position.id);
      });
      assert.equal(rest, after);
      assert.ok(!rest.includes(jumper), 'a novel that moved before the position is not repeated');
    } finally {
      const fork = em.fork();
      await fork.nativeDelete(Note, { id: { $in: added } });
      for (const r of removed)
        fork.create(Note, { id: r.id, novel: fork.getReference(Novel, r.novel), stars: r.stars });
      await fork.flush();
    }
  });
});
