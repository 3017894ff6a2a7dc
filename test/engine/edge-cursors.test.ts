/**
 * Edges pages (the GraphQL adapter's LIST_EDGES): `cursors: 'ends'` encodes the cursors after the first and the last
 * item only, equal to those of `'all'`, on pages of every size and in both directions.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { type EdgesOptions, edgesListerOf } from '../../src/engine/page/edges.ts';
import { Entry, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { eachDialect } from '../helpers/db.ts';

function lister(em: EntityManager) {
  const scoped = createEngine(em, { policy: entryPolicy, maxLimit: 20 }).from(
    (em as any).createQueryBuilder(Entry, 'e'),
  );
  const list = edgesListerOf<Record<string, string>, object>(scoped);
  if (!list) throw new Error('no edges lister');
  return list;
}

eachDialect('edges: cursors at the ends only', { entities: walkEntities, seed: seedWalk }, (test) => {
  test("'ends' gives the first and the last of 'all', for pages of 0, 1 and more items, both ways", async ({ em }) => {
    const list = lister(em);
    const cases: [Record<string, string>, EdgesOptions][] = [
      [{ sort: '-score', limit: '5' }, {}],
      [{ sort: '-score', limit: '1' }, {}],
      [{ filter: 'id gt 1000', limit: '5' }, {}],
      [{ sort: 'title', limit: '4' }, { backward: true }],
    ];
    for (const [query, options] of cases) {
      const all = await list(query, {}, { ...options, cursors: 'all' });
      const ends = await list(query, {}, { ...options, cursors: 'ends' });
      assert.equal(ends.page, all.page, JSON.stringify(query));
      const n = all.cursors.length;
      assert.is(n, all.page.items.length);
      const expected = n === 0 ? [] : n === 1 ? [all.cursors[0]] : [all.cursors[0], all.cursors[n - 1]];
      assert.equal(ends.cursors, expected, JSON.stringify(query));
    }
  });
});
