/**
 * documentLimits({ cache }): a repeated document text is neither parsed nor validated again (the same document
 * object comes back, and a counting validation rule does not run), validation results never cross schemas, the
 * cache is bounded by count and total bytes (least recently used out), errors are the same with and without the
 * cache, request-dependent errors (variables, operation name) are never remembered, and graphql-http's audits
 * still pass. Served by graphql-http on node:http over the bookstore's entities.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EntityManager } from '@mikro-orm/core';
import {
  buildSchema,
  type DocumentNode,
  GraphQLError,
  type GraphQLSchema,
  specifiedRules,
  type ValidationRule,
  validate,
} from 'graphql';
import { serverAudits } from 'graphql-http';
import { createHandler } from 'graphql-http/lib/use/http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Author, Book, ENTITIES } from '../../examples/bookstore/entities.ts';
import { authorPolicy, bookPolicy } from '../../examples/bookstore/policies.ts';
import { seed } from '../../examples/bookstore/seed.ts';
import { createEngine } from '../../src/engine/index.ts';
import { type DocumentLimitOptions, documentLimits, graphqlSchema } from '../../src/graphql/index.ts';
import { eachDialect } from '../helpers/db.ts';

interface Answer {
  readonly status: number;
  readonly body: { data?: any; errors?: readonly Record<string, unknown>[] };
}

/** The bookstore's books (and, unless `booksOnly`, authors) of tenant 1. */
function schemaOf(em: EntityManager, booksOnly = false): GraphQLSchema {
  const qb = (entity: unknown, alias: string) =>
    (em.fork() as any).createQueryBuilder(entity, alias).where({ tenant: 1 });
  const books = createEngine(em, { policy: bookPolicy, allowCount: true, maxLimit: 100 });
  const authors = createEngine(em, { policy: authorPolicy, allowCount: true });
  return graphqlSchema({
    endpoints: [
      { field: 'books', type: 'Book', engine: books, scope: () => ({ base: qb(Book, 'b') }) },
      ...(booksOnly
        ? []
        : [{ field: 'authors', type: 'Author', engine: authors, scope: () => ({ base: qb(Author, 'a') }) }]),
    ],
  });
}

/** What a server saw: each document its parse returned, and how often validation really ran. */
interface Seen {
  readonly documents: DocumentNode[];
  validations: number;
}

/** A validation rule that counts the real validations of documents: a remembered result does not run it. */
function counter(): { readonly seen: Seen; readonly rule: ValidationRule } {
  const seen: Seen = { documents: [], validations: 0 };
  return { seen, rule: () => ({ Document: () => void seen.validations++ }) };
}

/**
 * Serve `schema` with graphql-http, documents bounded (and cached, if `options.cache`) by `limits`; servers that
 * share a counter also share their validation rules, so only the schema tells their cached results apart.
 */
async function serve(schema: GraphQLSchema, limits = documentLimits({ cache: true }), count = counter()) {
  const { seen, rule: counting } = count;
  const handler = createHandler({
    schema,
    parse: (text) => {
      const document = limits.parse(text);
      seen.documents.push(document);
      return document;
    },
    validate: limits.validate,
    validationRules: [...limits.validationRules, counting],
  });
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  const post = async (query: string, extra: Record<string, unknown> = {}): Promise<Answer> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query, ...extra }),
    });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  };
  return { url, seen, post, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const BOOKS = '{ books(sort: "id", first: 3) { nodes { id title } } }';
const FIRST_THREE = [
  { id: 1, title: 'The Left Hand of Darkness' },
  { id: 2, title: 'The Dispossessed' },
  { id: 3, title: 'A Wizard of Earthsea' },
];

/** Invalid documents, each refused before it runs; answered the same with and without the cache. */
const INVALID: readonly { readonly name: string; readonly query: string; readonly extra?: Record<string, unknown> }[] =
  [
    { name: 'syntax error', query: '{ books(first: 3) { nodes { id } }' },
    { name: 'unknown field', query: '{ books { nodes { id isbn } } }' },
    { name: 'unknown argument', query: '{ books(top: 3) { nodes { id } } }' },
    { name: 'over maxDepth', query: '{ books { nodes { author { name } } } }' },
    { name: 'over maxTokens', query: `{ books { nodes { ${'id '.repeat(120)}} } }` },
    { name: 'over maxBytes', query: `{ books(filter: "title eq '${'x'.repeat(600)}'") { nodes { id } } }` },
    { name: 'missing variable', query: 'query Q($n: Int!) { books(first: $n) { nodes { id } } }' },
    { name: 'unknown operation', query: 'query A { books { nodes { id } } }', extra: { operationName: 'B' } },
  ];
const STRICT: DocumentLimitOptions = { maxBytes: 500, maxTokens: 100, maxDepth: 3 };

eachDialect('graphql-document-cache', { entities: ENTITIES, seed }, (test) => {
  test('a repeated document is parsed and validated once, and answers the same each time', async ({ db }) => {
    for (const cache of [true, false]) {
      const server = await serve(schemaOf(db.orm.em.fork()), documentLimits({ cache }));
      try {
        for (let i = 0; i < 3; i++) {
          const answer = await server.post(BOOKS);
          assert.equal(answer.body, { data: { books: { nodes: FIRST_THREE } } });
        }
        const [first, ...rest] = server.seen.documents;
        assert.is(server.seen.documents.length, 3);
        // With the cache, one parse (the same object each time) and one validation; without, three of each.
        assert.is(
          rest.every((d) => d === first),
          cache,
        );
        assert.is(server.seen.validations, cache ? 1 : 3);
      } finally {
        await server.close();
      }
    }
  });

  test('validation results never cross schemas: one cache, two schemas, each its own answer', async ({ db }) => {
    const limits = documentLimits({ cache: true });
    const count = counter();
    const full = await serve(schemaOf(db.orm.em.fork()), limits, count);
    const books = await serve(schemaOf(db.orm.em.fork(), true), limits, count);
    try {
      const query = '{ authors(sort: "id", first: 2) { nodes { id name } } }';
      const rows = {
        data: {
          authors: {
            nodes: [
              { id: 1, name: 'Ursula K. Le Guin' },
              { id: 2, name: 'Italo Calvino' },
            ],
          },
        },
      };
      assert.equal((await full.post(query)).body, rows);
      const refused = await books.post(query);
      assert.is(refused.status, 400);
      assert.match(String(refused.body.errors?.[0]?.message), /Cannot query field "authors" on type "Query"/);
      assert.equal((await full.post(query)).body, rows);
      assert.is((await books.post(query)).status, 400);
      // The text was parsed once for both servers, and validated once per schema.
      const [first, ...rest] = count.seen.documents;
      assert.is(count.seen.documents.length, 4);
      assert.ok(rest.every((d) => d === first));
      assert.is(count.seen.validations, 2);
    } finally {
      await Promise.all([full.close(), books.close()]);
    }
  });

  test('errors of invalid documents are the same with and without the cache, sent again or not', async ({ db }) => {
    const schema = schemaOf(db.orm.em.fork());
    const cached = await serve(schema, documentLimits({ ...STRICT, cache: true }));
    const plain = await serve(schema, documentLimits({ ...STRICT, cache: false }));
    try {
      for (const { name, query, extra } of INVALID) {
        const expected = await plain.post(query, extra);
        assert.ok(expected.body.errors?.length, name);
        assert.equal(await cached.post(query, extra), expected, name);
        assert.equal(await cached.post(query, extra), expected, `${name}, again`);
      }
    } finally {
      await Promise.all([cached.close(), plain.close()]);
    }
  });

  test('errors that depend on the request are not remembered: variables, operation name', async ({ db }) => {
    const server = await serve(schemaOf(db.orm.em.fork()));
    try {
      const query =
        'query A($n: Int!) { books(sort: "id", first: $n) { nodes { id } } } query B { authors { totalCount } }';
      const cases: readonly [Record<string, unknown>, unknown][] = [
        [{ operationName: 'A' }, null],
        [{ operationName: 'A', variables: { n: 2 } }, { books: { nodes: [{ id: 1 }, { id: 2 }] } }],
        [{ operationName: 'C' }, null],
        [{ operationName: 'B' }, { authors: { totalCount: 4 } }],
        [{ operationName: 'A', variables: { n: 1 } }, { books: { nodes: [{ id: 1 }] } }],
      ];
      for (const [extra, data] of cases) {
        const answer = await server.post(query, extra);
        if (data === null) assert.ok(answer.body.errors?.length, JSON.stringify(extra));
        else assert.equal(answer.body, { data }, JSON.stringify(extra));
      }
      assert.is(server.seen.validations, 1);
    } finally {
      await server.close();
    }
  });

  test("graphql-http's server audits: every MUST passes with the cache on", async ({ db }) => {
    const server = await serve(schemaOf(db.orm.em.fork()));
    try {
      const must = serverAudits({ url: server.url }).filter((a) => a.name.startsWith('MUST'));
      assert.ok(must.length > 10);
      const failed: string[] = [];
      for (const audit of must) {
        const result = await audit.fn();
        if (result.status !== 'ok') failed.push(`${audit.name}: ${result.reason}`);
      }
      assert.equal(failed, []);
      // The audits send the same few documents again and again: the cache answered some of them.
      assert.ok(server.seen.validations < server.seen.documents.length);
    } finally {
      await server.close();
    }
  });
});

const bounded = suite('document cache bounds');

const documentOf = (text: string, limits: ReturnType<typeof documentLimits>) => limits.parse(text);

bounded('at most `max` documents: the least recently used goes first', () => {
  const limits = documentLimits({ cache: { max: 2 } });
  const [a, b, c] = ['{ a }', '{ b }', '{ c }'];
  const first = { a: documentOf(a, limits), b: documentOf(b, limits) };
  assert.is(documentOf(a, limits), first.a); // a is now the most recently used
  const third = documentOf(c, limits); // b goes
  assert.is(documentOf(a, limits), first.a);
  assert.is(documentOf(c, limits), third);
  assert.is.not(documentOf(b, limits), first.b);
});

bounded('at most `maxTotalBytes` of sources, counted in UTF-8; a larger document is never kept', () => {
  // Each text is 20 bytes; the third is 16 UTF-16 units ("é" takes 2 bytes), so 58 bytes hold two of them only
  // when counted in UTF-8.
  const limits = documentLimits({ cache: { maxTotalBytes: 58 } });
  const texts = ['{ aaaaaaaaaaaaaaaa }', '{ bbbbbbbbbbbbbbbb }', '{ c(x: "éééé") }'];
  assert.equal(
    texts.map((t) => [t.length, new TextEncoder().encode(t).length]),
    [
      [20, 20],
      [20, 20],
      [16, 20],
    ],
  );
  const kept = texts.map((t) => documentOf(t, limits));
  assert.is(documentOf(texts[2]!, limits), kept[2]);
  assert.is(documentOf(texts[1]!, limits), kept[1]);
  assert.is.not(documentOf(texts[0]!, limits), kept[0]); // evicted by the third
  const large = `{ ${'x'.repeat(60)} }`;
  assert.is.not(documentOf(large, limits), documentOf(large, limits));
});

bounded('refused documents are never kept: each is parsed and refused again', () => {
  const limits = documentLimits({ maxBytes: 100, maxTokens: 10, cache: true });
  for (const text of [`{ ${'x'.repeat(200)} }`, `{ ${'a '.repeat(20)}}`, '{ a']) {
    const messages = [0, 1].map(() => {
      try {
        limits.parse(text);
        return 'parsed';
      } catch (err) {
        return (err as Error).message;
      }
    });
    assert.is.not(messages[0], 'parsed');
    assert.is(messages[0], messages[1]);
  }
});

bounded('validation results are kept per rule set: other rules, other errors', () => {
  const schema = buildSchema('type Query { a: Int, b: Int }');
  const limits = documentLimits({ cache: true });
  const document = limits.parse('{ a b }');
  const noB: ValidationRule = (context) => ({
    Field(node) {
      if (node.name.value === 'b') context.reportError(new GraphQLError('no b', { nodes: [node] }));
    },
  });
  const messages = (rules: readonly ValidationRule[]) => limits.validate(schema, document, rules).map((e) => e.message);
  for (let i = 0; i < 2; i++) {
    assert.equal(messages([...specifiedRules, noB]), ['no b']);
    assert.equal(messages(specifiedRules), []);
    assert.equal(messages([noB]), ['no b']);
    assert.equal(messages([]), []);
  }
  // graphql-js's own rules when none are given, not the empty set remembered before.
  const unknown = limits.parse('{ c }');
  assert.equal(limits.validate(schema, unknown, []), []);
  assert.match(limits.validate(schema, unknown)[0]?.message ?? '', /^Cannot query field "c" on type "Query"/);
});

bounded('the cache is on by default; validate without it is graphql-js own; bounds must be positive integers', () => {
  assert.is.not(documentLimits().validate, validate);
  const limits = documentLimits();
  assert.is(limits.parse('{ a }'), limits.parse('{ a }'));
  assert.is(documentLimits({ cache: false }).validate, validate);
  const plain = documentLimits({ cache: false });
  assert.is.not(plain.parse('{ a }'), plain.parse('{ a }'));
  assert.throws(() => documentLimits({ cache: { max: 0 } }), /cache\.max must be a positive integer/);
  assert.throws(() => documentLimits({ cache: { maxTotalBytes: 1.5 } }), /cache\.maxTotalBytes must be a positive/);
});

bounded.run();
