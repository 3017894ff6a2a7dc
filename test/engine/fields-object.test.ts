/**
 * Fields in the object form (`['id', { author: ['name'] }]`), given to select() or as `fields` of a request written in
 * code, answer exactly as their REST text does, nested list parameters (`'reviews.limit'`) and aliases included, and
 * fail with the same error at the same position; what only the object form can get wrong is refused before any
 * statement, and a selected scope refuses a request with `fields` of its own. The policies are typed, so the
 * selections below also compile against them (test/types/selection.ts covers the types alone).
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import {
  createEngine,
  type ListParameters,
  type Page,
  type ScopedEngine,
  type SelectedRequest,
  type SelectedScope,
} from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { filterable, schema, selectable, sortable } from '../../src/policy/index.ts';
import type { FieldsObject } from '../../src/syntax/fields-object.ts';
import { Author, Book, libraryEntities, libraryOptions, Review, seedLibrary, Tag } from '../fixtures/library.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

const f = filterable();
const s = sortable();
const tagPolicy = schema(Tag).expose('id', f, s).expose('label', f, s);
const reviewPolicy = schema(Review).expose('id', f, s).expose('stars', f, s);
const reviewList = selectable({ maxLimit: 10, defaultLimit: 2, defaultSort: '-stars', allowCount: true });
const bookPolicy = schema(Book)
  .expose('id', f, s)
  .expose('title', f, s)
  .expose('price', f, s)
  .relation('author', schema(Author).expose('id', f, s).expose('name', f, s), selectable())
  .relation('reviews', reviewPolicy, reviewList)
  .relation('tags', tagPolicy, selectable({ allowCount: true }));
const authorPolicy = schema(Author)
  .expose('id', f, s)
  .expose('name', f, s)
  .relation(
    'books',
    schema(Book)
      .expose('id', f, s)
      .expose('title', f, s)
      .relation('reviews', reviewPolicy, reviewList)
      .relation('tags', tagPolicy, selectable()),
    selectable({ defaultSort: 'id', allowCount: true }),
  );

const books = (em: EntityManager) =>
  createEngine(em, { policy: bookPolicy, allowCount: true }).from((em as any).createQueryBuilder(Book, 'b'));
const authors = (em: EntityManager) =>
  createEngine(em, { policy: authorPolicy }).from((em as any).createQueryBuilder(Author, 'a'));

/**
 * A table's selection given to select(), and its request: the tables hold selections and parameters as values, whose
 * types the selections written out in test/types/selection.ts check.
 */
const selectOn = (scoped: ScopedEngine<any, any, any>, fields: FieldsObject): SelectedScope =>
  (scoped as unknown as { select(fields: FieldsObject): SelectedScope }).select(fields);

/** The request of a table's object form without its `fields`, for the selected scope. */
function withoutFields(object: ListParameters): SelectedRequest {
  const { fields: _fields, ...rest } = object;
  return rest;
}

interface Pair {
  readonly name: string;
  readonly root: 'book' | 'author';
  readonly object: ListParameters & { readonly fields: FieldsObject };
  readonly text: string;
}

const PAIRS: readonly Pair[] = [
  {
    name: 'names, a to-one and a to-many',
    root: 'book',
    object: { fields: ['id', 'title', { author: ['name'] }, { reviews: ['stars'] }], sort: 'id' },
    text: 'fields=id,title,author(name),reviews(stars)&sort=id',
  },
  {
    name: 'two relations in one object, a bare to-one key',
    root: 'book',
    object: { fields: ['title', 'author', { reviews: ['id'], tags: ['label'] }], sort: '-id', limit: '3' },
    text: 'fields=title,author,reviews(id),tags(label)&sort=-id&limit=3',
  },
  {
    name: 'nested list parameters by path',
    root: 'book',
    object: {
      fields: ['id', { reviews: ['stars'] }, { tags: ['label'] }],
      'reviews.limit': '1',
      'reviews.sort': 'stars',
      'reviews.count': 'true',
      'tags.filter': "label ne 'blue'",
      sort: 'id',
    },
    text: "fields=id,reviews(stars),tags(label)&reviews.limit=1&reviews.sort=stars&reviews.count=true&tags.filter=label ne 'blue'&sort=id",
  },
  {
    name: 'aliases, each with its own parameters',
    root: 'book',
    object: {
      fields: ['id', { best: { reviews: ['stars'] } }, { worst: { reviews: ['stars'] } }],
      'best.limit': '1',
      'worst.limit': '1',
      'worst.sort': 'stars',
      'worst.filter': 'stars is not null',
      sort: 'id',
    },
    text: 'fields=id,best:reviews(stars),worst:reviews(stars)&best.limit=1&worst.limit=1&worst.sort=stars&worst.filter=stars is not null&sort=id',
  },
  {
    name: 'two levels down, parameters on the deeper path',
    root: 'author',
    object: {
      fields: ['name', { books: ['title', { reviews: ['stars'] }, { tags: ['label'] }] }],
      'books.limit': '2',
      'books.reviews.limit': '1',
      'books.count': 'true',
      sort: 'id',
    },
    text: 'fields=name,books(title,reviews(stars),tags(label))&books.limit=2&books.reviews.limit=1&books.count=true&sort=id',
  },
];

const ann = { id: 1, name: 'Ann' };

eachDialect(
  'fields in the object form',
  { entities: libraryEntities, seed: seedLibrary, options: libraryOptions },
  (test) => {
    test('a selected scope answers with the tree written out by hand, as list() with the same fields', async ({
      em,
    }) => {
      const request = { 'reviews.limit': '3', limit: '2', sort: 'id' } as const;
      const answer = await books(em)
        .select(['title', { author: ['name'] }, { reviews: ['stars'] }])
        .list(request);
      const reviewsOf = (items: { id: number; stars: number | null }[]) => ({
        items,
        page: { limit: 3, offset: 0, hasMore: false },
      });
      assert.equal(answer.items, [
        {
          id: 1,
          title: 'Alpha',
          author: ann,
          reviews: reviewsOf([
            { id: 1, stars: 5 },
            { id: 2, stars: 3 },
          ]),
        },
        {
          id: 2,
          title: 'Beta',
          author: ann,
          reviews: reviewsOf([
            { id: 4, stars: 4 },
            { id: 3, stars: null },
          ]),
        },
      ]);
      // The items are typed by the selection: these compile, and hold what the answer holds.
      const first = answer.items[0];
      assert.equal([first?.author?.name, first?.reviews.items.length, first?.reviews.page.limit], ['Ann', 2, 3]);
      // list() takes the same fields in a request (its items typed as the entity's), and answers the same.
      const listed = await books(em).list({
        ...request,
        fields: ['title', { author: ['name'] }, { reviews: ['stars'] }],
      });
      assert.equal(listed, answer);
    });

    for (const pair of PAIRS) {
      test(`${pair.name}: the object form answers as the text, in select() and in list()`, async ({ em }) => {
        const engine = pair.root === 'book' ? books(em) : authors(em);
        const fromText = await engine.list(pair.text);
        const fromObject = await engine.list(pair.object);
        const fromSelected = await selectOn(engine, pair.object.fields).list(withoutFields(pair.object));
        assert.ok(fromText.items.length > 0);
        assert.equal(fromObject, fromText);
        assert.equal(fromSelected, fromText);
      });
    }

    test('a nested cursor of a selected scope continues the list the text form continues', async ({ em }) => {
      const reviews = books(em).select(['id', { reviews: ['stars'] }]);
      const first = await reviews.list({ 'reviews.limit': '1', filter: 'id eq 1' });
      const cursor = first.items[0]?.reviews.page.nextCursor;
      assert.type(cursor, 'string');
      const fromObject = await reviews.list({ 'reviews.limit': '1', 'reviews.cursor': cursor, filter: 'id eq 1' });
      const fromText = await books(em).list(
        `fields=id,reviews(stars)&reviews.limit=1&reviews.cursor=${cursor}&filter=id eq 1`,
      );
      assert.equal(fromObject, fromText);
      assert.equal(fromObject.items[0]?.reviews.items, [{ id: 2, stars: 3 }]);
    });

    test("a selected scope's pages(), items() and explain() are the scope's with the selection as fields", async ({
      em,
    }) => {
      const text = 'fields=title,reviews(stars)&reviews.limit=1&sort=-id';
      const selected = books(em).select(['title', { reviews: ['stars'] }]);
      const request = { 'reviews.limit': '1', sort: '-id' } as const;
      const walk = async <T>(pages: AsyncGenerator<Page<T>, void, undefined>) => {
        const all: Page<T>[] = [];
        for await (const page of pages) all.push(page);
        return all;
      };
      const pages = await walk(selected.pages(request, undefined, { pageSize: 2 }));
      assert.equal(pages, await walk(books(em).pages(text, undefined, { pageSize: 2 })));
      assert.ok(pages.length > 1);
      const items = [];
      for await (const item of selected.items(request, undefined, { pageSize: 2 })) items.push(item.reviews.items);
      assert.equal(
        items,
        pages.flatMap((page) => page.items.map((item) => item.reviews.items)),
      );
      assert.equal(await selected.explain(request), await books(em).explain(text));
      assert.equal(await books(em).select(['title']).list(), await books(em).list('fields=title'));
    });

    test('a selected scope refuses a request with fields of its own, before any statement and never synchronously', async ({
      em,
    }) => {
      const titles = selectOn(books(em), ['title']);
      const own = { fields: 'title,price' } as unknown as SelectedRequest;
      const expectRefused = (err: unknown) => {
        if (!isListError(err)) throw new Error(`expected a ListError, got ${String(err)}`);
        assert.equal([err.code, err.parameter, err.position?.offset], ['invalid_parameter', 'fields', 0]);
      };
      const { calls } = await captureDriver(async () => {
        expectRefused(await titles.list(own).catch((e: unknown) => e));
        expectRefused(
          await titles.explain({ fields: ['price'] } as unknown as SelectedRequest).catch((e: unknown) => e),
        );
        const pages = titles.pages(own);
        expectRefused(await pages.next().catch((e: unknown) => e));
        const items = titles.items(own);
        expectRefused(await items.next().catch((e: unknown) => e));
      });
      assert.is(calls.length, 0);
      // `fields: undefined` is an absent key, as in any request.
      assert.equal(await titles.list({ fields: undefined }), await books(em).list('fields=title'));
    });

    const SAME_ERRORS: readonly [ListParameters, string][] = [
      [{ fields: ['id', 'titel'] }, 'fields=id,titel'],
      [{ fields: ['id', { author: ['nam'] }] }, 'fields=id,author(nam)'],
      [{ fields: ['id', { author: [] }] }, 'fields=id,author()'],
      [{ fields: ['id', 'id'] }, 'fields=id,id'],
      [{ fields: ['reviews'] }, 'fields=reviews'],
      [{ fields: ['id', { a: { reviews: ['id'] } }, { a: { tags: ['id'] } }] }, 'fields=id,a:reviews(id),a:tags(id)'],
      [{ fields: ['id'], 'reviews.limit': '2' }, 'fields=id&reviews.limit=2'],
      [{ fields: ['id', { author: ['name'] }], 'author.limit': '2' }, 'fields=id,author(name)&author.limit=2'],
      [{ fields: ['id', { reviews: ['id'] }], 'reviews.limit': '99' }, 'fields=id,reviews(id)&reviews.limit=99'],
    ];
    for (const [object, text] of SAME_ERRORS) {
      test(`the object form fails as ${text} does, in select() and in list()`, async ({ em }) => {
        const fromText = await books(em)
          .list(text)
          .catch((e: unknown) => e);
        if (!isListError(fromText)) throw new Error(`expected a ListError: ${String(fromText)}`);
        const { result: selected, calls } = await captureDriver(async () => {
          // select() itself checks nothing at run time: the engine checks the selection at each request.
          const scope = selectOn(books(em), object.fields as FieldsObject);
          const listed = await books(em)
            .list(object)
            .catch((e: unknown) => e);
          return [listed, await scope.list(withoutFields(object)).catch((e: unknown) => e)];
        });
        for (const fromObject of selected) {
          if (!isListError(fromObject)) throw new Error(`expected a ListError: ${String(fromObject)}`);
          assert.equal(fromObject.toJSON(), fromText.toJSON());
        }
        assert.is(calls.length, 0);
      });
    }

    const OBJECT_ERRORS: readonly [unknown, number][] = [
      [['id,title'], 0],
      [['id', { author: 'name' }], 3],
      [['id', { best: { reviews: ['id'], tags: ['id'] } }], 3],
      [['title', 5], 6],
    ];
    for (const [fields, offset] of OBJECT_ERRORS) {
      test(`fields ${JSON.stringify(fields)} is invalid_parameter at ${offset}, before any statement`, async ({
        em,
      }) => {
        const { result, calls } = await captureDriver(async () => [
          await books(em)
            .list({ fields } as never)
            .catch((e: unknown) => e),
          await selectOn(books(em), fields as FieldsObject)
            .list()
            .catch((e: unknown) => e),
        ]);
        for (const err of result) {
          if (!isListError(err)) throw new Error(`expected a ListError, got ${String(err)}`);
          assert.equal([err.code, err.parameter, err.position?.offset], ['invalid_parameter', 'fields', offset]);
        }
        assert.is(calls.length, 0);
      });
    }

    test('a request of values keeps its meaning: fields given twice is refused, not joined', async ({ em }) => {
      const err = await books(em)
        .list(new URLSearchParams('fields=id&fields=title'))
        .catch((e: unknown) => e);
      assert.ok(isListError(err));
      assert.equal([err.code, err.parameter], ['invalid_parameter', 'fields']);
    });
  },
);
