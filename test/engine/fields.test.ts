/**
 * `fields`: the client picks the root fields its items carry, among the policy's selectable ones. The data query
 * selects only those columns, the primary key and the cursor's keys; items carry exactly those keys (the writer's
 * path and the hydration fallback alike); bad names are positioned errors raised before any query; cursors, count
 * and search work unchanged; describe() and toOpenAPI() say what may be picked.
 */
import { type EntityManager, EventType } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type ScopedEngine } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { toOpenAPI } from '../../src/openapi/to-openapi.ts';
import { apply } from '../../src/plan/index.ts';
import { filterable, schema, selectable, sortable } from '../../src/policy/index.ts';
import { parseHTTP } from '../../src/syntax/parse-http.ts';
import { Entry, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

const policy = schema(Entry)
  .expose('score', filterable(), sortable(), selectable(false))
  .expose('title', filterable(), sortable(), selectable())
  .expose('big', filterable(), sortable())
  .expose('amount', filterable(), sortable())
  .expose('flag', filterable())
  .expose('day', sortable())
  .expose('at', sortable());

function base(em: EntityManager) {
  return (em as any).createQueryBuilder(Entry, 'e');
}

function engineOn(em: EntityManager, extra: Record<string, unknown> = {}): ScopedEngine {
  const search = (_ctx: unknown, qb: any, term: string) => qb.andWhere({ label: term });
  return createEngine(em, { policy, allowCount: true, maxLimit: 50, search, ...extra }).from(base(em));
}

/** The full items of a query (no `fields`), each cut to `keys`, to compare values with a `fields` answer. */
function cut(items: readonly Record<string, unknown>[], keys: readonly string[]): Record<string, unknown>[] {
  return items.map((item) => Object.fromEntries(Object.entries(item).filter(([k]) => keys.includes(k))));
}

interface PickRow {
  readonly fields: string;
  /** The keys each item carries, in item order. */
  readonly keys: readonly string[];
  readonly query?: Record<string, string>;
}

const PICKS: readonly PickRow[] = [
  { fields: 'id,title', keys: ['id', 'title'] },
  { fields: 'title', keys: ['id', 'title'] },
  { fields: 'id', keys: ['id'] },
  { fields: ' at , big,amount ', keys: ['id', 'big', 'amount', 'at'] },
  { fields: 'day,flag', keys: ['id', 'flag', 'day'], query: { sort: '-score' } },
  { fields: 'title,at', keys: ['id', 'title', 'at'], query: { filter: 'big gt 4', sort: '-day' } },
];

interface ErrorRow {
  readonly name: string;
  readonly fields: string;
  readonly code: string;
  readonly offset: number;
}

const ERRORS: readonly ErrorRow[] = [
  { name: 'unknown name', fields: 'id,nope', code: 'unknown_field', offset: 3 },
  { name: 'hidden property', fields: 'secret', code: 'unknown_field', offset: 0 },
  { name: 'not exposed (relation key)', fields: 'title, team', code: 'unknown_field', offset: 7 },
  { name: 'selectable(false)', fields: 'title,score', code: 'field_not_selectable', offset: 6 },
  { name: 'duplicate', fields: 'title,id,title', code: 'invalid_parameter', offset: 9 },
  { name: 'empty name', fields: 'id,,title', code: 'invalid_parameter', offset: 3 },
  { name: 'trailing comma', fields: 'id,', code: 'invalid_parameter', offset: 3 },
  { name: 'a path', fields: 'group/name', code: 'invalid_parameter', offset: 5 },
  { name: 'a sort prefix', fields: '-title', code: 'invalid_parameter', offset: 0 },
  { name: 'empty value', fields: '', code: 'invalid_parameter', offset: 0 },
  { name: 'non-ASCII before the bad name (byte offset)', fields: 'id, \u00e9', code: 'invalid_parameter', offset: 4 },
];

eachDialect('fields', { entities: walkEntities, seed: seedWalk }, (test, dialect) => {
  for (const row of PICKS) {
    test(`fields=${row.fields} ${JSON.stringify(row.query ?? {})}: exactly those keys, same values`, async ({ em }) => {
      const engine = engineOn(em);
      const query = { limit: '50', ...row.query };
      const full = await engine.list(query);
      const picked = await engine.list({ ...query, fields: row.fields });
      assert.ok(picked.items.length > 0);
      for (const item of picked.items) assert.equal(Object.keys(item), [...row.keys]);
      assert.equal(picked.items, cut(full.items, row.keys));
    });
  }

  test('the data query selects only the picked columns, the key, and the sort keys', async ({ em }) => {
    const { calls } = await captureDriver(() => engineOn(em).list({ fields: 'title', sort: '-score' }));
    assert.is(calls.length, 1);
    const sql = calls[0]!.sql;
    const select = sql.slice(0, sql.indexOf(' from '));
    const q = dialect === 'postgresql' ? '"' : '`';
    assert.ok(select.startsWith(`select ${q}e${q}.${q}entry_id${q}, ${q}e${q}.${q}label_text${q},`), select);
    // score only as the cursor's key column, under listql's alias.
    for (const column of ['big_number', 'amount_value', 'at_moment', 'day_value', 'tenant_key', 'team_key', '*'])
      assert.not.ok(select.includes(column), `${column} in ${select}`);
    assert.ok(select.includes('score_value'));
    const full = await captureDriver(() => engineOn(em).list({ sort: '-score' }));
    assert.ok(full.calls[0]!.sql.includes('.*'), 'without fields, every column');
  });

  for (const row of ERRORS) {
    test(`error: ${row.name}`, async ({ em }) => {
      const { result, calls } = await captureDriver(() =>
        engineOn(em)
          .list({ fields: row.fields })
          .then(
            () => undefined,
            (e: unknown) => e,
          ),
      );
      if (!isListError(result)) throw new Error(`expected a ListError, got ${String(result)}`);
      assert.equal([result.code, result.parameter, result.position?.offset], [row.code, 'fields', row.offset]);
      assert.is(calls.length, 0);
    });
  }

  test('a cursor walk with fields: same ids as without, count on every page', async ({ em }) => {
    const engine = engineOn(em);
    const walkIds = async (fields?: string) => {
      const ids: unknown[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 50; i++) {
        const query: Record<string, string> = { sort: '-score,title', limit: '3', count: 'true' };
        if (fields) query.fields = fields;
        if (cursor) query.cursor = cursor;
        const page = await engine.list(query);
        assert.is(page.page.count, 20);
        for (const item of page.items) {
          if (fields) assert.equal(Object.keys(item), ['id', 'amount']);
          ids.push(item.id);
        }
        cursor = page.page.nextCursor;
        if (!cursor) return ids;
      }
      throw new Error('the walk did not end');
    };
    const picked = await walkIds('amount');
    assert.equal(picked, await walkIds());
    assert.is(new Set(picked).size, 20);
  });

  test('search and count work with fields', async ({ em }) => {
    const page = await engineOn(em).list({ search: 'a', fields: 'title', count: 'true', limit: '50' });
    assert.ok(page.items.length > 0);
    assert.is(page.page.count, page.items.length);
    for (const item of page.items) assert.equal(item, { id: item.id, title: 'a' });
  });

  test('items() walks with fields', async ({ em }) => {
    const seen: Record<string, unknown>[] = [];
    for await (const item of engineOn(em).items({ fields: 'big', sort: 'big' }, undefined, { pageSize: 4 }))
      seen.push(item);
    assert.is(seen.length, 20);
    for (const item of seen) assert.equal(Object.keys(item), ['id', 'big']);
  });

  test('the hydration fallback gives exactly the requested keys too', async ({ db }) => {
    // An onInit listener makes the item writer decline: every item then comes from em.map() and serialize(). The
    // fork's own event manager keeps the listener away from the other tests.
    const em = db.orm.em.fork({ freshEventManager: true });
    em.getEventManager().registerSubscriber({ getSubscribedEntities: () => [Entry], [EventType.onInit]: () => {} });
    const picked = await engineOn(em).list({ fields: 'at,title', limit: '5' });
    const full = await engineOn(db.orm.em.fork()).list({ limit: '5' });
    for (const item of picked.items) assert.equal(Object.keys(item), ['id', 'title', 'at']);
    assert.equal(picked.items, cut(full.items, ['id', 'title', 'at']));
  });

  test('a base scope that selects its own columns keeps them, items still carry only the picked keys', async ({
    em,
  }) => {
    const engine = createEngine(em, { policy }).from(base(em).select(['id', 'label', 'big']));
    const page = await engine.list({ fields: 'title,amount', limit: '3' });
    for (const item of page.items) assert.equal(Object.keys(item), ['id', 'title']);
  });

  test('apply() refuses fields (it needs the engine)', () => {
    const bound = policy.bind(em0);
    try {
      apply(base(em0), bound, parseHTTP({ fields: 'title' }));
      assert.unreachable('apply accepted fields');
    } catch (err) {
      if (!isListError(err)) throw err;
      assert.equal([err.code, err.parameter], ['invalid_parameter', 'fields']);
    }
  });
  let em0: EntityManager;
  test.before.each(({ em }) => {
    em0 = em;
  });

  test('describe() and toOpenAPI() name what fields may pick', ({ em }) => {
    const description = createEngine(em, { policy }).describe();
    assert.equal(description.selectable, ['id', 'title', 'big', 'amount', 'flag', 'day', 'at']);
    assert.is(description.fields.find((f) => f.name === 'score')?.selectable, false);
    assert.is(description.fields.find((f) => f.name === 'title')?.selectable, true);
    const doc = toOpenAPI(description, { path: '/entries', title: 'Entries', version: '1' });
    const params = doc.paths['/entries']!.get.parameters as { name: string; description: string }[];
    const fields = params.find((p) => p.name === 'fields');
    assert.ok(fields);
    assert.ok(fields.description.includes('`title`'));
    assert.not.ok(fields.description.includes('`score`'));
  });
});
