/**
 * The nested levels' fast paths answer as their slow ones, over several tree shapes on every dialect:
 * - levels run side by side (PostgreSQL and MariaDB outside a transaction) against the same request inside a
 *   transaction, where they run one after another: the same JSON, keys in the same order, and the same statements
 *   with the same bound values (in any order);
 * - compiled level statements (the default) against `compileStatements: false`, which plans every level afresh
 *   (both in a transaction, so in the same order): the same JSON, the same statements, each with the same distinct
 *   values (a compiled statement pads its parent keys to a few lengths by repeating the last one).
 * And the lanes bound how many level statements are in flight at once.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { MAX_LANES, treeLanes } from '../../../src/engine/tree/index.ts';
import { Lanes } from '../../../src/engine/tree/run.ts';
import { parseHTTP } from '../../../src/syntax/index.ts';
import { libraryEntities, libraryOptions, seedLibrary, useTenant } from '../../fixtures/library.ts';
import { captureDriver, type DriverCall } from '../../helpers/capture.ts';
import { eachDialect } from '../../helpers/db.ts';
import { engineOf, type Root } from './library-tree.ts';

interface Shape {
  readonly root: Root;
  readonly query: string;
}

const SHAPES: readonly Shape[] = [
  { root: 'book', query: 'fields=id,author(name),publisher(name),reviews(stars),tags(label)&sort=id' },
  {
    root: 'book',
    query:
      'fields=id,title,author(name,profile(bio)),reviews(id,stars),tags(label)&reviews.count=true&reviews.limit=1&tags.count=true&sort=-id',
  },
  {
    root: 'author',
    query:
      'fields=id,profile(bio),books(title,reviews(stars),tags(label))&sort=id&limit=5&books.limit=5&books.tags.limit=3&books.count=true',
  },
  { root: 'author', query: 'fields=id,books(id,reviews(stars))&books.filter=price gt 10&books.count=true' },
  { root: 'tag', query: 'fields=id,label,books(title,author(name,profile(bio)))&sort=id' },
  { root: 'review', query: 'fields=id,stars,book(title)&sort=id&limit=20' },
  { root: 'book', query: 'fields=id,x:reviews(stars),y:reviews(id)&x.sort=stars&y.offset=1&limit=5' },
];

/** What a statement sent: its text and values, in one comparable string. */
const sent = (call: DriverCall) => JSON.stringify([call.sql, call.values]);

async function answer(em: EntityManager, shape: Shape, config: Record<string, unknown> = {}) {
  const { result, calls } = await captureDriver(() => engineOf(em, shape.root, undefined, config).list(shape.query));
  return { json: JSON.stringify(result), calls };
}

eachDialect(
  'nested levels: fast paths against slow ones',
  { entities: libraryEntities, seed: seedLibrary, options: libraryOptions },
  (test) => {
    for (const shape of SHAPES) {
      test(`side by side = one after another: ${shape.root}?${shape.query}`, async ({ em }) => {
        useTenant(em, 1);
        const free = await answer(em, shape);
        const held = await em.transactional((tx) => {
          useTenant(tx, 1);
          return answer(tx, shape);
        });
        assert.ok(free.calls.length > 1, 'the shape sends its levels');
        assert.is(free.json, held.json);
        assert.equal(free.calls.map(sent).sort(), held.calls.map(sent).sort());
      });

      test(`compiled = planned afresh: ${shape.root}?${shape.query}`, async ({ em }) => {
        // In a transaction the levels run one after another: both send their statements in the same order.
        const { compiled, cold } = await em.transactional(async (tx) => {
          useTenant(tx, 1);
          await answer(tx, shape); // compiles the shape
          return { compiled: await answer(tx, shape), cold: await answer(tx, shape, { compileStatements: false }) };
        });
        assert.is(compiled.json, cold.json);
        assert.is(compiled.calls.length, cold.calls.length);
        compiled.calls.forEach((call, i) => {
          const other = cold.calls[i]!;
          const distinct = (values: readonly unknown[]) => [...new Set(values.map((v) => JSON.stringify(v)))].sort();
          assert.equal(distinct(call.values), distinct(other.values), `values of statement ${i}`);
          // The same statement but for the number of parent key placeholders (`+?` each on SQLite).
          const text = (sql: string) =>
            sql
              .replace(/\$\d+/g, '?')
              .replace(/\+\?(, \+\?)+/g, '+?')
              .replace(/\?(, \?)+/g, '?')
              .replace(/\(\?\)(, \(\?\))+/g, '(?)');
          assert.is(text(call.sql), text(other.sql), `text of statement ${i}`);
        });
      });
    }
  },
);

eachDialect('nested levels: lanes', { entities: libraryEntities, seed: seedLibrary }, (test, dialect) => {
  test('a request takes a lane per sibling level, at most MAX_LANES; none on SQLite', () => {
    const fields = (text: string) => parseHTTP(`fields=${text}`).fields;
    assert.is(treeLanes(fields('id,title'), false), 1);
    assert.is(treeLanes(fields('id,author(name),reviews(stars)'), false), 2);
    assert.is(treeLanes(fields('id,author(name,profile(bio),books(id),x:books(id))'), false), 3);
    assert.is(treeLanes(fields('a(b),c(d),e(f),g(h),i(j),k(l)'), false), MAX_LANES);
    assert.is(treeLanes(fields('a(b),c(d)'), true), 1);
    assert.is(treeLanes(undefined, dialect === 'sqlite'), 1);
  });

  test('lanes hold at most their size of work at once, and every piece runs', async () => {
    const lanes = new Lanes(2);
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await Promise.all(
      [0, 1, 2, 3, 4].map((n) =>
        lanes.hold(async () => {
          running++;
          most = Math.max(most, running);
          await new Promise((resolve) => setTimeout(resolve, 5 - n));
          running--;
          done.push(n);
        }),
      ),
    );
    assert.is(most, 2);
    assert.equal([...done].sort(), [0, 1, 2, 3, 4]);
    assert.ok(!new Lanes(1).parallel);
  });
});
