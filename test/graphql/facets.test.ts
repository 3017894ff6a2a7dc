/**
 * GraphQL facets: the connection's `facets` field has one field per facet name, typed as items type the field, with
 * `limit`; only the selected facets run (one statement each), cross-filtered as over REST; two selections of one
 * facet with different limits send it once with the larger; the document budget counts facet statements.
 */
import type { EntityManager } from '@mikro-orm/core';
import type { GraphQLObjectType } from 'graphql';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { graphqlSchema } from '../../src/graphql/index.ts';
import { facetable, filterable, schema, sortable } from '../../src/policy/index.ts';
import { Author, Book, libraryEntities, seedLibrary, Tag } from '../fixtures/library.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { postQuery, type ServedSchema, serveSchema } from '../helpers/graphql-serve.ts';

const f = filterable();
const s = sortable();
const policy = schema(Book)
  .expose('id', f, s)
  .expose('title', f, s)
  .expose('price', f, s, facetable())
  .relation('author', schema(Author).expose('id', f, s).expose('name', f, s), { facet: { label: 'name' } })
  .relation('tags', schema(Tag).expose('id', f, s).expose('label', f, s), { facet: true });

function booksSchema(em: EntityManager, limits?: { maxStatements: number }) {
  return graphqlSchema({
    endpoints: [
      {
        field: 'books',
        type: 'Book',
        engine: createEngine(em, { policy }),
        scope: () => ({ base: (em.fork() as any).createQueryBuilder(Book, 'b') }),
      },
    ],
    ...(limits ? { limits } : {}),
  });
}

eachDialect('graphql facets', { entities: libraryEntities, seed: seedLibrary }, (test) => {
  let served: ServedSchema;
  let tight: ServedSchema;
  test.before(async ({ db }) => {
    served = await serveSchema(booksSchema(db.orm.em.fork()));
    tight = await serveSchema(booksSchema(db.orm.em.fork(), { maxStatements: 2 }));
  });
  test.after(async () => {
    await served.close();
    await tight.close();
  });

  test('the facets type: a field per facet, values typed as items type them', async ({ db }) => {
    const built = booksSchema(db.orm.em.fork());
    const fields = (name: string) => (built.getType(name) as GraphQLObjectType).getFields();
    assert.is(String(fields('BookConnection').facets?.type), 'BookFacets!');
    assert.is(String(fields('BookFacets').price?.type), '[BookPriceFacet!]!');
    assert.equal(
      fields('BookFacets').price?.args.map((a) => `${a.name}: ${a.type}`),
      ['limit: Int'],
    );
    const shape = (name: string) => Object.values(fields(name)).map((f) => `${f.name}: ${f.type}`);
    assert.equal(shape('BookPriceFacet'), ['value: Int', 'count: Int!']);
    assert.equal(shape('BookAuthorFacet'), ['value: Int', 'count: Int!', 'label: String']);
    assert.equal(shape('BookTagsFacet'), ['value: Int', 'count: Int!']);
  });

  test('only the selected facets run, cross-filtered, with their limits', async () => {
    const { result, calls } = await captureDriver(() =>
      postQuery(
        served.url,
        `{ books(filter: "price gt 9 and author/name eq 'Ann'", first: 5) {
            nodes { id }
            facets { price(limit: 1) { value count } author { value label count } }
          } }`,
      ),
    );
    assert.is(result.errors, undefined, JSON.stringify(result.errors));
    const books = result.data.books;
    assert.equal(
      books.nodes.map((n: any) => n.id),
      [1],
    );
    assert.equal(books.facets.price, [{ value: 10, count: 1 }]);
    assert.equal(books.facets.author, [
      { value: 1, label: 'Ann', count: 1 },
      { value: 2, label: 'Bob', count: 1 },
      { value: 5, label: 'Eve', count: 1 },
      { value: null, label: null, count: 1 },
    ]);
    assert.is(calls.length, 3, 'the page and two facets; tags is not selected');
  });

  test('one facet under two aliases runs once, with the larger limit', async () => {
    const { result, calls } = await captureDriver(() =>
      postQuery(
        served.url,
        '{ books(first: 0) { facets { few: price(limit: 2) { value } many: price(limit: 4) { value } } } }',
      ),
    );
    assert.is(result.errors, undefined, JSON.stringify(result.errors));
    assert.equal(
      result.data.books.facets.few.map((b: any) => b.value),
      [5, 8],
    );
    assert.equal(
      result.data.books.facets.many.map((b: any) => b.value),
      [5, 8, 10, 12],
    );
    assert.is(calls.length, 1);
  });

  test('the document budget counts each facet as a statement', async () => {
    const { result, calls } = await captureDriver(() =>
      postQuery(tight.url, '{ books(first: 1) { nodes { id } facets { price { value } tags { value } } } }'),
    );
    assert.is(result.data?.books ?? null, null);
    assert.is(result.errors?.[0]?.extensions?.code, 'limit_exceeded');
    assert.match(result.errors?.[0]?.message ?? '', /statements/);
    assert.is(calls.length, 0);
  });
});
