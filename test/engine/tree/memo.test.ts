/**
 * The nested levels' remembered and compiled path (the tree memo, src/engine/tree/memo.ts; compiled level statements
 * read as driver rows and written by the row writer, statement.ts and writers.ts) against the cold path (an engine
 * with `compileStatements: false`, which checks and plans every level afresh and maps rows through MikroORM): one
 * engine is sent the same request again and again (its levels are remembered from the second sending), and every
 * answer is the cold engine's exactly: the same items (values and their types, key order), every level's paging,
 * cursors and counts, and the same errors (code, parameter, position, message). Over many tree shapes on every
 * dialect, with the nested cursors the answers hand out, signed cursors under changing cursor scopes, MikroORM filter
 * parameters that change between sendings, and GraphQL edges (lists read backward; each nested page's end cursors
 * against every item's).
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { type ListContext, NESTED_CURSORS, type NestedPage } from '../../../src/engine/index.ts';
import { type EdgesOptions, edgesListerOf } from '../../../src/engine/page/edges.ts';
import { treeMemoHits } from '../../../src/engine/tree/memo.ts';
import { rowWriterOf } from '../../../src/engine/tree/writers.ts';
import { isListError } from '../../../src/errors.ts';
import { libraryEntities, libraryOptions, Review, seedLibrary, useTenant } from '../../fixtures/library.ts';
import { eachDialect } from '../../helpers/db.ts';
import { type Root, scopesOf } from './library-tree.ts';

interface Shape {
  readonly root: Root;
  readonly query: string;
}

const SHAPES: readonly Shape[] = [
  { root: 'book', query: 'fields=id,author(name),publisher(name),reviews(stars),tags(label)&sort=id' },
  { root: 'book', query: 'fields=id,title,author(name,profile(bio)),reviews(id,stars)&reviews.limit=1&sort=-id' },
  { root: 'book', query: 'fields=id,reviews(id,stars),tags(label)&reviews.count=true&tags.count=true&tags.limit=1' },
  { root: 'book', query: 'fields=id,reviews(id)&reviews.sort=stars&reviews.limit=1&reviews.offset=1&limit=4' },
  { root: 'book', query: 'fields=id,x:reviews(stars),y:reviews(id)&x.sort=stars&y.offset=1&limit=5' },
  { root: 'book', query: 'fields=id,reviews(stars)&reviews.limit=0&reviews.count=true' },
  {
    root: 'author',
    query: 'fields=id,profile(bio),books(title,reviews(stars),tags(label))&sort=id&books.limit=2&books.tags.limit=1',
  },
  { root: 'author', query: 'fields=id,books(id,reviews(stars))&books.filter=price gt 10&books.count=true' },
  { root: 'tag', query: 'fields=id,label,books(title,author(name,profile(bio)))&sort=id&books.limit=1' },
  { root: 'profile', query: 'fields=id,author(name)' },
  { root: 'review', query: 'fields=id,stars,book(title)&sort=id&limit=20' },
  // Refused before any statement, each at its own parameter and position.
  { root: 'book', query: 'fields=id,reviews(nope)' },
  { root: 'book', query: 'fields=id,reviews(stars)&reviews.limit=11' },
  { root: 'book', query: 'fields=id,reviews(stars)&reviews.cursor=abc' },
  { root: 'book', query: 'fields=id,reviews(stars)&reviews.sort=nope' },
];

type Outcome =
  | { readonly value: unknown; readonly json: string }
  | { readonly error: { code: string; parameter?: string; position?: number; message: string } };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    const value = await run();
    return { value, json: JSON.stringify(value) };
  } catch (err) {
    if (!isListError(err)) throw err;
    const { code, parameter, position, message } = err as any;
    return { error: { code, parameter, position, message } };
  }
}

function same(hot: Outcome, cold: Outcome, what: string): void {
  if ('error' in cold) {
    assert.ok('error' in hot, `${what}: the cold path refuses it`);
    assert.equal((hot as { error: unknown }).error, cold.error, what);
    return;
  }
  assert.ok('value' in hot, `${what}: ${'error' in hot ? hot.error.message : ''}`);
  const answer = hot as { value: unknown; json: string };
  // Deep equality tells a Date from a string and 1 from '1'; the JSON text holds key order.
  assert.equal(answer.value, cold.value, what);
  assert.is(answer.json, cold.json, what);
}

/** Every nested list's continuing cursors in an answer, with the query parameter each is sent under. */
function nestedCursors(items: readonly Record<string, unknown>[]): { parameter: string; cursor: string }[] {
  const out: { parameter: string; cursor: string }[] = [];
  for (const item of items)
    for (const [key, value] of Object.entries(item)) {
      const page = (value as NestedPage | null)?.page;
      if (!page) continue;
      if (page.nextCursor) out.push({ parameter: `${key}.cursor`, cursor: page.nextCursor });
      if (page.prevCursor) out.push({ parameter: `${key}.cursor`, cursor: page.prevCursor });
    }
  return out;
}

/** Send `query` to the kept engine `times` times, each answer compared with the cold engine's. */
async function sendAgain(em: EntityManager, shape: Shape, query: string, times = 4, config = {}, ctx?: ListContext) {
  const hot = scopesOf(em, shape.root, config);
  const cold = scopesOf(em, shape.root, { ...config, compileStatements: false });
  const expected = await outcome(() => cold().list(query, ctx));
  const before = treeMemoHits();
  for (let i = 0; i < times; i++) same(await outcome(() => hot().list(query, ctx)), expected, `${query} #${i + 1}`);
  return { expected, hits: treeMemoHits() - before };
}

eachDialect(
  'nested levels: remembered and compiled against cold',
  { entities: libraryEntities, seed: seedLibrary, options: libraryOptions },
  (test) => {
    for (const shape of SHAPES)
      test(`sent again = cold: ${shape.root}?${shape.query}`, async ({ em }) => {
        useTenant(em, 1);
        const { expected, hits } = await sendAgain(em, shape, shape.query);
        if (!('value' in expected)) return;
        // From the third sending (the parse memo hands the request out again from its second), unless it has a cursor.
        assert.is(hits, shape.query.includes('.cursor=') ? 0 : 2, 'memo hits');
        // Each continuation a nested cursor names: checked afresh every time (never remembered), still the same.
        const items = (expected.value as { items: Record<string, unknown>[] }).items;
        for (const { parameter, cursor } of nestedCursors(items).slice(0, 3)) {
          const continued = await sendAgain(em, shape, `${shape.query}&${parameter}=${cursor}`, 3);
          assert.is(continued.hits, 0, 'a nested cursor is checked afresh');
        }
      });

    test('the driver-row path is taken, its row writer trusted', async ({ em }) => {
      useTenant(em, 1);
      await sendAgain(em, SHAPES[0]!, SHAPES[0]!.query);
      const writer = rowWriterOf(em, em.getMetadata().get(Review));
      assert.ok(writer && [...writer.states.values()].includes('trusted'));
    });

    test('signed cursors under changing cursor scopes: each answer sealed with its own scope', async ({ em }) => {
      useTenant(em, 1);
      const config = {
        cursorSecret: 'a test secret of more than thirty-two bytes, for signing',
        cursorMode: 'signed',
      };
      const shape: Shape = { root: 'book', query: 'fields=id,reviews(id,stars)&reviews.limit=1&sort=id&limit=3' };
      const hot = scopesOf(em, shape.root, config);
      const cold = scopesOf(em, shape.root, { ...config, compileStatements: false });
      const answers = new Map<string, string>();
      for (const scope of ['a', 'b', 'a', 'c', 'b', 'a']) {
        const ctx = { cursorScope: scope };
        const expected = await outcome(() => cold().list(shape.query, ctx));
        same(await outcome(() => hot().list(shape.query, ctx)), expected, `scope ${scope}`);
        const json = (expected as { json: string }).json;
        if (answers.has(scope)) assert.is(json, answers.get(scope));
        answers.set(scope, json);
      }
      assert.is.not(answers.get('a'), answers.get('b'), 'the scopes sign differently');
    });

    test('MikroORM filter parameters changing between sendings', async ({ em }) => {
      const shape: Shape = { root: 'book', query: 'fields=id,author(name),reviews(stars),publisher(name)&sort=id' };
      const hot = scopesOf(em, shape.root);
      const cold = scopesOf(em, shape.root, { compileStatements: false });
      for (const [tenant, filters] of [
        [1, undefined],
        [2, undefined],
        [1, { highStars: true }],
        [1, undefined],
        [2, { highStars: true }],
      ] as const) {
        useTenant(em, tenant);
        const expected = await outcome(() => cold(filters).list(shape.query));
        same(
          await outcome(() => hot(filters).list(shape.query)),
          expected,
          `tenant ${tenant} ${JSON.stringify(filters)}`,
        );
      }
    });

    test('GraphQL edges: lists read backward, end cursors or none against every cursor', async ({ em }) => {
      useTenant(em, 1);
      const query = { fields: 'id,reviews(id,stars),tags(label)', 'reviews.limit': '1', 'tags.limit': '2', sort: 'id' };
      const hot = scopesOf(em, 'book');
      const cold = scopesOf(em, 'book', { compileStatements: false });
      const edges = (scoped: object, options: EdgesOptions) =>
        outcome(() => edgesListerOf<Record<string, string>, ListContext>(scoped)!(query, undefined, options));
      for (const options of [
        { backward: false },
        { backward: false, backwardLists: ['reviews'] },
        { backward: false, nestedCursors: 'ends' },
        { backward: false, backwardLists: ['tags'], nestedCursors: 'ends' },
        { backward: false, nestedCursors: 'none' },
      ] satisfies EdgesOptions[]) {
        const expected = await edges(cold(), options);
        for (let i = 0; i < 3; i++) same(await edges(hot(), options), expected, JSON.stringify(options));
      }
      // 'ends': each nested page's first and last item's cursors, as every item's list holds them.
      const all = (await edges(hot(), { backward: false })) as { value: { page: { items: any[] } } };
      const ends = (await edges(hot(), { backward: false, nestedCursors: 'ends' })) as typeof all;
      const none = (await edges(hot(), { backward: false, nestedCursors: 'none' })) as typeof all;
      all.value.page.items.forEach((item, i) => {
        for (const key of ['reviews', 'tags']) {
          const every = (item[key] as NestedPage)[NESTED_CURSORS]!;
          const two = (ends.value.page.items[i][key] as NestedPage)[NESTED_CURSORS]!;
          const expected = every.length <= 1 ? [...every] : [every[0], every.at(-1)];
          assert.equal([...two], expected, `${key} of item ${i}`);
          assert.is((none.value.page.items[i][key] as NestedPage)[NESTED_CURSORS], undefined);
        }
      });
    });
  },
);
