/**
 * The bookstore's `/graphql` against its REST endpoint for the same request, with graphql-http's parse and
 * validation answered by documentLimits({ cache }) (the same text each time) and missed by it (a unique comment
 * makes every text new, so each request is parsed and validated as without a cache). Two shapes: a flat page and
 * a nested tree. The bookstore's seed is small, so the figures are the per-request overhead, not the SQL. First, in
 * process, graphql-js's execution of each document against documentLimits()'s compiled one.
 *
 * Run with `npx node bench/graphql-cache.ts` (GRAPHQL_CACHE_ROUNDS, default 400). Not part of `npm run bench`.
 */
import type { AddressInfo } from 'node:net';
import { execute, specifiedRules } from 'graphql';
import { createApp } from '../examples/bookstore/app.ts';
import { openBookstore } from '../examples/bookstore/database.ts';
import { Author, Book } from '../examples/bookstore/entities.ts';
import { authorPolicy, bookPolicy } from '../examples/bookstore/policies.ts';
import { createEngine } from '../src/engine/index.ts';
import { documentLimits, graphqlSchema } from '../src/graphql/index.ts';
import { microsPerCall, noise, type Sample, sideBySide } from './stats.ts';

const ROUNDS = Number(process.env.GRAPHQL_CACHE_ROUNDS ?? 400);

const SHAPES = [
  {
    name: 'flat page (8 books, 3 fields)',
    rest: '/books?limit=20&fields=id,title,price',
    graphql: '{ books(first: 20) { nodes { id title price } } }',
  },
  {
    name: 'nested tree (8 books, author, reviews, tags)',
    rest: '/books?limit=20&fields=id,title,author(name),reviews(reviewer,stars),tags(name)',
    graphql:
      '{ books(first: 20) { nodes { id title author { name } reviews { nodes { reviewer stars } } tags { nodes { name } } } } }',
  },
] as const;

const orm = await openBookstore({ sqliteFile: ':memory:' });
const server = createApp(orm).listen(0, '127.0.0.1');
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function rest(path: string): Promise<void> {
  const res = await fetch(`${base}${path}`);
  const body = (await res.json()) as { items?: unknown[] };
  if (res.status !== 200 || body.items?.length !== 8) throw new Error(`REST answered ${res.status}`);
}

let unique = 0;
async function graphql(document: string, miss: boolean): Promise<void> {
  const query = miss ? `${document}\n# ${unique++}` : document;
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
  });
  const body = (await res.json()) as { data?: { books: { nodes: unknown[] } }; errors?: unknown };
  if (body.errors || body.data?.books.nodes.length !== 8) throw new Error(JSON.stringify(body.errors));
}

const ms = (s: Sample) => `${s.median.toFixed(3)} ms`;
const ratio = (s: Sample) => `${s.median.toFixed(2)}x ${noise(s)}`;

const qb = (entity: unknown, alias: string) => (orm.em.fork() as any).createQueryBuilder(entity, alias);
/** The bookstore's two endpoints, as its /graphql serves them. */
const schema = graphqlSchema({
  endpoints: [
    {
      field: 'books',
      type: 'Book',
      engine: createEngine(orm, { policy: bookPolicy }),
      scope: () => ({ base: qb(Book, 'b') }),
    },
    {
      field: 'authors',
      type: 'Author',
      engine: createEngine(orm, { policy: authorPolicy }),
      scope: () => ({ base: qb(Author, 'a') }),
    },
  ],
});

/** graphql-http's parse and validation of one document, in-process (µs per request), with and without the cache. */
function parseAndValidate(document: string): { cached: Sample; plain: Sample } {
  const time = (cache: boolean) => {
    const limits = documentLimits({ cache });
    // What graphql-http does per request: specifiedRules and the server's rules, in a fresh array.
    const rules = limits.validationRules;
    return microsPerCall(() => {
      const errors = limits.validate(schema, limits.parse(document), [...specifiedRules, ...rules]);
      if (errors.length) throw errors[0];
    });
  };
  return { cached: time(true), plain: time(false) };
}

/**
 * Executing one kept document in-process (its statements on SQLite in memory included): graphql-js's execute, field
 * by field, against documentLimits()'s compiled path, alternating.
 */
async function executeBoth(text: string): Promise<{ graphqlJs: Sample; compiled: Sample; ratio: Sample }> {
  const limits = documentLimits();
  const document = limits.parse(text);
  const { a, b, ratio } = await sideBySide(
    async () => execute({ schema, document }),
    async () => limits.execute({ schema, document }),
    ROUNDS,
    50,
  );
  return { graphqlJs: a, compiled: b, ratio };
}

try {
  for (const shape of SHAPES) {
    const { graphqlJs, compiled, ratio } = await executeBoth(shape.graphql);
    console.log(
      `execute, ${shape.name}: graphql-js ${ms(graphqlJs)}, compiled ${ms(compiled)} (graphql-js ÷ compiled ${ratio.median.toFixed(2)}x)`,
    );
  }
  for (const shape of SHAPES) {
    const { cached, plain } = parseAndValidate(shape.graphql);
    console.log(
      `parse + validate, ${shape.name}: ${plain.median.toFixed(1)} µs without the cache, ${cached.median.toFixed(1)} µs with it`,
    );
  }
  console.log(`bookstore /graphql ÷ REST, SQLite in memory, ${ROUNDS} alternating rounds each (median per request)`);
  for (const shape of SHAPES) {
    const hit = await sideBySide(
      () => graphql(shape.graphql, false),
      () => rest(shape.rest),
      ROUNDS,
      50,
    );
    const miss = await sideBySide(
      () => graphql(shape.graphql, true),
      () => rest(shape.rest),
      ROUNDS,
      50,
    );
    console.log(`\n${shape.name}`);
    console.log(`  REST                          ${ms(hit.b)}`);
    console.log(`  GraphQL, cache hit            ${ms(hit.a)}   ÷ REST ${ratio(hit.ratio)}`);
    console.log(`  GraphQL, cache miss (no cache) ${ms(miss.a)}   ÷ REST ${ratio(miss.ratio)}`);
  }
} finally {
  server.close();
  await orm.close(true);
}
