/**
 * The `defaultSort` engine option: used when the request has no `sort` (request sort > defaultSort > primary key),
 * with the primary key still appended; the base scope's order is replaced either way; cursors carry the signature of
 * the effective sort, so a walk under the default sort continues and a cursor of another order is refused.
 * describe() and toOpenAPI() show it. Its validation at createEngine is in engine-config.test.ts.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type ScopedEngine } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { toOpenAPI } from '../../src/openapi/to-openapi.ts';
import { ENTRIES, Entry, type EntrySeed, entryPolicy, seedWalk, TEAMS, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { type Getters, orderBy, walk } from '../helpers/walk.ts';

const LIVE = ENTRIES.filter((e) => !e.deleted);
const ids = (items: readonly Record<string, unknown>[]) => items.map((i) => i.id as number);

const GETTERS: Getters<EntrySeed> = {
  id: (e) => e.id,
  score: (e) => e.score,
  title: (e) => e.label,
  'group/name': (e) => TEAMS.find((t) => t.id === e.team)?.name ?? null,
};

/** The ids of the live rows in the order of a `sort` value, primary key last. */
const ordered = (sort: string) => orderBy(LIVE, sort, GETTERS, ['id']).map((e) => e.id);

function scoped(em: EntityManager, defaultSort: string | undefined, orderedBase = false): ScopedEngine {
  const base = (em as any).createQueryBuilder(Entry, 'e');
  // A base scope's own order never survives: the effective order replaces it.
  if (orderedBase) base.orderBy({ label: 'desc' });
  const config = defaultSort === undefined ? {} : { defaultSort };
  return createEngine(em, { policy: entryPolicy, maxLimit: 50, ...config }).from(base);
}

interface OrderRow {
  readonly name: string;
  readonly defaultSort?: string;
  readonly query: Record<string, string>;
  /** The sort whose order the page must have. */
  readonly expect: string;
  readonly orderedBase?: boolean;
}

const ORDERS: readonly OrderRow[] = [
  { name: 'defaultSort without sort', defaultSort: '-score', query: {}, expect: '-score' },
  { name: 'several keys, written with spaces', defaultSort: ' -score , title ', query: {}, expect: '-score,title' },
  { name: 'through a to-one relation', defaultSort: '-group/name', query: {}, expect: '-group/name' },
  { name: 'the request sort wins', defaultSort: '-score', query: { sort: 'title' }, expect: 'title' },
  {
    name: "the base scope's order is replaced by defaultSort",
    defaultSort: 'score',
    query: {},
    expect: 'score',
    orderedBase: true,
  },
  { name: 'a filter keeps the default order', defaultSort: '-score', query: { filter: 'id lt 10' }, expect: '-score' },
];

eachDialect('engine defaultSort', { entities: walkEntities, seed: seedWalk }, (test) => {
  for (const row of ORDERS) {
    test(`order: ${row.name}`, async ({ em }) => {
      const page = await scoped(em, row.defaultSort, row.orderedBase).list({ ...row.query, limit: '50' });
      const keep = row.query.filter ? (id: number) => id < 10 : () => true;
      assert.equal(ids(page.items), ordered(row.expect).filter(keep));
    });
  }

  test('a walk under the default sort (list() with cursors, and items()) covers every row in order', async ({ em }) => {
    for (const defaultSort of ['-score', '-group/name,title', 'id']) {
      const result = await walk(scoped(em, defaultSort), {}, [1, 3, 4]);
      assert.equal(ids(result.items), ordered(defaultSort), defaultSort);
      const items: Record<string, unknown>[] = [];
      for await (const item of scoped(em, defaultSort).items({}, undefined, { pageSize: 3 })) items.push(item);
      assert.equal(ids(items), ordered(defaultSort), `items(), ${defaultSort}`);
    }
  });

  test('a default-sort cursor is the cursor of that sort; a cursor of another order is invalid_cursor', async ({
    em,
  }) => {
    const engine = scoped(em, '-score');
    const first = await engine.list({ limit: '4' });
    const cursor = first.page.nextCursor!;
    // The same effective order written out by the client continues the same way.
    const implicit = await engine.list({ limit: '4', cursor });
    const explicit = await engine.list({ limit: '4', cursor, sort: '-score' });
    assert.equal(ids(implicit.items), ordered('-score').slice(4, 8));
    assert.equal(ids(explicit.items), ids(implicit.items));
    // A cursor of the primary-key order (no defaultSort) is not one of this endpoint's default order, and back.
    const plain = (await scoped(em, undefined).list({ limit: '4' })).page.nextCursor!;
    for (const [scope, query] of [
      [engine, { cursor: plain }],
      [engine, { cursor, sort: 'score' }],
      [scoped(em, undefined), { cursor }],
    ] as const) {
      const { result, calls } = await captureDriver(() =>
        scope.list(query).then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
      assert.ok(isListError(result), String(result));
      assert.is(result.code, 'invalid_cursor');
      assert.is(calls.length, 0);
    }
  });

  test('describe() and toOpenAPI() show the default sort in its canonical form, and only when set', ({ em }) => {
    const engine = createEngine(em, { policy: entryPolicy, defaultSort: ' -score ,group/name' });
    assert.is(engine.describe().defaultSort, '-score,group/name');
    const doc = toOpenAPI(engine.describe(), { path: '/entries', title: 'Entries', version: '1' }) as any;
    const sort = doc.paths['/entries'].get.parameters.find((p: { name: string }) => p.name === 'sort');
    assert.is(sort.schema.default, '-score,group/name');
    assert.match(sort.description, /Without sort: -score,group\/name, then the primary key\./);
    const plain = createEngine(em, { policy: entryPolicy });
    assert.not.ok('defaultSort' in plain.describe());
    const plainDoc = toOpenAPI(plain.describe(), { path: '/entries', title: 'Entries', version: '1' }) as any;
    const plainSort = plainDoc.paths['/entries'].get.parameters.find((p: { name: string }) => p.name === 'sort');
    assert.not.ok('default' in plainSort.schema);
    assert.match(plainSort.description, /Without sort: the primary key\./);
  });
});
