/**
 * Nested selection in GraphQL: selectable relations are object fields (to-one) and connection fields (to-many, with
 * filter, sort, first/after, last/before, offset and totalCount per parent). A root field's whole selection (nested
 * fields at every depth, aliases with their own arguments, fragments, inline fragments, @skip/@include, variables)
 * is one engine request: one statement per level, never per parent, counted by the document budget before any SQL.
 * Errors of nested arguments keep the REST codes and name the argument by its path of response keys.
 */
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { filterable, schema } from '../../src/policy/index.ts';
import { Book, libraryEntities, libraryOptions, Review, seedLibrary } from '../fixtures/library.ts';
import { eachDialect } from '../helpers/db.ts';
import { type Answer, bookTreePolicy, run, treeSchema } from './tree-schema.ts';

/** Assert an answer has no error and return its data. */
function ok(answer: Answer): any {
  assert.is(answer.errors, undefined, JSON.stringify(answer.errors));
  return answer.data;
}

/** Assert an answer is exactly one error with these extensions, and nothing ran. */
function failed(answer: Answer, calls: readonly unknown[], extensions: Record<string, unknown>): void {
  assert.is(calls.length, 0, 'no statement runs');
  assert.is(answer.errors?.length, 1, JSON.stringify(answer.errors));
  const got = answer.errors![0]!.extensions ?? {};
  for (const [key, value] of Object.entries(extensions))
    assert.equal(got[key], value, `${key}: ${JSON.stringify(got)}`);
}

eachDialect('graphql-nested', { entities: libraryEntities, seed: seedLibrary, options: libraryOptions }, (test) => {
  test('to-one objects and to-many connections with arguments and totalCount per parent, one statement per level', async ({
    em,
  }) => {
    const { answer, calls } = await run(
      treeSchema(em),
      `{ books(sort: "id", first: 3) { nodes { id title author { id name profileId }
          reviews(first: 1, sort: "-stars") { totalCount nodes { id stars } pageInfo { hasNextPage hasPreviousPage } } } } }`,
    );
    const reviews = (totalCount: number, id: number, stars: number, hasNextPage: boolean) => ({
      totalCount,
      nodes: [{ id, stars }],
      pageInfo: { hasNextPage, hasPreviousPage: false },
    });
    assert.equal(ok(answer).books.nodes, [
      { id: 1, title: 'Alpha', author: { id: 1, name: 'Ann', profileId: 1 }, reviews: reviews(2, 1, 5, true) },
      { id: 2, title: 'Beta', author: { id: 1, name: 'Ann', profileId: 1 }, reviews: reviews(2, 4, 4, true) },
      // Bob's profile is soft-deleted: its key is still the row's.
      { id: 3, title: 'Gamma', author: { id: 2, name: 'Bob', profileId: 2 }, reviews: reviews(1, 6, 5, false) },
    ]);
    // The page, the authors, the reviews and their counts: four statements for three books.
    assert.is(calls.length, 4, calls.map((c) => c.sql).join('\n'));
  });

  test('a missing or soft-deleted related row is null, an empty list is empty; the key beside the object', async ({
    em,
  }) => {
    const { answer } = await run(
      treeSchema(em),
      `{ books(filter: "id in (4, 5)", sort: "id") { nodes { id authorId author { name profileId } reviews { nodes { id } }
          tags { nodes { label } } } } }`,
    );
    assert.equal(ok(answer).books.nodes, [
      { id: 4, authorId: 3, author: { name: 'Cid', profileId: null }, reviews: { nodes: [] }, tags: { nodes: [] } },
      { id: 5, authorId: 4, author: null, reviews: { nodes: [] }, tags: { nodes: [] } },
    ]);
  });

  test('aliases select one relation twice with different arguments; an alias may take a key name', async ({ em }) => {
    const { answer, calls } = await run(
      treeSchema(em),
      `{ books(filter: "id eq 1") { nodes {
          best: reviews(first: 1, sort: "-stars") { nodes { stars } }
          worst: reviews(first: 1, sort: "stars") { nodes { stars } }
          all: reviews { totalCount }
          id: author { name } title } } }`,
    );
    assert.equal(ok(answer).books.nodes, [
      {
        best: { nodes: [{ stars: 5 }] },
        worst: { nodes: [{ stars: 3 }] },
        all: { totalCount: 2 },
        id: { name: 'Ann' },
        title: 'Alpha',
      },
    ]);
    // The page, three lists, one count, the author.
    assert.is(calls.length, 6, calls.map((c) => c.sql).join('\n'));
  });

  test('fragments, inline fragments, variables and @include decide what is fetched', async ({ em }) => {
    const schema = treeSchema(em);
    const source = `query Q($n: Int, $withAuthor: Boolean!, $f: String) {
        books(filter: $f) { ...Parts nodes { ... on Book { reviews(first: $n) { nodes { id } } } } } }
      fragment Parts on BookConnection { nodes { id author @include(if: $withAuthor) { ...Who } } }
      fragment Who on BookAuthor { name }`;
    const without = await run(schema, source, { n: 1, withAuthor: false, f: 'id eq 8' });
    assert.equal(ok(without.answer).books.nodes, [{ id: 8, reviews: { nodes: [{ id: 8 }] } }]);
    assert.is(without.calls.length, 2, 'no statement for the skipped author');
    const withAuthor = await run(schema, source, { n: 2, withAuthor: true, f: 'id eq 8' });
    assert.equal(ok(withAuthor.answer).books.nodes, [
      { id: 8, author: { name: 'Cid' }, reviews: { nodes: [{ id: 8 }, { id: 9 }] } },
    ]);
    assert.is(withAuthor.calls.length, 3);
  });

  test('deep nesting: authors, their books (counted), their reviews (the relation default sort)', async ({ em }) => {
    const schema = treeSchema(em);
    const { answer, calls } = await run(
      schema,
      `{ authors(sort: "id") { nodes { name books(sort: "id") { totalCount edges { node { title
          reviews { nodes { id stars } } } } } } } }`,
    );
    const book = (title: string, reviews: [number, number | null][]) => ({
      node: { title, reviews: { nodes: reviews.map(([id, stars]) => ({ id, stars })) } },
    });
    assert.equal(ok(answer).authors.nodes, [
      {
        name: 'Ann',
        books: {
          totalCount: 2,
          edges: [
            book('Alpha', [
              [1, 5],
              [2, 3],
            ]),
            book('Beta', [
              [4, 4],
              [3, null],
            ]),
          ],
        },
      },
      { name: 'Bob', books: { totalCount: 1, edges: [book('Gamma', [[6, 5]])] } },
      {
        name: 'Cid',
        books: {
          totalCount: 2,
          edges: [
            book('Delta', []),
            book('Theta', [
              [9, 5],
              [8, 1],
            ]),
          ],
        },
      },
    ]);
    assert.is(calls.length, 4, calls.map((c) => c.sql).join('\n'));
    const three = await run(
      schema,
      '{ books(filter: "id eq 3") { nodes { author { name books { nodes { title reviews { nodes { stars } } } } } } } }',
    );
    assert.equal(ok(three.answer).books.nodes, [
      { author: { name: 'Bob', books: { nodes: [{ title: 'Gamma', reviews: { nodes: [{ stars: 5 }] } }] } } },
    ]);
  });

  test('a nested list pages forward through its pageInfo and edge cursors, per parent', async ({ em }) => {
    const schema = treeSchema(em);
    const page = async (args: string) => {
      const { answer } = await run(
        schema,
        `{ authors(filter: "id eq 3") { nodes { books(${args}) { edges { cursor node { id } }
            pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } } }`,
      );
      return ok(answer).authors.nodes[0].books;
    };
    const first = await page('first: 1, sort: "id"');
    assert.equal(
      first.edges.map((e: any) => e.node.id),
      [4],
    );
    assert.is(first.pageInfo.hasNextPage, true);
    assert.is(first.pageInfo.hasPreviousPage, false);
    assert.is(first.pageInfo.endCursor, first.edges[0].cursor);
    const second = await page(`first: 1, sort: "id", after: "${first.pageInfo.endCursor}"`);
    assert.equal(
      second.edges.map((e: any) => e.node.id),
      [8],
    );
    assert.is(second.pageInfo.hasNextPage, false);
    assert.is(second.pageInfo.hasPreviousPage, true);
    // A cursor of another sort is refused before any statement, named after its argument.
    const other = await run(
      schema,
      `{ authors(filter: "id eq 3") { nodes { books(sort: "-id", after: "${first.pageInfo.endCursor}") { nodes { id } } } } }`,
    );
    failed(other.answer, other.calls, { code: 'invalid_cursor', parameter: 'books.after' });
  });

  test('a nested list pages backward with last and before, as the top level does', async ({ em }) => {
    const schema = treeSchema(em);
    const page = async (args: string) => {
      const { answer } = await run(
        schema,
        `{ authors(filter: "id eq 3") { nodes { books(${args}) { nodes { id }
            pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } } }`,
      );
      return ok(answer).authors.nodes[0].books;
    };
    const last = await page('last: 1, sort: "id"');
    assert.equal(last.nodes, [{ id: 8 }]);
    assert.is(last.pageInfo.hasPreviousPage, true);
    assert.is(last.pageInfo.hasNextPage, false);
    const before = await page(`last: 1, sort: "id", before: "${last.pageInfo.startCursor}"`);
    assert.equal(before.nodes, [{ id: 4 }]);
    assert.is(before.pageInfo.hasPreviousPage, false);
    assert.is(before.pageInfo.hasNextPage, true);
    // Every parent's list is read from its end; an edge cursor works as before too.
    const each = await run(
      schema,
      '{ authors(sort: "id") { nodes { books(last: 1, sort: "id") { edges { cursor node { id } } } } } }',
    );
    const lists = ok(each.answer).authors.nodes.map((a: any) => a.books.edges.map((e: any) => e.node.id));
    assert.equal(lists, [[2], [3], [8]]);
    const edge = ok(each.answer).authors.nodes[2].books.edges[0].cursor;
    assert.equal((await page(`last: 5, sort: "id", before: "${edge}"`)).nodes, [{ id: 4 }]);
    // Two levels down, through a to-one relation: the parameter path is author.books.
    const deep = await run(
      schema,
      '{ books(filter: "id eq 1") { nodes { author { books(last: 1, sort: "id") { nodes { title } } } } } }',
    );
    assert.equal(ok(deep.answer).books.nodes, [{ author: { books: { nodes: [{ title: 'Beta' }] } } }]);
  });

  test('errors of nested arguments keep the REST codes, name the argument by its path, and run nothing', async ({
    em,
  }) => {
    const schema = treeSchema(em);
    const rows: [string, Record<string, unknown>][] = [
      ['reviews(filter: "stars gt(1)") { nodes { id } }', { code: 'invalid_syntax', parameter: 'reviews.filter' }],
      ['best: reviews(first: 6) { nodes { id } }', { code: 'limit_exceeded', parameter: 'best.first' }],
      ['best: reviews(last: 6) { nodes { id } }', { code: 'limit_exceeded', parameter: 'best.last' }],
      ['reviews(first: 1, last: 1) { nodes { id } }', { code: 'invalid_parameter', parameter: 'reviews.last' }],
      ['reviews(sort: "body") { nodes { id } }', { code: 'unknown_field', parameter: 'reviews.sort' }],
      ['reviews(after: "abc=") { nodes { id } }', { code: 'invalid_cursor', parameter: 'reviews.after' }],
      [
        'author { books(filter: "title eq 1") { nodes { id } } }',
        { code: 'invalid_literal', parameter: 'author.books.filter' },
      ],
    ];
    for (const [selection, extensions] of rows) {
      const { answer, calls } = await run(schema, `{ books { nodes { ${selection} } } }`);
      failed(answer, calls, extensions);
      assert.ok(answer.errors![0]!.message.length > 0);
    }
    const filter = await run(schema, '{ books { nodes { reviews(filter: "stars gt(1)") { nodes { id } } } } }');
    assert.equal(filter.answer.errors![0]!.extensions?.position, { offset: 8, line: 1, column: 9 });
    // One response key under nodes and under edges { node } is one item entry: different arguments are refused.
    const both = await run(
      schema,
      '{ books { nodes { a: reviews(first: 1) { nodes { id } } } edges { node { a: reviews(first: 2) { nodes { id } } } } } }',
    );
    failed(both.answer, both.calls, { code: 'invalid_parameter', parameter: 'a' });
    // Tags allow no count: totalCount is not a field of their connection.
    const count = await run(schema, '{ books { nodes { tags { totalCount } } } }');
    assert.match(count.answer.errors![0]!.message, /totalCount/);
    assert.is(count.calls.length, 0);
  });

  test('nested filter values reach the database as bound parameters', async ({ em }) => {
    const { answer, calls } = await run(
      treeSchema(em),
      `{ books(filter: "id eq 1") { nodes { reviews(filter: "stars eq 31337 or stars eq 5") { nodes { id } } } } }`,
    );
    assert.equal(ok(answer).books.nodes, [{ reviews: { nodes: [{ id: 1 }] } }]);
    assert.is(calls.length, 2);
    assert.not.match(calls[1]!.sql, /31337/);
    assert.ok(
      calls[1]!.values.some((v) => String(v) === '31337'),
      JSON.stringify(calls[1]!.values),
    );
  });

  test('the document budget counts every level before any SQL', async ({ em }) => {
    const tree = `{ books(sort: "id", first: 3) { nodes { author { name } reviews(first: 1) { totalCount nodes { id } } } } }`;
    const fits = await run(treeSchema(em, { limits: { maxStatements: 4 } }), tree);
    ok(fits.answer);
    assert.is(fits.calls.length, 4);
    const over = await run(treeSchema(em, { limits: { maxStatements: 3 } }), tree);
    failed(over.answer, over.calls, { code: 'limit_exceeded', limit: 'maxStatements' });
    assert.is(over.answer.data?.books, null);
    // Rows: 10 books and up to 5 reviews each are 60 rows, over 50.
    const rows = '{ books(first: 10) { nodes { reviews(first: 5) { nodes { id } } } } }';
    const wide = await run(treeSchema(em, { limits: { maxRows: 50 } }), rows);
    failed(wide.answer, wide.calls, { code: 'limit_exceeded', limit: 'maxRows' });
    ok((await run(treeSchema(em, { limits: { maxRows: 60 } }), rows)).answer);
    // Two root fields, each with a nested level: their statements add up.
    const two =
      '{ a: books(first: 1) { nodes { author { name } } } b: authors(first: 1) { nodes { books { nodes { id } } } } }';
    const summed = await run(treeSchema(em, { limits: { maxStatements: 3 } }), two);
    failed(summed.answer, summed.calls, { code: 'limit_exceeded', limit: 'maxStatements' });
  });

  test('describe() says which relations are selectable, with their options, names and item shapes', ({ em }) => {
    const described = createEngine(em, { policy: bookTreePolicy }).describe();
    const relation = (name: string, relations = described.relations) => relations.find((r) => r.name === name)!;
    const author = relation('author');
    assert.equal(author.select, { count: false });
    assert.equal(author.schema.selectable, ['id', 'name', 'profile']);
    assert.is(relation('profile', author.schema.relations).itemKey, 'profile');
    assert.equal(author.schema.key, ['id']);
    assert.equal(
      author.schema.item?.properties.map((p) => p.name),
      ['id', 'tenant', 'name', 'profile', 'deletedAt'],
    );
    assert.equal(relation('reviews').select, { maxLimit: 5, defaultLimit: 3, count: true });
    assert.equal(relation('tags').select, { maxLimit: 5, defaultLimit: 5, count: false });
    const books = relation('books', author.schema.relations);
    assert.equal(books.select, { maxLimit: 10, defaultLimit: 10, count: true });
    assert.equal(relation('reviews', books.schema.relations).select, {
      maxLimit: 5,
      defaultLimit: 2,
      defaultSort: '-stars',
      count: true,
    });
    assert.equal(described.key, ['id']);
    // A relation that is not selectable: no select, and its schema carries no selectable names.
    const plain = createEngine(em, {
      policy: schema(Book).expose('id', filterable()).relation('reviews', schema(Review).expose('stars')),
    }).describe();
    assert.is(plain.relations[0]!.select, undefined);
    assert.is(plain.relations[0]!.schema.selectable, undefined);
  });
});
