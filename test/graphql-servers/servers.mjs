// The listql/graphql schema served by the usual GraphQL servers, run by scripts/graphql-servers.ts in a scratch app
// where the packed listql is installed beside one graphql version (16 or 17) and the servers that accept it. It is
// plain JavaScript because it runs outside the tree, against what npm installed there.
//
// Each server (graphql-http on node:http, graphql-yoga, Apollo Server's standalone server, mercurius on Fastify) answers the same queries
// over HTTP: a forward page with totalCount and relation keys, a backward walk (last/before), an error on one root
// field beside a sibling that keeps its data, and an unknown argument refused by validation.
// Env: GRAPHQL_SERVERS (comma-separated: graphql-http, yoga, apollo, mercurius), GRAPHQL_MAJOR (16 or 17), and
// GRAPHQL_CLIENT=graphql-request to read one page through that client too.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { EntitySchema } from '@mikro-orm/core';
import { MikroORM } from '@mikro-orm/sqlite';
import { version } from 'graphql';
import { createEngine, filterable, schema, sortable } from 'listql';
import { graphqlSchema } from 'listql/graphql';

const SERVERS = (process.env.GRAPHQL_SERVERS ?? 'graphql-http').split(',');
const MAJOR = process.env.GRAPHQL_MAJOR ?? '16';
const CLIENT = process.env.GRAPHQL_CLIENT === 'graphql-request';

class Author {}
class Book {}
const entities = [
  new EntitySchema({
    class: Author,
    tableName: 'author',
    properties: { id: { type: 'integer', primary: true }, name: { type: 'string' } },
  }),
  new EntitySchema({
    class: Book,
    tableName: 'book',
    properties: {
      id: { type: 'integer', primary: true },
      title: { type: 'string' },
      year: { type: 'integer', nullable: true },
      author: { kind: 'm:1', entity: () => Author },
    },
  }),
];
const AUTHORS = [
  [1, 'Ursula'],
  [2, 'Terry'],
];
// [id, title, year, author]: duplicate and NULL years, so backward pages cross ties and NULLs.
const BOOKS = [
  [1, 'A Wizard', 1968, 1],
  [2, 'Mort', 1987, 2],
  [3, 'The Dispossessed', 1974, 1],
  [4, 'Guards! Guards!', 1989, 2],
  [5, 'Lavinia', null, 1],
  [6, 'Sourcery', 1988, 2],
  [7, 'Tehanu', 1990, 1],
  [8, 'Eric', 1990, 2],
];
/** Book ids in the order `sort: "-year,title"` gives (NULLs last in both directions). */
const BY_YEAR = [...BOOKS]
  .sort((a, b) => (a[2] === b[2] ? a[1].localeCompare(b[1]) : a[2] === null ? 1 : b[2] === null ? -1 : b[2] - a[2]))
  .map((b) => b[0]);

let orm;
let gql;

before(async () => {
  assert.equal(version.split('.')[0], MAJOR, `graphql ${version} installed, ${MAJOR} expected`);
  orm = await MikroORM.init({ entities, dbName: ':memory:', debug: false });
  await orm.schema.create();
  const em = orm.em.fork();
  for (const [id, name] of AUTHORS) em.create(Author, { id, name });
  for (const [id, title, year, author] of BOOKS) em.create(Book, { id, title, year, author });
  await em.flush();
  const books = createEngine(orm, {
    policy: schema(Book)
      .expose('id', filterable(), sortable())
      .expose('title', filterable(), sortable())
      .expose('year', filterable(), sortable())
      .relation('author', schema(Author).expose('name', filterable())),
    allowCount: true,
    maxLimit: 10,
  });
  const authors = createEngine(orm, { policy: schema(Author).expose('id', sortable()).expose('name', sortable()) });
  gql = graphqlSchema({
    endpoints: [
      {
        field: 'books',
        type: 'Book',
        engine: books,
        scope: () => ({ base: orm.em.fork().createQueryBuilder(Book, 'b') }),
      },
      {
        field: 'authors',
        type: 'Author',
        engine: authors,
        scope: () => ({ base: orm.em.fork().createQueryBuilder(Author, 'a') }),
      },
    ],
    onInternalError: (err) => console.error(err),
  });
});

after(() => orm?.close(true));

/** Start one server over the schema on 127.0.0.1; resolve its /graphql URL and how to stop it. */
async function start(name) {
  if (name === 'apollo') {
    const { ApolloServer } = await import('@apollo/server');
    const { startStandaloneServer } = await import('@apollo/server/standalone');
    const server = new ApolloServer({ schema: gql, includeStacktraceInErrorResponses: false });
    const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
    return { url, stop: () => server.stop() };
  }
  if (name === 'mercurius') {
    const { default: Fastify } = await import('fastify');
    const { default: mercurius } = await import('mercurius');
    const app = Fastify();
    app.register(mercurius, { schema: gql });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: `http://127.0.0.1:${app.server.address().port}/graphql`, stop: () => app.close() };
  }
  let handler;
  if (name === 'yoga') {
    const { createYoga } = await import('graphql-yoga');
    handler = createYoga({ schema: gql, graphqlEndpoint: '/graphql', graphiql: false, logging: false });
  } else {
    const { createHandler } = await import('graphql-http/lib/use/http');
    handler = createHandler({ schema: gql });
  }
  const server = createServer((req, res) => handler(req, res));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/graphql`;
  return { url, stop: () => new Promise((resolve) => server.close(resolve)) };
}

async function post(url, query) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
    body: JSON.stringify({ query }),
  });
  return res.json();
}

for (const name of SERVERS)
  describe(`${name} on graphql ${MAJOR}`, () => {
    let served;
    before(async () => {
      served = await start(name);
    });
    after(() => served?.stop());

    test('a forward page: nodes, relation keys, totalCount, pageInfo', async () => {
      const res = await post(
        served.url,
        '{ books(first: 3, sort: "-year,title") { totalCount nodes { id title authorId } pageInfo { hasNextPage hasPreviousPage } } }',
      );
      assert.equal(res.errors, undefined);
      assert.deepEqual(
        res.data.books.nodes.map((n) => n.id),
        BY_YEAR.slice(0, 3),
      );
      const byId = new Map(BOOKS.map((b) => [b[0], b]));
      for (const n of res.data.books.nodes) assert.equal(n.authorId, byId.get(n.id)[3]);
      assert.equal(res.data.books.totalCount, BOOKS.length);
      assert.deepEqual(res.data.books.pageInfo, { hasNextPage: true, hasPreviousPage: false });
      if (CLIENT) {
        // graphql-request, the usual small client, installed beside listql: the same data through it.
        const { request } = await import('graphql-request');
        const data = await request(
          served.url,
          '{ books(first: 3, sort: "-year,title") { nodes { id title authorId } } }',
        );
        assert.deepEqual(data.books.nodes, res.data.books.nodes);
      }
    });

    test('last, then before = startCursor, back to the start, in order', async () => {
      const pages = [];
      let before = null;
      for (let i = 0; i < 10; i++) {
        const cursor = before === null ? '' : `, before: ${JSON.stringify(before)}`;
        const res = await post(
          served.url,
          `{ books(last: 3, sort: "-year,title"${cursor}) { nodes { id } pageInfo { hasPreviousPage hasNextPage startCursor } } }`,
        );
        assert.equal(res.errors, undefined);
        pages.unshift(res.data.books.nodes.map((n) => n.id));
        assert.equal(res.data.books.pageInfo.hasNextPage, before !== null);
        before = res.data.books.pageInfo.startCursor;
        if (!res.data.books.pageInfo.hasPreviousPage) break;
      }
      assert.deepEqual(pages.flat(), BY_YEAR);
    });

    test('an error on one root field leaves its sibling', async () => {
      const res = await post(
        served.url,
        '{ books(filter: "year gt") { nodes { id } } authors(first: 1) { nodes { id name } } }',
      );
      assert.equal(res.data.books, null);
      assert.deepEqual(res.data.authors.nodes, [{ id: 1, name: 'Ursula' }]);
      assert.equal(res.errors.length, 1);
      assert.deepEqual(res.errors[0].path, ['books']);
      assert.equal(res.errors[0].extensions.code, 'invalid_syntax');
      assert.equal(res.errors[0].extensions.parameter, 'filter');
      assert.equal(res.errors[0].extensions.position.offset, 7);
    });

    test('mixed directions are invalid_parameter; unknown arguments fail validation', async () => {
      const mixed = await post(served.url, '{ books(first: 1, last: 1) { nodes { id } } }');
      assert.deepEqual(
        [mixed.errors[0].extensions.code, mixed.errors[0].extensions.parameter],
        ['invalid_parameter', 'last'],
      );
      const unknown = await post(served.url, '{ books(page: 2) { nodes { id } } }');
      assert.equal(unknown.data ?? null, null); // mercurius writes `data: null`, the others leave it out
      assert.match(unknown.errors[0].message, /page/);
    });
  });
