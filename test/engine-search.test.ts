/**
 * The search callback: it narrows the very QueryBuilder it is given, with the term bound and LIKE wildcards escaped,
 * for data and count alike. Returning anything else, or throwing, is `execution_failed` (never an unscoped
 * fallback), unless the callback throws its own ListError. No query runs after a failed search.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type SearchCallback } from '../src/engine/index.ts';
import { isListError, ListError } from '../src/errors.ts';
import { escapeLike } from '../src/plan/like.ts';
import { ENTRIES, Entry, entryPolicy, seedWalk, walkEntities } from './fixtures/walk.ts';
import { captureDriver } from './helpers/capture.ts';
import { eachDialect } from './helpers/db.ts';

const LIVE = ENTRIES.filter((e) => !e.deleted);

/** The documented callback: a bound, escaped pattern with an explicit ESCAPE (SQLite's LIKE has no default one). */
const byLabel: SearchCallback = (_ctx, qb, term) =>
  qb.andWhere(`${qb.alias}.label_text like ? escape '\\'`, [`%${escapeLike(term)}%`]);

function base(em: EntityManager) {
  return (em as any).createQueryBuilder(Entry, 'e');
}

interface NarrowRow {
  readonly term: string;
  readonly ids: readonly number[];
}

const NARROW: readonly NarrowRow[] = [
  { term: 'a', ids: LIVE.filter((e) => e.label.includes('a')).map((e) => e.id) },
  { term: '%', ids: [7] },
  { term: '_', ids: [8] },
  { term: '\\', ids: [14] },
  { term: "x' or '1'='1", ids: [] },
];

interface FailRow {
  readonly name: string;
  readonly search: (em: EntityManager) => SearchCallback;
  readonly code: string;
}

const FAILS: readonly FailRow[] = [
  { name: 'returns a fresh, unscoped builder', search: (em) => () => base(em), code: 'execution_failed' },
  { name: 'returns a clone of its builder', search: () => (_c, qb) => qb.clone(), code: 'execution_failed' },
  { name: 'returns nothing', search: () => (() => undefined) as never, code: 'execution_failed' },
  {
    name: 'throws an Error',
    search: () => () => {
      throw new Error('boom');
    },
    code: 'execution_failed',
  },
  {
    name: 'rejects',
    search: () => async () => Promise.reject(new Error('boom')),
    code: 'execution_failed',
  },
  {
    name: 'throws its own ListError',
    search: () => () => {
      throw new ListError('invalid_parameter', 'search needs three characters', { parameter: 'search' });
    },
    code: 'invalid_parameter',
  },
];

eachDialect('engine search', { entities: walkEntities, seed: seedWalk }, (test) => {
  for (const row of NARROW) {
    test(`narrows, term bound and escaped: ${JSON.stringify(row.term)}`, async ({ em }) => {
      const engine = createEngine(em, { policy: entryPolicy, search: byLabel, allowCount: true, maxLimit: 50 });
      const { result, calls } = await captureDriver(() =>
        engine.from(base(em)).list({ search: row.term, count: 'true', limit: '50' }),
      );
      assert.equal(
        result.items.map((i) => i.id),
        [...row.ids],
      );
      assert.is(result.page.count, row.ids.length, 'the count is narrowed too');
      assert.is(calls.length, 2);
      for (const call of calls) {
        assert.not.ok(call.sql.includes(`%${escapeLike(row.term)}%`), call.sql);
        assert.ok(call.values.includes(`%${escapeLike(row.term)}%`), JSON.stringify(call.values));
      }
    });
  }

  test('an async callback that returns its builder works; it gets ctx and the term, once per list', async ({ em }) => {
    const seen: unknown[] = [];
    const engine = createEngine<{ user: string }>(em, {
      policy: entryPolicy,
      allowCount: true,
      search: async (ctx, qb, term) => {
        seen.push([ctx.user, term]);
        return qb.andWhere({ score: 3 });
      },
    });
    const page = await engine.from(base(em)).list({ search: 'three', count: 'true' }, { user: 'ann' });
    assert.equal(
      page.items.map((i) => i.id),
      LIVE.filter((e) => e.score === 3).map((e) => e.id),
    );
    assert.equal(seen, [['ann', 'three']]);
  });

  for (const row of FAILS) {
    test(`fails, with no query run, when the callback ${row.name}`, async ({ em }) => {
      const engine = createEngine(em, { policy: entryPolicy, search: row.search(em) });
      const { result, calls } = await captureDriver(() =>
        engine
          .from(base(em))
          .list({ search: 'x' })
          .then(
            () => undefined,
            (e: unknown) => e,
          ),
      );
      assert.ok(isListError(result), String(result));
      assert.is(result.code, row.code);
      assert.is(calls.length, 0);
    });
  }
});
