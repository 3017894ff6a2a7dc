/**
 * The object form of `fields` written in code (`{ fields: ['id', { author: ['name'] }] }`) answers exactly as its
 * REST text does, nested list parameters (`'reviews.limit'`) and aliases included, and fails with the same error at
 * the same position; what only the object form can get wrong is refused before any statement. The policies are typed,
 * so the requests below also compile against them (test/types/selection.ts covers the types alone).
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type ListParameters } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { filterable, schema, selectable, sortable } from '../../src/policy/index.ts';
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

interface Pair {
  readonly name: string;
  readonly root: 'book' | 'author';
  readonly object: ListParameters;
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
    test('the object form answers with the tree written out by hand', async ({ em }) => {
      const answer = await books(em).list({
        fields: ['title', { author: ['name'] }, { reviews: ['stars'] }],
        'reviews.limit': '3',
        limit: '2',
        sort: 'id',
      });
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
    });

    for (const pair of PAIRS) {
      test(`${pair.name}: the object form answers as the text`, async ({ em }) => {
        const engine = pair.root === 'book' ? books(em) : authors(em);
        const fromText = await engine.list(pair.text);
        const fromObject = await engine.list(pair.object);
        assert.ok(fromText.items.length > 0);
        assert.equal(fromObject, fromText);
      });
    }

    test('a nested cursor of the object form continues the list the text form continues', async ({ em }) => {
      const first = await books(em).list({
        fields: ['id', { reviews: ['stars'] }],
        'reviews.limit': '1',
        filter: 'id eq 1',
      });
      const cursor = first.items[0]?.reviews.page.nextCursor;
      assert.type(cursor, 'string');
      const next = {
        fields: ['id', { reviews: ['stars'] }],
        'reviews.limit': '1',
        'reviews.cursor': cursor,
        filter: 'id eq 1',
      } as const;
      const fromObject = await books(em).list(next);
      const fromText = await books(em).list(
        `fields=id,reviews(stars)&reviews.limit=1&reviews.cursor=${cursor}&filter=id eq 1`,
      );
      assert.equal(fromObject, fromText);
      assert.equal(fromObject.items[0]?.reviews.items, [{ id: 2, stars: 3 }]);
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
      test(`the object form fails as ${text} does`, async ({ em }) => {
        const fromText = await books(em)
          .list(text)
          .catch((e: unknown) => e);
        const { result: fromObject, calls } = await captureDriver(() =>
          books(em)
            .list(object as never)
            .catch((e: unknown) => e),
        );
        if (!isListError(fromText) || !isListError(fromObject))
          throw new Error(`expected ListErrors: ${String(fromObject)}`);
        assert.equal(fromObject.toJSON(), fromText.toJSON());
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
        const { result, calls } = await captureDriver(() =>
          books(em)
            .list({ fields } as never)
            .catch((e: unknown) => e),
        );
        if (!isListError(result)) throw new Error(`expected a ListError, got ${String(result)}`);
        assert.equal([result.code, result.parameter, result.position?.offset], ['invalid_parameter', 'fields', offset]);
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
