/**
 * The compiled execution path of `documentLimits().execute` answers exactly as graphql-js does: each document below
 * runs through graphql-js's execute and through the compiled path (a document the cache kept), and the two answers
 * must be the same JSON text (keys in the same order, errors with the same messages, locations, paths and
 * extensions), after the same statements with the same bound values. Each row says whether the compiled path writes
 * the answer itself (only listql connections selected, nothing failed) or hands it to graphql-js (errors, refused
 * variables, introspection, `node(id:)`, a document the cache does not hold).
 */
import type { EntityManager } from '@mikro-orm/core';
import { execute, type GraphQLObjectType, type GraphQLSchema, parse } from 'graphql';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { LIST_EDGES } from '../../src/engine/page/edges.ts';
import { answeredByCompiledPath } from '../../src/graphql/compiled-execute.ts';
import { documentLimits, graphqlSchema } from '../../src/graphql/index.ts';
import { Book, libraryEntities, libraryOptions, seedLibrary } from '../fixtures/library.ts';
import { captureDriver, type DriverCall } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { bookTreePolicy, treeSchema } from './tree-schema.ts';

/** One document: its text, variables and operation name, and whether the compiled path writes its answer. */
interface Row {
  readonly name: string;
  readonly source: string;
  readonly variables?: Record<string, unknown>;
  readonly operationName?: string;
  readonly compiled: boolean;
}

const NESTED = `{ books(sort: "id", first: 3) { nodes { id author { id name books(first: 1) { totalCount
  nodes { id reviews { nodes { stars } } } } } reviews(first: 1, sort: "-stars") { totalCount nodes { id stars }
  pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id } } } tags { nodes { label } } } } }`;

const ROWS: readonly Row[] = [
  { name: 'a flat page', source: '{ books(first: 2, sort: "id") { nodes { id title price } } }', compiled: true },
  {
    name: 'aliases, __typename, pageInfo and totalCount',
    source: `{ __typename a: books(first: 1, sort: "id") { __typename nodes { __typename key: id t: title }
      pageInfo { hasNextPage endCursor } } b: books(first: 1, sort: "-id") { totalCount } }`,
    compiled: true,
  },
  {
    name: 'fragments and inline fragments, edges beside nodes',
    source: `query Q { books(first: 2, sort: "id") { ...C nodes { id } } }
      fragment C on BookConnection { edges { cursor node { ... on Book { id title } ...B } } }
      fragment B on Book { price }`,
    compiled: true,
  },
  {
    name: 'variables and @include/@skip (included)',
    source: `query Q($n: Int, $c: Boolean!, $s: Boolean = false) { books(first: $n, sort: "id") {
      totalCount @include(if: $c) nodes { id @skip(if: $s) title } } }`,
    variables: { n: 2, c: true },
    compiled: true,
  },
  {
    name: 'variables and @include/@skip (left out)',
    source: `query Q($n: Int, $c: Boolean!, $s: Boolean = false) { books(first: $n, sort: "id") {
      totalCount @include(if: $c) nodes { id @skip(if: $s) title } } }`,
    variables: { n: 1, c: false, s: true },
    compiled: true,
  },
  { name: 'nested objects and connections, three levels', source: NESTED, compiled: true },
  {
    name: 'response keys named like Object.prototype members, at every level',
    source: `{ __proto__: books(first: 2, sort: "id") { constructor: nodes { __proto__: id toString: title
      author { __proto__: name } } } hasOwnProperty: books(first: 1, sort: "id") { __proto__: nodes { id } } }`,
    compiled: true,
  },
  {
    name: 'a nested list argument from a variable',
    source: 'query Q($r: Int) { books(first: 2, sort: "id") { nodes { id reviews(first: $r) { nodes { id } } } } }',
    variables: { r: 1 },
    compiled: true,
  },
  {
    name: 'paging backward',
    source: '{ books(last: 2, sort: "id") { nodes { id } pageInfo { hasPreviousPage hasNextPage startCursor } } }',
    compiled: true,
  },
  {
    name: 'nulls: a missing author, empty lists',
    source: `{ books(filter: "id in (4, 5)", sort: "id") { nodes { id authorId author { name profileId }
      reviews { nodes { id } } tags { nodes { label } } } } }`,
    compiled: true,
  },
  {
    name: 'one operation of several, by name',
    source: 'query A { books(first: 1) { nodes { id } } } query B { authors(first: 2, sort: "id") { nodes { name } } }',
    operationName: 'B',
    compiled: true,
  },
  {
    name: 'a filter the grammar refuses: the ListError with its position',
    source: '{ books(filter: "price gt") { nodes { id } } }',
    compiled: false,
  },
  {
    name: 'an error on one root field beside a sibling that answers',
    source: '{ ok: books(first: 1, sort: "id") { nodes { id } } bad: books(sort: "nope") { nodes { id } } }',
    compiled: false,
  },
  {
    name: 'a nested argument over its bound',
    source: '{ books { nodes { reviews(first: 99) { nodes { id } } } } }',
    compiled: false,
  },
  {
    name: 'variables graphql-js refuses',
    source: 'query Q($n: Int!) { books(first: $n) { nodes { id } } }',
    variables: {},
    compiled: false,
  },
  { name: 'an unknown operation name', source: '{ books { nodes { id } } }', operationName: 'Nope', compiled: false },
  { name: 'introspection', source: '{ __schema { queryType { name } } }', compiled: false },
];

/** Run one row through graphql-js and through the compiled path; the answers and the statements must agree. */
async function compare(schema: GraphQLSchema, row: Row): Promise<void> {
  const limits = documentLimits();
  const document = limits.parse(row.source);
  const args = {
    schema,
    document,
    ...(row.variables ? { variableValues: row.variables } : {}),
    ...(row.operationName ? { operationName: row.operationName } : {}),
  };
  const expected = await captureDriver(async () => execute(args));
  const got = await captureDriver(async () => limits.execute(args));
  assert.is(JSON.stringify(got.result), JSON.stringify(expected.result), row.name);
  // A count may run beside its page (PostgreSQL, MariaDB), so the order they reach the driver in is not fixed.
  assert.equal(
    [...statements(got.calls)].sort(),
    [...statements(expected.calls)].sort(),
    `${row.name}: the same statements`,
  );
  assert.is(answeredByCompiledPath(got.result as object), row.compiled, `${row.name}: compiled`);
}

function statements(calls: readonly DriverCall[]): string[] {
  return calls.map((c) => `${c.sql} ${JSON.stringify(c.values)}`);
}

eachDialect('graphql-compiled', { entities: libraryEntities, seed: seedLibrary, options: libraryOptions }, (test) => {
  test('every document answers as graphql-js answers it, compiled where only listql connections run', async ({
    em,
  }) => {
    const schema = treeSchema(em);
    for (const row of ROWS) await compare(schema, row);
  });

  test('relay: global ids are written by the compiled path; node(id:) is left to graphql-js', async ({ em }) => {
    const schema = treeSchema(em, { relay: true });
    const listed = '{ books(first: 2, sort: "id") { nodes { id rowId ... on Node { id } author { id } } } }';
    await compare(schema, { name: 'global ids', source: listed, compiled: true });
    const node = '{ node(id: "Qm9vazox") { id ... on Book { title } } }';
    await compare(schema, { name: 'node(id:)', source: node, compiled: false });
  });

  test('the document budget refuses as before; a document the cache does not hold runs in graphql-js', async ({
    em,
  }) => {
    const over = treeSchema(em, { limits: { maxRows: 3 } });
    await compare(over, { name: 'over maxRows', source: '{ books(first: 10) { nodes { id } } }', compiled: false });
    const limits = documentLimits();
    const schema = treeSchema(em);
    const document = parse('{ books(first: 1, sort: "id") { nodes { id } } }');
    const answer = await limits.execute({ schema, document });
    assert.equal(JSON.parse(JSON.stringify(answer)), { data: { books: { nodes: [{ id: 1 }] } } });
    assert.not.ok(answeredByCompiledPath(answer as object), 'parsed elsewhere: not compiled');
  });

  test('a value the writer does not expect: graphql-js completes the answer from the same page, run once', async ({
    em,
  }) => {
    // An engine whose first item carries a price no GraphQL Int holds (as a faulty custom engine could).
    const schema = tenantSchema(em, (items) => {
      items[0]!.price = 2 ** 40;
    });
    const limits = documentLimits();
    const document = limits.parse('{ books(first: 2, sort: "id") { nodes { id price } } }');
    const expected: any = await execute({ schema, document, contextValue: { tenant: 1 } });
    assert.is(expected.errors?.[0]?.path?.join('.'), 'books.nodes.0.price');
    const { result, calls } = await captureDriver(async () =>
      limits.execute({ schema, document, contextValue: { tenant: 1 } }),
    );
    assert.is(JSON.stringify(result), JSON.stringify(expected));
    assert.not.ok(answeredByCompiledPath(result as object));
    assert.is(calls.filter((c) => c.sql.includes('price')).length, 1, 'the page is read once');
  });

  test('a value field whose resolver a server replaced is answered by that resolver, as graphql-js answers it', async ({
    em,
  }) => {
    const schema = treeSchema(em);
    // As a middleware does: the field keeps its type, its resolver is wrapped.
    const title = (schema.getType('Book') as GraphQLObjectType).getFields().title!;
    const own = title.resolve!;
    title.resolve = (...args) => `${own(...args)}!`;
    const source = '{ books(first: 2, sort: "id") { nodes { id title author { name } } } }';
    await compare(schema, { name: 'a wrapped resolver', source, compiled: true });
    const answer: any = await documentLimits().execute({ schema, document: parse(source) });
    assert.ok(answer.data.books.nodes.every((b: { title: string }) => b.title.endsWith('!')));
  });

  test('the same kept document answers each execution with its own variables and context', async ({ em }) => {
    const limits = documentLimits();
    const schema = tenantSchema(em);
    const document = limits.parse('query Q($n: Int) { books(first: $n, sort: "id") { nodes { id } } }');
    const ids = async (n: number, tenant: number) => {
      const answer: any = await limits.execute({ schema, document, variableValues: { n }, contextValue: { tenant } });
      assert.ok(answeredByCompiledPath(answer));
      return answer.data.books.nodes.map((b: { id: number }) => b.id);
    };
    const one = await ids(2, 1);
    const two = await ids(2, 2);
    assert.is(one.length, 2);
    assert.not.equal(one, two, 'each tenant its own rows');
    assert.equal(await ids(1, 1), one.slice(0, 1));
  });

  test('variables sent again are bound once: each execution still answers, and is weighed, on its own', async ({
    em,
  }) => {
    // One cache for every execution: the same kept document, and the same variables sent again and again.
    const limits = documentLimits();
    const schema = treeSchema(em, { limits: { maxRows: 3 } });
    const source = `query Q($n: Int!, $c: Boolean!) { books(first: $n, sort: "id") { totalCount @include(if: $c)
      nodes { id } } }`;
    const document = limits.parse(source);
    const sets: readonly [Record<string, unknown>, boolean][] = [
      [{ n: 2, c: true }, true],
      [{ n: 2, c: false }, true],
      [{ n: 10, c: false }, false], // over maxRows: refused by the document budget, every time
      [{ n: 'x', c: true }, false], // refused by graphql-js's coercion, every time
      [{}, false],
    ];
    for (const round of [1, 2, 3])
      for (const [variableValues, compiled] of sets) {
        const name = `${JSON.stringify(variableValues)}, round ${round}`;
        const expected = await captureDriver(async () => execute({ schema, document: parse(source), variableValues }));
        const got = await captureDriver(async () => limits.execute({ schema, document, variableValues }));
        assert.is(JSON.stringify(got.result), JSON.stringify(expected.result), name);
        assert.equal([...statements(got.calls)].sort(), [...statements(expected.calls)].sort(), `${name}: statements`);
        assert.is(answeredByCompiledPath(got.result as object), compiled, `${name}: compiled`);
      }
  });
});

/** The books of the context's tenant; `change` alters each page's items, as a faulty engine could. */
function tenantSchema(em: EntityManager, change?: (items: Record<string, unknown>[]) => void): GraphQLSchema {
  const engine = createEngine(em, { policy: bookTreePolicy });
  const changed = Object.create(engine, {
    from: {
      value: (base: unknown) => {
        const scoped = engine.from(base as never) as any;
        return Object.create(scoped, {
          [LIST_EDGES]: {
            value: async (...args: unknown[]) => {
              const edges = await scoped[LIST_EDGES](...args);
              change?.(edges.page.items);
              return edges;
            },
          },
        });
      },
    },
  });
  return graphqlSchema<{ tenant: number }>({
    endpoints: [
      {
        field: 'books',
        type: 'Book',
        engine: changed,
        scope: ({ tenant }) => ({ base: (em.fork() as any).createQueryBuilder(Book, 'b').where({ tenant }) }),
      },
    ],
  });
}
