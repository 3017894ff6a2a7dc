/**
 * A GraphQL document is one request: the listql fields it executes (aliases, fragments, inline fragments, repeated
 * keys once, @skip/@include honoured) are weighed together before any SQL runs: statements, rows, fields and the
 * filters' sub-queries against the schema's `limits`. Over one of them the document gets one `limit_exceeded`
 * error naming it and no statement reaches the driver. The document itself is bounded by documentLimits() (bytes,
 * tokens, depth). Served by graphql-http on node:http, and executed by graphql-js directly.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EntityManager } from '@mikro-orm/core';
import { execute, getIntrospectionQuery, graphql, parse } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/http';
import * as assert from 'uvu/assert';
import { Author, Book, ENTITIES } from '../../examples/bookstore/entities.ts';
import { authorPolicy, bookPolicy } from '../../examples/bookstore/policies.ts';
import { seed } from '../../examples/bookstore/seed.ts';
import { createEngine } from '../../src/engine/index.ts';
import { requestWorkOf } from '../../src/engine/request-work.ts';
import {
  type DocumentLimitOptions,
  documentLimits,
  type GraphQLLimits,
  graphqlSchema,
} from '../../src/graphql/index.ts';
import { isListError } from '../../src/index.ts';
import { COST_ENTITIES, seedShelves, shelfPolicy, shelves } from '../bind/cost-fixture.ts';
import { captureDriver, type DriverCall } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

interface Answer {
  readonly data?: any;
  readonly errors?: readonly { message: string; extensions?: Record<string, unknown>; path?: unknown[] }[];
}

function schemaOf(em: EntityManager, limits?: GraphQLLimits) {
  const books = createEngine(em, { policy: bookPolicy, allowCount: true, maxLimit: 100 });
  const authors = createEngine(em, { policy: authorPolicy, allowCount: true });
  const qb = (entity: unknown, alias: string) =>
    (em.fork() as any).createQueryBuilder(entity, alias).where({ tenant: 1 });
  return graphqlSchema({
    endpoints: [
      { field: 'books', type: 'Book', engine: books, scope: () => ({ base: qb(Book, 'b') }) },
      { field: 'authors', type: 'Author', engine: authors, scope: () => ({ base: qb(Author, 'a') }) },
    ],
    ...(limits === undefined ? {} : { limits }),
  });
}

/** Serve a schema with graphql-http on node:http, its documents bounded by documentLimits(`bounds`). */
async function serve(em: EntityManager, limits?: GraphQLLimits, bounds?: DocumentLimitOptions) {
  const bounded = documentLimits(bounds);
  const handler = createHandler({
    schema: schemaOf(em, limits),
    parse: bounded.parse,
    validationRules: bounded.validationRules,
  });
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  const post = async (query: string, variables?: Record<string, unknown>) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as Answer;
  };
  return { post, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** `n` aliased copies of a field: `a0: books(first: 1) { nodes { id } } a1: …`. */
const aliases = (n: number, field = 'books(first: 1) { nodes { id } }') =>
  Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ');

const listQueries = (calls: readonly DriverCall[]) => calls.filter((c) => /from [`"](book|author)[`"]/.test(c.sql));

/** Assert the answer is the one document error for `limit`, and that no statement ran. */
function refused(answer: Answer, calls: readonly DriverCall[], limit: string): void {
  assert.is(calls.length, 0, `statements ran: ${calls.map((c) => c.sql).join('\n')}`);
  assert.is(answer.errors?.length, 1, JSON.stringify(answer.errors));
  const error = answer.errors![0]!;
  assert.equal(error.extensions, { code: 'limit_exceeded', limit });
  assert.ok(error.message.includes(`(${limit})`), error.message);
  if (answer.data) for (const value of Object.values(answer.data)) assert.is(value, null);
}

/** Assert the answer has no error and that `statements` list statements ran. */
function ran(answer: Answer, calls: readonly DriverCall[], statements: number): void {
  assert.is(answer.errors, undefined, JSON.stringify(answer.errors));
  assert.is(listQueries(calls).length, statements);
}

/** Two quantifiers joined by `or`: 3 of the budget (a quantifier weighs 1.5, docs/security.md). */
const TWO = Array.from({ length: 2 }, () => 'reviews/any(r: r/stars gt 4)').join(' or ');

eachDialect('graphql-budget', { entities: ENTITIES, seed }, (test) => {
  let server: Awaited<ReturnType<typeof serve>>;
  test.before(async ({ db }) => {
    server = await serve(db.orm.em.fork());
  });
  test.after(async () => server.close());

  test('aliases of one list: 10 statements run, 11 are one maxStatements error and no statement', async ({ em }) => {
    const at = await captureDriver(() => server.post(`{ ${aliases(10)} }`));
    ran(at.result, at.calls, 10);
    const over = await captureDriver(() => server.post(`{ ${aliases(11)} }`));
    refused(over.result, over.calls, 'maxStatements');
    // 1000 aliases of the largest page: refused by the document limits over HTTP, by the budget anywhere.
    const huge = `{ ${aliases(1000, 'books(first: 100) { nodes { id } }')} }`;
    const limited = await captureDriver(() => server.post(huge));
    refused(limited.result, limited.calls, 'maxBytes');
    const schema = schemaOf(em);
    const many = await captureDriver(async () => (await graphql({ schema, source: huge })) as unknown as Answer);
    refused(many.result, many.calls, 'maxFields');
  });

  test('totalCount is one statement more; fields of both endpoints count together', async () => {
    const counted = aliases(5, 'books(first: 1) { totalCount }');
    const at = await captureDriver(() => server.post(`{ ${counted} }`));
    ran(at.result, at.calls, 10);
    const mixed = await captureDriver(() => server.post(`{ ${counted} authors(first: 1) { nodes { id } } }`));
    refused(mixed.result, mixed.calls, 'maxStatements');
  });

  test('fragments, inline fragments and nested spreads count; a repeated key runs once and counts once', async () => {
    const doc = `{ ...A ... on Query { x: books(first: 1) { nodes { id } } } }
      fragment A on Query { ${aliases(8)} ...B }
      fragment B on Query { y: books(first: 1) { nodes { id } } y: books(first: 1) { nodes { title } } }`;
    const at = await captureDriver(() => server.post(doc));
    ran(at.result, at.calls, 10);
    assert.equal(Object.keys(at.result.data.y.nodes[0]), ['id', 'title']);
    const over = await captureDriver(() => server.post(doc.replace('...B }', '...B z: books { nodes { id } } }')));
    refused(over.result, over.calls, 'maxStatements');
  });

  test('@skip and @include are evaluated with the variables', async () => {
    const doc = `query ($s: Boolean!) { ${aliases(10)} s1: books @skip(if: $s) { nodes { id } }
      s2: books @include(if: false) { nodes { id } } }`;
    const skipped = await captureDriver(() => server.post(doc, { s: true }));
    ran(skipped.result, skipped.calls, 10);
    const kept = await captureDriver(() => server.post(doc, { s: false }));
    refused(kept.result, kept.calls, 'maxStatements');
  });

  test("the filters' sub-queries add up: two fields of 3 + 3 run, a third crosses maxSubqueries", async () => {
    const field = `books(filter: ${JSON.stringify(TWO)}) { nodes { id } }`;
    const two = await captureDriver(() => server.post(`{ ${aliases(2, field)} }`));
    ran(two.result, two.calls, 2);
    const three = await captureDriver(() => server.post(`{ ${aliases(3, field)} }`));
    refused(three.result, three.calls, 'maxSubqueries');
    // With a count each runs twice: one field is 6, two are 12.
    const counted = `books(filter: ${JSON.stringify(TWO)}) { totalCount }`;
    const over = await captureDriver(() => server.post(`{ ${aliases(2, counted)} }`));
    refused(over.result, over.calls, 'maxSubqueries');
  });

  test('a field its engine refuses costs nothing and fails alone, before any statement', async () => {
    const { result, calls } = await captureDriver(() =>
      server.post(`{ ${aliases(10)} bad: books(filter: "year gt") { nodes { id } } }`),
    );
    assert.is(listQueries(calls).length, 10);
    assert.is(result.errors?.length, 1);
    assert.is(result.errors![0]!.extensions?.code, 'invalid_syntax');
    assert.is(result.data.bad, null);
    assert.is(result.data.a9.nodes.length, 1);
  });

  test('maxRows and maxFields: the page sizes (default limit included) and the fields add up', async ({ db }) => {
    const small = await serve(db.orm.em.fork(), { maxRows: 50, maxFields: 3 });
    try {
      const at = await captureDriver(() => small.post(`{ ${aliases(2, 'books(first: 25) { nodes { id } }')} }`));
      ran(at.result, at.calls, 2);
      const rows = await captureDriver(() =>
        small.post(`{ a: books(first: 31) { nodes { id } } b: books { nodes { id } } }`),
      );
      refused(rows.result, rows.calls, 'maxRows');
      const fields = await captureDriver(() => small.post(`{ ${aliases(4, 'books(first: 0) { nodes { id } }')} }`));
      refused(fields.result, fields.calls, 'maxFields');
    } finally {
      await small.close();
    }
  });

  test('whatever runs the schema: graphql-js execute, a document executed twice is refused twice', async ({ em }) => {
    const schema = schemaOf(em);
    const document = parse(`{ ${aliases(11)} }`);
    for (let i = 0; i < 2; i++) {
      const { result, calls } = await captureDriver(
        async () => (await execute({ schema, document })) as unknown as Answer,
      );
      refused(result, calls, 'maxStatements');
    }
    const { result, calls } = await captureDriver(
      async () => (await graphql({ schema, source: `{ ${aliases(3)} }` })) as unknown as Answer,
    );
    ran(result, calls, 3);
  });

  test('documentLimits: maxBytes, maxTokens and maxDepth are one error each, before any statement', async ({ db }) => {
    const bounded = await serve(db.orm.em.fork(), undefined, { maxBytes: 2000, maxTokens: 300, maxDepth: 3 });
    try {
      const long = `{ books(filter: "title eq '${'x'.repeat(2000)}'") { nodes { id } } }`;
      const bytes = await captureDriver(() => bounded.post(long));
      refused(bytes.result, bytes.calls, 'maxBytes');
      const tokens = await captureDriver(() => bounded.post(`{ books { nodes { ${'id '.repeat(300)} } } }`));
      refused(tokens.result, tokens.calls, 'maxTokens');
      assert.ok(tokens.result.errors![0]!.message.includes('more than 300 tokens'));
      const three = await captureDriver(() => bounded.post('{ ...F } fragment F on Query { books { nodes { id } } }'));
      ran(three.result, three.calls, 1);
      // Four levels, one of them through a fragment spread inside an inline fragment.
      const four = '{ books { ... on BookConnection { edges { ...E } } } } fragment E on BookEdge { node { id } }';
      const deep = await captureDriver(() => bounded.post(four));
      refused(deep.result, deep.calls, 'maxDepth');
    } finally {
      await bounded.close();
    }
  });

  test('limits that are not positive integers are refused when the schema is built', ({ em }) => {
    assert.throws(() => schemaOf(em, { maxRows: 0 }), /limits\.maxRows must be a positive integer/);
    assert.throws(() => schemaOf(em, { maxStatements: 1.5 }), /limits\.maxStatements must be a positive integer/);
    assert.throws(() => documentLimits({ maxDepth: 0 }), /maxDepth must be a positive integer/);
    assert.throws(() => documentLimits({ maxDeep: 3 } as never), /maxDeep is not a known setting/);
  });

  test('the default document limits let the introspection query of graphql-js through', async () => {
    const answer = await server.post(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }));
    assert.is(answer.errors, undefined);
    assert.ok(answer.data.__schema.types.length > 5);
  });
});

/**
 * A GraphQL field is priced as the same REST request: with the engine's defaultSort on a nullable key, a page after a
 * cursor is a UNION ALL of branches, and both count them.
 */
eachDialect('graphql-budget, priced as REST', { entities: COST_ENTITIES, seed: seedShelves }, (test, dialect) => {
  const Q = 'notes/any(n: n/stars gt 9)';
  const engineOf = (em: EntityManager, maxSubqueries: number) =>
    createEngine(em, { policy: shelfPolicy, defaultSort: 'rank', limits: { maxSubqueries } });
  const base = (em: EntityManager) => shelves(em.fork());

  test('a page after a cursor on the defaultSort: the document counts the branches REST counts', async ({ em }) => {
    // REST's price: the one quantifier crosses a budget of 1 with every run of the filter counted.
    const rest = engineOf(em, 1).from(base(em));
    const first = await rest.list({ limit: '1' });
    const refusedRest = await rest.list({ filter: Q, cursor: first.page.nextCursor! }).catch((e: unknown) => e);
    if (!isListError(refusedRest)) throw new Error('REST accepted a filter over maxSubqueries 1');
    const price = Number(/needs at least ([\d.]+) of maxSubqueries/.exec(refusedRest.message)?.[1]);
    // 1.5 per run: 3 branches (rank, its NULLs, the id) weighing 1 on SQLite, 2 on PostgreSQL and 4 on MariaDB.
    assert.is(price, { sqlite: 4.5, postgresql: 9, mariadb: 18 }[dialect]);

    // The same request as a GraphQL field, its engine's own budget out of the way: the document's maxSubqueries decides.
    const schemaWith = (maxSubqueries: number) =>
      graphqlSchema({
        endpoints: [{ field: 'shelves', type: 'Shelf', engine: engineOf(em, 40), scope: () => ({ base: base(em) }) }],
        limits: { maxSubqueries },
      });
    const ask = (maxSubqueries: number, source: string) =>
      captureDriver(async () => (await graphql({ schema: schemaWith(maxSubqueries), source })) as unknown as Answer);
    const cursor = (await ask(40, '{ shelves(first: 1) { pageInfo { endCursor } } }')).result.data.shelves.pageInfo
      .endCursor as string;
    const doc = `{ shelves(first: 5, after: ${JSON.stringify(cursor)}, filter: ${JSON.stringify(Q)}) { nodes { id } } }`;
    const at = await ask(Math.ceil(price), doc);
    assert.is(at.result.errors, undefined, JSON.stringify(at.result.errors));
    assert.is(at.calls.length, 1);
    const over = await ask(Math.ceil(price) - 1, doc);
    refused(over.result, over.calls, 'maxSubqueries');
  });

  test('the defaultSort is priced as the same sort written out, first page and after a cursor', async ({ em }) => {
    const price = requestWorkOf(engineOf(em, 40))!;
    // MariaDB reads a first page whose leading nullable key is ascending as two branches (its values, its NULLs).
    assert.is(price({ filter: Q }).subqueries, dialect === 'mariadb' ? 12 : 1.5);
    assert.is(price({ filter: Q }).subqueries, price({ filter: Q, sort: 'rank' }).subqueries);
    const cursor = (await engineOf(em, 40).from(base(em)).list({ limit: '1' })).page.nextCursor!;
    assert.is(price({ filter: Q, cursor }).subqueries, price({ filter: Q, cursor, sort: 'rank' }).subqueries);
  });
});
