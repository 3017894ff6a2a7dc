/**
 * The opt-in planner estimate (`planCheck`, docs/security.md): before a new shape of data statement the engine asks
 * EXPLAIN (never ANALYZE) and refuses the shape when the estimate crosses maxCost or maxRows, with `limit_exceeded`
 * naming the estimate; the verdict is remembered per shape (least recently used forgotten past cacheSize), so a
 * known shape sends no EXPLAIN. SQLite gives no estimate: createEngine refuses the option there.
 */
import * as assert from 'uvu/assert';
import { createEngine, isListError } from '../../src/index.ts';
import { COST_ENTITIES, seedShelves, shelfPolicy, shelves } from '../bind/cost-fixture.ts';
import { captureDriver, type DriverCall } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

const explains = (calls: readonly DriverCall[]) => calls.filter((c) => /^explain\b/i.test(c.sql));
const data = (calls: readonly DriverCall[]) => calls.filter((c) => /^select\b/i.test(c.sql));

eachDialect('planCheck', { entities: COST_ENTITIES, seed: seedShelves }, (test, dialect) => {
  const engineWith = (em: Parameters<typeof shelves>[0], planCheck: Record<string, unknown>) =>
    createEngine(em, { policy: shelfPolicy, planCheck: planCheck as never });

  test('malformed options are refused at createEngine', ({ em }) => {
    for (const [options, says] of [
      [{}, 'needs maxCost, maxRows or both'],
      [{ maxCost: -1 }, 'planCheck.maxCost must be a positive number'],
      [{ maxRows: Number.NaN }, 'planCheck.maxRows must be a positive number'],
      [{ maxCost: 10, cacheSize: 0 }, 'planCheck.cacheSize must be a positive integer'],
      [{ maxCost: 10, maxTime: 1 }, 'planCheck.maxTime is not a known setting'],
    ] as const) {
      const error = (() => {
        try {
          engineWith(em, options);
        } catch (err) {
          return err;
        }
        return undefined;
      })();
      assert.ok(isListError(error) && error.code === 'invalid_schema', String(error));
      assert.ok(error.message.includes(says), error.message);
    }
  });

  if (dialect === 'sqlite') {
    test('SQLite has no planner estimate: the option is refused, not ignored', ({ em }) => {
      try {
        engineWith(em, { maxCost: 1000 });
        assert.unreachable('createEngine must refuse planCheck on SQLite');
      } catch (err) {
        assert.ok(isListError(err) && err.code === 'invalid_schema', String(err));
        assert.ok(err.message.includes('SQLite'), err.message);
      }
    });
    return;
  }

  test('a shape over maxCost is refused after one EXPLAIN, then with no statement at all', async ({ em }) => {
    const engine = engineWith(em, { maxCost: 0.001 });
    const run = (filter: string) =>
      captureDriver(() =>
        engine
          .from(shelves(em))
          .list({ filter })
          .catch((e: unknown) => e),
      );
    const first = await run("label eq 'Alpha'");
    assert.ok(isListError(first.result), String(first.result));
    assert.is(first.result.code, 'limit_exceeded');
    const name = dialect === 'postgresql' ? '(planner cost)' : '(rows examined)';
    assert.ok(first.result.message.includes(name), first.result.message);
    assert.ok(first.result.message.includes("over this endpoint's planCheck.maxCost (0.001)"), first.result.message);
    assert.is(explains(first.calls).length, 1);
    assert.is(data(first.calls).length, 0, 'the data statement never ran');
    // The literal travels as a bound value of the EXPLAIN too.
    assert.not.ok(explains(first.calls)[0]!.sql.includes('Alpha'));
    assert.ok(explains(first.calls)[0]!.values.includes('Alpha'));
    // The same shape with another value: the remembered verdict, no statement.
    const again = await run("label eq 'beta'");
    assert.ok(isListError(again.result) && again.result.code === 'limit_exceeded');
    assert.is(again.calls.length, 0);
  });

  test('a shape under the bounds runs; its next request sends no EXPLAIN', async ({ em }) => {
    const engine = engineWith(em, { maxCost: 1e12, maxRows: 1e9 });
    const list = (filter: string) => captureDriver(() => engine.from(shelves(em)).list({ filter, sort: 'id' }));
    const first = await list("label ieq 'alpha'");
    assert.equal(
      first.result.items.map((i) => i.id),
      [1],
    );
    assert.equal([explains(first.calls).length, data(first.calls).length], [1, 1]);
    const second = await list("label ieq 'beta'");
    assert.equal(
      second.result.items.map((i) => i.id),
      [2],
    );
    assert.equal([explains(second.calls).length, data(second.calls).length], [0, 1]);
  });

  test('maxRows: a shape expected to select more rows is refused, naming the estimate', async ({ em }) => {
    const engine = engineWith(em, { maxRows: 0.5 });
    const error = await engine
      .from(shelves(em))
      .list({ filter: 'id gt 0' })
      .catch((e: unknown) => e);
    assert.ok(isListError(error) && error.code === 'limit_exceeded', String(error));
    assert.ok(/expects this request to select \d+ rows before its limit/.test(error.message), error.message);
    assert.ok(error.message.includes('planCheck.maxRows (0.5)'), error.message);
  });

  test('cacheSize bounds the remembered shapes, the least recently used forgotten first', async ({ em }) => {
    const engine = engineWith(em, { maxCost: 1e12, cacheSize: 1 });
    const explained = async (filter: string) =>
      explains((await captureDriver(() => engine.from(shelves(em)).list({ filter }))).calls).length;
    assert.is(await explained('id eq 1'), 1);
    assert.is(await explained('id eq 2'), 0);
    assert.is(await explained('rank eq 1'), 1);
    assert.is(await explained('id eq 3'), 1, 'the first shape was forgotten');
  });

  test('engines keep their own verdicts', async ({ em }) => {
    await engineWith(em, { maxCost: 1e12 }).from(shelves(em)).list({ filter: 'id eq 1' });
    const other = engineWith(em, { maxCost: 0.001 });
    const error = await other
      .from(shelves(em))
      .list({ filter: 'id eq 1' })
      .catch((e: unknown) => e);
    assert.ok(isListError(error) && error.code === 'limit_exceeded', String(error));
  });
});
