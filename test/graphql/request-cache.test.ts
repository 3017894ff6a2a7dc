/**
 * Work a GraphQL request derives from its document alone is done once per document and variable values: a document
 * kept by the document cache (the same nodes each time) sends the very same engine request again, other variable
 * values give their own request, and a document parsed anew answers the same. The document budget weighs an admitted
 * document once per variable values and a refused one every time. Edge cursors are asked of the engine only when
 * `edges { cursor }` is selected (aliases, fragments and `@include` counted); otherwise the engine is asked for the
 * first and last items' cursors only, and `pageInfo`'s cursors still walk the whole list. Each engine request is
 * seen through a wrapper of the engine that records what its resolver asks for.
 */
import type { EntityManager } from '@mikro-orm/core';
import { type DocumentNode, execute, type GraphQLSchema, parse } from 'graphql';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { LIST_EDGES } from '../../src/engine/page/edges.ts';
import { graphqlSchema } from '../../src/graphql/index.ts';
import { variablesKey } from '../../src/graphql/request-cache.ts';
import { ENTRIES, Entry, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { eachDialect } from '../helpers/db.ts';

/** One engine request as the resolver sent it. */
interface Sent {
  readonly query: Record<string, string>;
  readonly options: { readonly cursors?: string };
}

/** The entries of `tenant` (from the context), behind an engine wrapper that records every request its edges get. */
function schemaOf(em: EntityManager, limits?: { maxRows: number }): { schema: GraphQLSchema; sent: Sent[] } {
  const engine = createEngine(em, { policy: entryPolicy, allowCount: true, maxLimit: 50 });
  const sent: Sent[] = [];
  // The wrapper reads everything else (describe, pricing, admission) from the engine itself.
  const watched = Object.create(engine, {
    from: {
      value: (base: unknown) => {
        const scoped = engine.from(base as never) as any;
        return Object.create(scoped, {
          [LIST_EDGES]: {
            value: (query: Record<string, string>, ctx: unknown, options: Sent['options']) => {
              sent.push({ query, options });
              return scoped[LIST_EDGES](query, ctx, options);
            },
          },
        });
      },
    },
  });
  const schema = graphqlSchema<{ tenant: number }>({
    endpoints: [
      {
        field: 'entries',
        type: 'Entry',
        engine: watched,
        scope: ({ tenant }) => ({
          base: (em.fork() as any).createQueryBuilder(Entry, 'e').where({ tenant }),
        }),
      },
    ],
    ...(limits ? { limits } : {}),
  });
  return { schema, sent };
}

async function run(schema: GraphQLSchema, document: DocumentNode, variableValues = {}, tenant = 1): Promise<any> {
  return execute({ schema, document, variableValues, contextValue: { tenant } });
}

const live = (tenant: number) =>
  ENTRIES.filter((e) => !e.deleted && e.tenant === tenant)
    .map((e) => e.id)
    .sort((a, b) => a - b);

eachDialect('graphql-request-cache', { entities: walkEntities, seed: seedWalk }, (test) => {
  test('the same nodes and variables send the same request; other variables and tenants get their own', async ({
    db,
  }) => {
    const { schema, sent } = schemaOf(db.orm.em.fork());
    const text = 'query Q($n: Int) { entries(first: $n, sort: "id") { nodes { id title } } }';
    const document = parse(text);
    const ids = (answer: any) => answer.data.entries.nodes.map((n: any) => n.id);
    assert.equal(ids(await run(schema, document, { n: 2 })), live(1).slice(0, 2));
    assert.equal(ids(await run(schema, document, { n: 2 })), live(1).slice(0, 2));
    assert.is(sent[1]!.query, sent[0]!.query, 'the second execution reuses the first one’s request');
    assert.equal(ids(await run(schema, document, { n: 3 })), live(1).slice(0, 3));
    assert.is(sent[2]!.query.limit, '3');
    // The scope is not part of what is kept: another tenant gets its own rows from the same request.
    assert.equal(ids(await run(schema, document, { n: 2 }, 2)), live(2).slice(0, 2));
    assert.is(sent[3]!.query, sent[0]!.query);
    // The same text parsed again: new nodes, a request of its own, the same answer.
    assert.equal(ids(await run(schema, parse(text), { n: 2 })), live(1).slice(0, 2));
    assert.is.not(sent[4]!.query, sent[0]!.query);
    assert.equal(sent[4]!.query, sent[0]!.query);
  });

  test('@include with a variable: each value translates its own selection', async ({ db }) => {
    const { schema } = schemaOf(db.orm.em.fork());
    const document = parse(
      'query Q($t: Boolean!) { entries(first: 1, sort: "id") { nodes { id title @include(if: $t) } } }',
    );
    for (const t of [true, false, true, false]) {
      const [node] = (await run(schema, document, { t })).data.entries.nodes;
      assert.equal(Object.keys(node), t ? ['id', 'title'] : ['id']);
    }
  });

  test('the budget weighs an admitted document once per variables and refuses an oversized one each time', async ({
    db,
  }) => {
    const { schema, sent } = schemaOf(db.orm.em.fork(), { maxRows: 5 });
    const document = parse('query Q($n: Int) { entries(first: $n) { nodes { id } } }');
    for (const n of [3, 10, 3, 10]) {
      const answer = await run(schema, document, { n });
      if (n === 3) assert.is(answer.data.entries.nodes.length, 3);
      else assert.equal([answer.data.entries, answer.errors?.[0]?.extensions?.limit], [null, 'maxRows']);
    }
    assert.is(sent.length, 2, 'no statement for a refused document');
  });

  test('edge cursors are asked for only when edges { cursor } is selected', async ({ db }) => {
    const { schema, sent } = schemaOf(db.orm.em.fork());
    const cases: readonly [string, boolean][] = [
      ['{ entries(first: 2) { nodes { id } } }', false],
      ['{ entries(first: 2) { edges { node { id } } pageInfo { endCursor startCursor } } }', false],
      ['{ entries(first: 2) { edges { cursor node { id } } } }', true],
      ['{ entries(first: 2) { edges { at: cursor } } }', true],
      ['{ entries(first: 2) { edges { ...E } } } fragment E on EntryEdge { cursor }', true],
      ['{ entries(first: 2) { edges { ... on EntryEdge { cursor @skip(if: true) } node { id } } } }', false],
    ];
    for (const [text, all] of cases) {
      const answer = await run(schema, parse(text));
      assert.is(answer.errors, undefined, text);
      assert.is(sent.at(-1)!.options.cursors, all ? undefined : 'ends', text);
    }
  });

  test('edge cursors continue after their node; pageInfo cursors walk every row without edges', async ({ db }) => {
    const { schema } = schemaOf(db.orm.em.fork());
    const edges = parse(
      'query Q($after: String) { entries(first: 3, sort: "-score", after: $after) { edges { cursor node { id } } } }',
    );
    const all = (await run(schema, parse('{ entries(first: 50, sort: "-score") { nodes { id } } }'))).data.entries
      .nodes;
    const listed = (await run(schema, edges)).data.entries.edges;
    for (const [i, edge] of listed.entries()) {
      const next = (await run(schema, edges, { after: edge.cursor })).data.entries.edges;
      assert.equal(
        next.map((e: any) => e.node.id),
        all.slice(i + 1, i + 4).map((n: any) => n.id),
      );
    }
    const page = parse(`query Q($after: String, $before: String, $back: Int, $first: Int) {
      entries(first: $first, last: $back, before: $before, sort: "-score", after: $after) {
        nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`);
    const walked: number[] = [];
    let info: any = { hasNextPage: true, endCursor: null };
    while (info.hasNextPage) {
      const answer = (await run(schema, page, { first: 2, after: info.endCursor })).data.entries;
      walked.push(...answer.nodes.map((n: any) => n.id));
      info = answer.pageInfo;
    }
    assert.equal(
      walked,
      all.map((n: any) => n.id),
    );
    const back: number[] = [];
    info = { hasPreviousPage: true, startCursor: null };
    while (info.hasPreviousPage) {
      const answer = (await run(schema, page, { back: 2, before: info.startCursor })).data.entries;
      back.unshift(...answer.nodes.map((n: any) => n.id));
      info = answer.pageInfo;
    }
    assert.equal(back, walked);
  });
});

const keys = suite('graphql-request-cache-keys');

keys('variable values are keyed by their JSON only when JSON states them exactly', () => {
  assert.is(variablesKey({ a: 1, b: ['x', null, { c: true }] }), '{"a":1,"b":["x",null,{"c":true}]}');
  assert.is(variablesKey({ sources: {}, coerced: { a: 1 } }), '{"a":1}');
  for (const value of [new Date(0), Number.NaN, -0, 1n, new Map(), () => 1])
    assert.is(variablesKey({ a: value }), undefined, String(value));
  assert.is(variablesKey({ a: 1, b: undefined }), '{"a":1}');
});

keys.run();
