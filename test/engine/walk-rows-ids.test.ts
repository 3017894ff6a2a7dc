/**
 * The row loops' identity check (orm/distinct-ids.ts): a page is written from driver rows only when no two rows carry
 * the same identity, told once per page from the gathered identities (one comparison per row when they are strictly
 * ordered, a sort of doubles for numbers, a Set for the rest). distinctIds() answers what a Set answers, over
 * identities in every order and of every kind; and on every dialect, the generated and interpreted row loops write
 * pages in ascending, descending and shuffled key order (single and composite keys) exactly as the mapped path does,
 * and decline every page that repeats an identity, wherever the repeat sits.
 */
import type { EntityManager, EntityMetadata } from '@mikro-orm/core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { executeOwned } from '../../src/engine/execute.ts';
import { type Item, serializeRows } from '../../src/engine/serialize.ts';
import { distinctIds } from '../../src/orm/distinct-ids.ts';
import { compileRowWriter } from '../../src/orm/row-writer.ts';
import { CellSchema, EntrySchema, seedWalk, TeamSchema, walkEntities } from '../fixtures/walk.ts';
import { eachDialect } from '../helpers/db.ts';

/** A small deterministic generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(values: readonly T[], next: () => number): T[] {
  const out = [...values];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const ids = suite('walk rows: distinct identities');

ids('distinctIds() answers what a Set answers, for every order and kind of identity', () => {
  const next = random(7);
  const kinds: Record<string, (i: number) => unknown> = {
    integer: (i) => i * 3 - 40,
    fraction: (i) => i / 7 - 2,
    string: (i) => `k${String(i).padStart(3, '0')}`,
    unpadded: (i) => `k${i}`,
    bigint: (i) => BigInt(i) * 10n ** 20n,
    mixed: (i) => (i % 3 === 0 ? String(i) : i % 3 === 1 ? i : BigInt(i)),
  };
  let checked = 0;
  for (const [kind, make] of Object.entries(kinds))
    for (const n of [0, 1, 2, 3, 17, 300]) {
      const base = Array.from({ length: n }, (_, i) => make(i));
      const orders = [base, [...base].reverse(), shuffled(base, next)];
      for (const order of orders) {
        const variants: unknown[][] = [order];
        // A repeat at the start, the end and in between, next to its twin and far from it.
        if (n > 0)
          for (const [from, to] of [
            [0, 0],
            [n - 1, n],
            [Math.floor(n / 2), 0],
            [0, n],
          ] as const) {
            const copy = [...order];
            copy.splice(to, 0, order[from]);
            variants.push(copy);
          }
        for (const v of variants) {
          assert.is(distinctIds(v), new Set(v).size === v.length, `${kind}: ${v.map(String).join(',')}`);
          checked++;
        }
      }
    }
  // The values a Set counts once although they are not ===, or are === but sort apart.
  const special: unknown[][] = [
    [0, -0],
    [-0, 1, 0],
    [Number.NaN, 1, Number.NaN],
    [Number.NaN, Number.NaN],
    [1, Number.NaN, 2],
    [Number.POSITIVE_INFINITY, 1, Number.POSITIVE_INFINITY],
    [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY],
    [1, '1'],
    [1n, 1],
    [2, 1, 1n],
    ['b', 'a', 'b'],
    [3n, 1n, 2n, 1n],
    [true, false, true],
  ];
  for (const v of special) assert.is(distinctIds(v), new Set(v).size === v.length, v.map(String).join(','));
  assert.ok(checked > 300);
});

ids.run();

/** The same statement read as the driver gives its rows, and mapped by MikroORM (bound execution both). */
async function readBoth(em: EntityManager, meta: EntityMetadata): Promise<{ raw: Item[]; mapped: Item[] }> {
  const build = () =>
    (em as any).createQueryBuilder(meta.class, 'x').orderBy(meta.primaryKeys.map((pk) => ({ [pk]: 'asc' })));
  const raw = await executeOwned<Item>(build(), undefined, false);
  const mapped = await executeOwned<Item>(build());
  return { raw, mapped };
}

eachDialect('walk rows: identities in any order', { entities: walkEntities, seed: seedWalk }, (test) => {
  test('pages in any key order are written as the mapped path writes them; a repeated identity declines the page', async ({
    em,
  }) => {
    const next = random(11);
    for (const schema of [EntrySchema, TeamSchema, CellSchema]) {
      const meta = em.getMetadata().get(schema.meta.class);
      const { raw, mapped } = await readBoth(em, meta);
      assert.ok(raw.length >= 3, `${meta.className}: rows to reorder`);
      const positions = raw.map((_, i) => i);
      const orders = [positions, [...positions].reverse(), shuffled(positions, next), shuffled(positions, next)];
      for (const generate of [true, false]) {
        const writer = compileRowWriter(em, meta, { generate });
        assert.ok(writer, meta.className);
        for (const order of orders) {
          const label = `${meta.className} ${generate ? 'generated' : 'interpreted'} [${order.join(',')}]`;
          const page = order.map((i) => ({ ...raw[i]! }));
          const layout = writer.layout(page[0]!);
          assert.ok(layout, label);
          const expected = serializeRows(
            em,
            meta.class,
            order.map((i) => ({ ...mapped[i]! })),
          );
          assert.equal(layout.write(page), expected, label);
          // The same page with one row repeated: next to itself, at the far end, and in the middle.
          for (const [from, to] of [
            [0, 1],
            [0, order.length],
            [order.length - 1, Math.floor(order.length / 2)],
          ] as const) {
            const repeated = [...page];
            repeated.splice(to, 0, { ...page[from]! });
            assert.is(layout.write(repeated), undefined, `${label}: row ${from} again at ${to}`);
          }
        }
      }
    }
  });
});
