/**
 * Messages that say what is wrong, through the engine on every dialect: unknown query parameters (ignored by
 * default, `unknownParameters: 'reject'` names them and the closest list parameter, on every request path but
 * GraphQL's own arguments), the object form's unknown keys (always refused), a prevCursor given to a forward walk,
 * and literal errors that name the field's real limits. Every one is refused before any SQL runs.
 */
import { type EntityManager, EntitySchema } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { graphql } from 'graphql';
import * as assert from 'uvu/assert';
import { graphqlSchema } from '../../src/graphql/index.ts';
import { runList } from '../../src/http/handler.ts';
import { createEngine, type EngineConfig, fromQueryString, isListError, type ListError } from '../../src/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

class Gauge {
  id!: number;
  n!: number;
  amount!: string;
  at!: Date;
}

const GaugeSchema = new EntitySchema<Gauge>({
  class: Gauge,
  tableName: 'msg_gauge',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    n: { type: 'integer' },
    amount: { type: 'decimal', precision: 10, scale: 2 },
    at: { type: 'datetime' },
  },
});

async function seed(em: EntityManager): Promise<void> {
  for (let id = 1; id <= 7; id++)
    em.create(Gauge, { id, n: id * 10, amount: `${id}.50`, at: new Date(Date.UTC(2024, 0, id)) });
  await em.flush();
}

const policy = schema(Gauge)
  .expose('id', filterable(), sortable())
  .expose('n', filterable(), sortable())
  .expose('amount', filterable(), sortable())
  .expose('at', filterable(), sortable());

/** The ListError a promise rejects with, and the statements the driver saw meanwhile. */
async function refusal(run: () => Promise<unknown>): Promise<{ error: ListError; sql: number }> {
  const { result, calls } = await captureDriver(() =>
    run().then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  if (!isListError(result)) throw new Error(`expected a ListError, got ${String(result)}`);
  return { error: result, sql: calls.length };
}

const AT_START = { offset: 0, line: 1, column: 1 };

/** The refusal of the misspelt parameter `fitler`, however it arrives. */
const FITLER = {
  code: 'invalid_parameter',
  message: "unknown parameter 'fitler'; did you mean 'filter'?",
  parameter: 'fitler',
  position: AT_START,
};

/** The tests' EntityManager is a SQL one: its QueryBuilder is the engine's base scope. */
const sql = (em: EntityManager) => em as SqlEntityManager;

eachDialect('messages', { entities: [GaugeSchema], seed }, (test) => {
  const scoped = (em: EntityManager, config: Partial<EngineConfig> = {}) =>
    createEngine(em, { policy, ...config }).from(sql(em).createQueryBuilder(Gauge, 'g'));

  test('unknown parameters are ignored by default, from a string, URLSearchParams or fromQueryString', async ({
    em,
  }) => {
    const s = scoped(em);
    for (const query of [
      'utm_source=mail&limit=2',
      new URLSearchParams('utm_source=mail&limit=2'),
      fromQueryString('/gauges?utm_source=mail&limit=2'),
    ])
      assert.is((await s.list(query)).items.length, 2);
  });

  test("unknownParameters: 'reject' names the parameter and the closest list parameter, before any SQL", async ({
    em,
  }) => {
    const s = scoped(em, { unknownParameters: 'reject' });
    for (const query of ['fitler=n%20gt%201', new URLSearchParams('fitler=n gt 1'), fromQueryString('?fitler=x')]) {
      const { error, sql } = await refusal(() => s.list(query));
      assert.equal(error.toJSON(), FITLER);
      assert.is(sql, 0);
    }
    const far = await refusal(() => s.list('limit=2&utm_source=mail'));
    assert.is(far.error.parameter, 'utm_source');
    assert.is(
      far.error.message,
      "unknown parameter 'utm_source': this endpoint reads filter, sort, limit, offset, cursor, count, search, fields, facets",
    );
    // Names are case-sensitive: `Sort` is not `sort`, and the suggestion says so.
    assert.is((await refusal(() => s.list('Sort=n'))).error.message, "unknown parameter 'Sort'; did you mean 'sort'?");
    await assert.not.throws(() => s.list('sort=-n&limit=1'));
    for (const walk of [() => s.items('limt=2').next(), () => s.pages('limt=2').next(), () => s.explain('limt=2')])
      assert.is((await refusal(walk)).error.parameter, 'limt');
  });

  test("unknownParameters: 'reject' through the HTTP handler answers 400 naming the parameter", async ({ em }) => {
    const engine = createEngine(em, { policy, unknownParameters: 'reject' });
    const scope = () => ({ base: sql(em).createQueryBuilder(Gauge, 'g') });
    const signal = new AbortController().signal;
    const bad = await runList(engine, scope, {}, '/gauges?sotr=n', signal);
    assert.is(bad.status, 400);
    assert.equal(JSON.parse(bad.json), {
      code: 'invalid_parameter',
      message: "unknown parameter 'sotr'; did you mean 'sort'?",
      parameter: 'sotr',
      position: AT_START,
    });
    assert.is((await runList(engine, scope, {}, '/gauges?sort=n&limit=1', signal)).status, 200);
  });

  test("GraphQL is unaffected by unknownParameters: 'reject'", async ({ em }) => {
    const built = graphqlSchema({
      endpoints: [
        {
          field: 'gauges',
          type: 'Gauge',
          engine: createEngine(em, { policy, unknownParameters: 'reject' }),
          scope: () => ({ base: sql(em.fork()).createQueryBuilder(Gauge, 'g') }),
        },
      ],
    });
    const result = await graphql({ schema: built, source: '{ gauges(first: 2, sort: "-n") { nodes { id } } }' });
    assert.equal(result.errors, undefined);
    assert.equal(JSON.parse(JSON.stringify(result.data)), { gauges: { nodes: [{ id: 7 }, { id: 6 }] } });
  });

  test('a query object written in code refuses a key that is not a list parameter, whatever the setting', async ({
    em,
  }) => {
    const { error, sql } = await refusal(() => scoped(em).list({ fitler: 'n gt 1' } as never));
    assert.equal(error.toJSON(), FITLER);
    assert.is(sql, 0);
    assert.is((await scoped(em).list({ filter: 'n gt 10', limit: '2', cursor: undefined })).items.length, 2);
  });

  test('unknownParameters is validated by createEngine', ({ em }) => {
    try {
      createEngine(em, { policy, unknownParameters: 'strict' as never });
      assert.unreachable('accepted');
    } catch (err) {
      if (!isListError(err)) throw err;
      assert.is(err.code, 'invalid_schema');
      assert.is(err.message, "engine config: unknownParameters must be 'ignore' or 'reject'");
    }
  });

  test('a prevCursor given to items() or pages() says it is one, and list() still follows it', async ({ em }) => {
    const s = scoped(em);
    const second = await s.list({ sort: 'n', limit: '2', offset: '2' });
    const cursor = second.page.prevCursor!;
    for (const walk of [() => s.items({ sort: 'n', cursor }).next(), () => s.pages({ sort: 'n', cursor }).next()]) {
      const { error, sql } = await refusal(walk);
      assert.is(error.code, 'invalid_cursor');
      assert.is(error.parameter, 'cursor');
      assert.match(
        error.message,
        /^this cursor is a prevCursor, which pages back, and pages\(\) and items\(\) only walk/,
      );
      assert.is(sql, 0);
    }
    assert.equal(
      (await s.list({ sort: 'n', cursor })).items.map((i) => i.id),
      [1, 2],
    );
    // A cursor of another sort still says so.
    const other = await refusal(() => s.items({ sort: '-n', cursor: second.page.nextCursor! }).next());
    assert.is(other.error.message, 'the cursor was made for another endpoint or sort');
  });

  test('literal errors name the real limit of the field', async ({ em }) => {
    const s = scoped(em);
    const message = async (filter: string) => (await refusal(() => s.list({ filter }))).error.message;
    assert.is(
      await message('n eq 99999999999'),
      "invalid literal: integer out of range for 'n' (-2147483648 to 2147483647)",
    );
    assert.is(await message("amount eq '1.5'"), "invalid literal: expected a number for 'amount'");
    assert.is(
      await message('amount lt 1e1001'),
      "invalid literal: number out of range for 'amount': more than 1000 digits written out; 'amount' is decimal(10, 2): at most 8 digits before the point and 2 after",
    );
    // `+01:00` typed in a URL arrives as ` 01:00`.
    const plus = await refusal(() => s.list("filter=at gt '2024-01-02T00:00:00+01:00'"));
    assert.is(plus.error.code, 'invalid_literal');
    assert.match(plus.error.message, /for 'at': a '\+' in a URL is a space: write %2B$/);
    const encoded = await s.list("filter=at gt '2024-01-02T00:00:00%2B01:00'&sort=id&limit=1");
    assert.equal(
      encoded.items.map((i) => i.id),
      [2],
    );
  });
});
