/**
 * The search callback: it narrows the very QueryBuilder it is given, with the term bound and LIKE wildcards escaped,
 * for data and count alike. Returning anything else, or throwing, is `execution_failed` (never an unscoped
 * fallback), unless the callback throws its own ListError. No query runs after a failed search.
 */
import type { EntityManager } from '@mikro-orm/core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, type SearchCallback } from '../../src/engine/index.ts';
import { isListError, ListError } from '../../src/errors.ts';
import { escapeLike } from '../../src/index.ts';
import { ENTRIES, Entry, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';

const LIVE = ENTRIES.filter((e) => !e.deleted);

/**
 * A portable callback: a bound, escaped pattern with an explicit ESCAPE (SQLite's LIKE has no default one), and `!`
 * as the escape character because MySQL and MariaDB read a backslash in a string literal as their own escape
 * (`escape '\'` is a syntax error there). The app's LIKE keeps its database's case rules: ASCII case-blind on
 * SQLite, case-sensitive on PostgreSQL, the column's collation on MariaDB (case-blind by default).
 */
const byLabel: SearchCallback = (_ctx, qb, term) =>
  qb.andWhere(`${qb.alias}.label_text like ? escape '!'`, [`%${escapeLike(term, '!')}%`]);

function base(em: EntityManager) {
  return (em as any).createQueryBuilder(Entry, 'e');
}

interface NarrowRow {
  readonly term: string;
  readonly ids: readonly number[] | Readonly<Record<Dialect, readonly number[]>>;
}

const WITH_A = LIVE.filter((e) => e.label.includes('a')).map((e) => e.id);

const NARROW: readonly NarrowRow[] = [
  { term: 'a', ids: WITH_A },
  // Labels are lower case: only the database's own LIKE decides whether `A` finds them.
  { term: 'A', ids: { sqlite: WITH_A, postgresql: [], mariadb: WITH_A } },
  { term: '!', ids: [] },
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

eachDialect('engine search', { entities: walkEntities, seed: seedWalk }, (test, dialect) => {
  for (const row of NARROW) {
    const ids = Array.isArray(row.ids) ? row.ids : (row.ids as Record<Dialect, readonly number[]>)[dialect];
    test(`narrows, term bound and escaped: ${JSON.stringify(row.term)}`, async ({ em }) => {
      const engine = createEngine(em, { policy: entryPolicy, search: byLabel, allowCount: true, maxLimit: 50 });
      const { result, calls } = await captureDriver(() =>
        engine.from(base(em)).list({ search: row.term, count: 'true', limit: '50' }),
      );
      assert.equal(
        result.items.map((i) => i.id),
        [...ids],
      );
      assert.is(result.page.count, ids.length, 'the count is narrowed too');
      assert.is(calls.length, 2);
      for (const call of calls) {
        assert.not.ok(call.sql.includes(`%${escapeLike(row.term, '!')}%`), call.sql);
        assert.ok(call.values.includes(`%${escapeLike(row.term, '!')}%`), JSON.stringify(call.values));
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

const escaping = suite('escapeLike');
escaping('escapes the wildcards and its escape character, with a backslash or another character', () => {
  assert.is(escapeLike('50%_off\\'), '50\\%\\_off\\\\');
  assert.is(escapeLike('50%!_\\', '!'), '50!%!!!_\\');
  assert.is(escapeLike('plain', '!'), 'plain');
  assert.throws(() => escapeLike('x', '%'), /one character/);
  assert.throws(() => escapeLike('x', '!!'), /one character/);
});
escaping.run();
