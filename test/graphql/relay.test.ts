/**
 * `graphqlSchema({ relay: true })`: a `Node` interface every endpoint's type implements, a global `id: ID!` on every
 * node type (the policy's `id` field becomes `rowId`), and `node(id:)` reading one object through its endpoint's
 * engine (same scope and policy), nested selections included, priced by the document budget like a root field.
 * Nested types are named `<Type><Relation>`; a clash is a TypeError at graphqlSchema(). graphql-http's audits pass.
 */

import { graphql } from 'graphql';
import { serverAudits } from 'graphql-http';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { graphqlSchema, printSchema } from '../../src/graphql/index.ts';
import { filterable, schema, selectable } from '../../src/policy/index.ts';
import { Author, Book, libraryEntities, libraryOptions, seedLibrary } from '../fixtures/library.ts';
import { eachDialect } from '../helpers/db.ts';
import { serveSchema } from '../helpers/graphql-serve.ts';
import { authorTreePolicy, bookTreePolicy, run, treeSchema } from './tree-schema.ts';

const id = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

eachDialect('graphql-relay', { entities: libraryEntities, seed: seedLibrary, options: libraryOptions }, (test) => {
  test('every node type has a global id; node(id:) reads an object with its nested selection', async ({ em }) => {
    const schema = treeSchema(em, { relay: true });
    const listed = await run(schema, '{ books(sort: "id", first: 2) { nodes { id rowId author { id rowId } } } }');
    assert.is(listed.answer.errors, undefined, JSON.stringify(listed.answer.errors));
    assert.equal(listed.answer.data.books.nodes, [
      { id: id('Book:1'), rowId: 1, author: { id: id('BookAuthor:1'), rowId: 1 } },
      { id: id('Book:2'), rowId: 2, author: { id: id('BookAuthor:1'), rowId: 1 } },
    ]);
    const { answer, calls } = await run(
      schema,
      `query($id: ID!) { node(id: $id) { id __typename ... on Book { title author { name }
          reviews(first: 1, sort: "-stars") { totalCount nodes { stars } } } } }`,
      { id: id('Book:1') },
    );
    assert.is(answer.errors, undefined, JSON.stringify(answer.errors));
    assert.equal(answer.data.node, {
      id: id('Book:1'),
      __typename: 'Book',
      title: 'Alpha',
      author: { name: 'Ann' },
      reviews: { totalCount: 2, nodes: [{ stars: 5 }] },
    });
    // The object, its author, its reviews and their count.
    assert.is(calls.length, 4);
    assert.ok(calls[0]!.values.map(String).includes('1'), 'the key is a bound value');
  });

  test('node(id:) of an author continues one parent’s nested list; another type is another endpoint', async ({
    em,
  }) => {
    const schema = treeSchema(em, { relay: true });
    const source = `query($id: ID!, $after: String) { node(id: $id) { ... on Author { name
        books(first: 1, sort: "id", after: $after) { nodes { title } pageInfo { hasNextPage endCursor } } } } }`;
    const first = await run(schema, source, { id: id('Author:3') });
    assert.is(first.answer.errors, undefined, JSON.stringify(first.answer.errors));
    assert.equal(first.answer.data.node.books.nodes, [{ title: 'Delta' }]);
    assert.is(first.answer.data.node.books.pageInfo.hasNextPage, true);
    const next = await run(schema, source, {
      id: id('Author:3'),
      after: first.answer.data.node.books.pageInfo.endCursor,
    });
    assert.equal(next.answer.data.node, {
      name: 'Cid',
      books: { nodes: [{ title: 'Theta' }], pageInfo: next.answer.data.node.books.pageInfo },
    });
    assert.is(next.answer.data.node.books.pageInfo.hasNextPage, false);
  });

  test('ids the scope does not see, of no endpoint, or that are not ids', async ({ em }) => {
    const schema = treeSchema(em, { relay: true });
    const node = (value: string) => run(schema, 'query($id: ID!) { node(id: $id) { id } }', { id: value });
    // Book 7 is tenant 2's, book 6 is soft-deleted, BookAuthor is a nested type, Nope no type at all.
    for (const unseen of ['Book:7', 'Book:6', 'Book:99', 'BookAuthor:1', 'Nope:1']) {
      const { answer } = await node(id(unseen));
      assert.is(answer.errors, undefined, `${unseen}: ${JSON.stringify(answer.errors)}`);
      assert.is(answer.data.node, null, unseen);
    }
    for (const bad of ['', 'not an id!', id('Book'), id("Book:1' or 1=1"), id('Book:1.5.5'), `${id('Book:1')}=`]) {
      const { answer, calls } = await node(bad);
      assert.is(calls.length, 0, bad);
      assert.equal(answer.errors?.[0]?.extensions, { code: 'invalid_parameter', parameter: 'id' }, bad);
      assert.is(answer.data?.node, null);
    }
  });

  test('node(id:) counts in the document budget', async ({ em }) => {
    const source = `{ node(id: "${id('Book:1')}") { ... on Book { author { name } reviews { totalCount } } } }`;
    const over = await run(treeSchema(em, { relay: true, limits: { maxStatements: 3 } }), source);
    assert.is(over.calls.length, 0);
    assert.equal(over.answer.errors?.[0]?.extensions, { code: 'limit_exceeded', limit: 'maxStatements' });
    const fits = await run(treeSchema(em, { relay: true, limits: { maxStatements: 4 } }), source);
    assert.is(fits.answer.errors, undefined, JSON.stringify(fits.answer.errors));
    assert.equal(fits.answer.data.node, { author: { name: 'Ann' }, reviews: { totalCount: 2 } });
  });

  test('schema: nested types named <Type><Relation>, a clash refused, a key node(id:) cannot filter refused', ({
    em,
  }) => {
    const sdl = printSchema(treeSchema(em, { relay: true }));
    for (const line of [
      'type Book implements Node {',
      'author: BookAuthor',
      'authorId: Int!',
      'interface Node {',
      'node(id: ID!): Node',
      'type BookAuthorBooksReviews {',
      'type AuthorBooksConnection {',
      'rowId: Int!',
    ])
      assert.ok(sdl.includes(line), line);
    assert.match(sdl, /reviews\(\n[\s\S]*?\): BookReviewsConnection!/);
    const plain = printSchema(treeSchema(em));
    assert.not.ok(plain.includes('interface Node'));
    assert.not.ok(plain.includes('rowId'));
    const books = createEngine(em, { policy: bookTreePolicy });
    const authors = createEngine(em, { policy: authorTreePolicy });
    const scope = () => ({ base: (em as any).createQueryBuilder(Book, 'b') });
    assert.throws(
      () =>
        graphqlSchema({
          endpoints: [
            { field: 'books', type: 'Book', engine: books, scope },
            { field: 'writers', type: 'BookAuthor', engine: authors, scope },
          ],
        }),
      (err: unknown) => err instanceof TypeError && /BookAuthor/.test(err.message) && /Book\.author/.test(err.message),
    );
    const unfilterable = createEngine(em, {
      policy: schema(Author)
        .expose('id')
        .expose('name', filterable())
        .relation('books', schema(Book).expose('id'), selectable()),
    });
    const relay = () =>
      graphqlSchema({ relay: true, endpoints: [{ field: 'authors', type: 'Author', engine: unfilterable, scope }] });
    assert.throws(relay, (err: unknown) => err instanceof TypeError && /key id/.test(err.message));
    graphqlSchema({ endpoints: [{ field: 'authors', type: 'Author', engine: unfilterable, scope }] });
  });

  test('graphql-http serves the relay schema and passes its audits', async ({ em }) => {
    const served = await serveSchema(treeSchema(em, { relay: true }));
    try {
      const must = serverAudits({ url: served.url }).filter((a) => a.name.startsWith('MUST'));
      const failures: string[] = [];
      for (const audit of must) {
        const result = await audit.fn();
        if (result.status !== 'ok') failures.push(`${audit.name}: ${result.reason}`);
      }
      assert.equal(failures, []);
      const res = await graphql({
        schema: treeSchema(em, { relay: true }),
        source: '{ __type(name: "Node") { kind } }',
      });
      assert.equal(JSON.parse(JSON.stringify(res.data)).__type, { kind: 'INTERFACE' });
    } finally {
      await served.close();
    }
  });
});
