/**
 * listql/graphql over real HTTP: graphql-http's node handler on node:http (127.0.0.1, port 0), a schema built from
 * two engines. Queries against the REST answers, the SQL narrowed by the selection, cursor walks through endCursor
 * and edge cursors, totalCount only when selected, ListErrors as GraphQL errors with extensions, tenant isolation
 * from the context function, internal errors without detail, and graphql-http's own server audits (every MUST), all
 * with documentLimits()'s parse, validation and compiled execution.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EntityManager } from '@mikro-orm/core';
import { serverAudits } from 'graphql-http';
import { createHandler } from 'graphql-http/lib/use/http';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { documentLimits, graphqlSchema, printSchema } from '../../src/graphql/index.ts';
import { filterable, schema, selectable, sortable } from '../../src/policy/index.ts';
import { Cell, cellPolicy, ENTRIES, Entry, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

const policy = schema(Entry)
  .expose('id', filterable(), sortable())
  .expose('score', filterable(), sortable())
  .expose('title', filterable(), sortable())
  .expose('big', filterable(), sortable())
  .expose('amount', filterable(), sortable())
  .expose('ratio', filterable(), sortable())
  .expose('flag', filterable())
  .expose('day', sortable())
  .expose('at', sortable(), selectable());

interface Served {
  readonly url: string;
  readonly server: Server;
  readonly internal: unknown[];
}

interface GraphQLResponse {
  readonly data?: any;
  readonly errors?: readonly { message: string; extensions?: Record<string, unknown>; path?: unknown[] }[];
}

/** Start graphql-http on node:http with the tenant taken from the `x-tenant` header (or `fail` to break the scope). */
async function serve(em: EntityManager): Promise<Served> {
  const entries = createEngine(em, {
    policy,
    allowCount: true,
    maxLimit: 50,
    search: (_ctx, qb: any, term: string) => qb.andWhere({ label: term }),
  });
  const cells = createEngine(em, { policy: cellPolicy });
  const internal: unknown[] = [];
  const schemaOf = graphqlSchema<{ tenant: string | undefined }>({
    endpoints: [
      {
        field: 'entries',
        type: 'Entry',
        engine: entries,
        scope: ({ tenant }) => {
          if (tenant === 'fail') throw new Error('database password is hunter2');
          return { base: (em.fork() as any).createQueryBuilder(Entry, 'e').where({ tenant: Number(tenant ?? 1) }) };
        },
      },
      {
        field: 'cells',
        type: 'Cell',
        engine: cells,
        scope: () => ({ base: (em.fork() as any).createQueryBuilder(Cell, 'c') }),
      },
    ],
    onInternalError: (err) => internal.push(err),
  });
  // Kept documents take the compiled execution path: every test below, the audits among them, goes through it.
  const limits = documentLimits();
  const handler = createHandler({
    schema: schemaOf,
    parse: limits.parse,
    validate: limits.validate,
    validationRules: limits.validationRules,
    execute: limits.execute,
    context: (req) => ({ tenant: (req.raw.headers['x-tenant'] as string | undefined) ?? undefined }),
  });
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/graphql')) return void handler(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/graphql`, server, internal };
}

async function post(url: string, query: string, tenant?: string): Promise<GraphQLResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (tenant) headers['x-tenant'] = tenant;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query }) });
  return (await res.json()) as GraphQLResponse;
}

const live = (tenant: number) => ENTRIES.filter((e) => !e.deleted && e.tenant === tenant).map((e) => e.id);

interface ErrorRow {
  readonly name: string;
  readonly args: string;
  readonly code: string;
  readonly parameter: string;
  readonly offset?: number;
}

const ERRORS: readonly ErrorRow[] = [
  { name: 'filter syntax', args: 'filter: "score gt"', code: 'invalid_syntax', parameter: 'filter', offset: 8 },
  { name: 'hidden field', args: 'filter: "tenant eq 2"', code: 'unknown_field', parameter: 'filter', offset: 0 },
  { name: 'not sortable', args: 'sort: "title,flag"', code: 'field_not_sortable', parameter: 'sort', offset: 6 },
  { name: 'first over maxLimit', args: 'first: 51', code: 'limit_exceeded', parameter: 'first' },
  { name: 'negative first', args: 'first: -1', code: 'invalid_parameter', parameter: 'first', offset: 0 },
  { name: 'bad cursor', args: 'after: "a=b"', code: 'invalid_cursor', parameter: 'after', offset: 1 },
  { name: 'after and offset', args: 'after: "abc", offset: 2', code: 'invalid_parameter', parameter: 'offset' },
];

eachDialect('graphql', { entities: walkEntities, seed: seedWalk }, (test) => {
  let served: Served;
  test.before(async ({ db }) => {
    served = await serve(db.orm.em.fork());
  });
  test.after(async () => {
    await new Promise((resolve) => served.server.close(resolve));
  });

  test('SDL: connections, honest scalars, totalCount only where count is allowed', () => {
    const built = graphqlSchema({
      endpoints: [
        {
          field: 'entries',
          type: 'Entry',
          engine: createEngine(em0, { policy, allowCount: true, search: (_c, qb) => qb }),
          scope: () => ({ base: null as never }),
        },
        {
          field: 'cells',
          type: 'Cell',
          engine: createEngine(em0, { policy: cellPolicy }),
          scope: () => ({ base: null as never }),
        },
      ],
    });
    const sdl = printSchema(built);
    const signature = (name: string) => {
      const field = built.getQueryType()!.getFields()[name]!;
      return `${name}(${field.args.map((a) => `${a.name}: ${String(a.type)}`).join(', ')}): ${String(field.type)}`;
    };
    assert.is(
      signature('entries'),
      'entries(filter: String, sort: String, first: Int, after: String, last: Int, before: String, offset: Int, search: String): EntryConnection',
    );
    assert.is(
      signature('cells'),
      'cells(filter: String, sort: String, first: Int, after: String, last: Int, before: String, offset: Int): CellConnection',
    );
    for (const line of [
      'id: Int!',
      'score: Int',
      'title: String!',
      'big: String!',
      'amount: String',
      'ratio: Float',
      'flag: Boolean',
      'day: String',
      'at: String!',
      'row: String!',
      'col: Int!',
      'edges: [EntryEdge!]!',
      'nodes: [Entry!]!',
      'pageInfo: PageInfo!',
      'hasNextPage: Boolean!',
      'endCursor: String',
      'cursor: String!',
    ])
      assert.ok(sdl.includes(line), line);
    const entryConnection = sdl.slice(sdl.indexOf('type EntryConnection'));
    assert.ok(entryConnection.slice(0, entryConnection.indexOf('}')).includes('totalCount: Int!'));
    const cellConnection = sdl.slice(sdl.indexOf('type CellConnection'));
    assert.not.ok(cellConnection.slice(0, cellConnection.indexOf('}')).includes('totalCount'));
    assert.not.ok(sdl.includes('secret'));
    assert.not.ok(sdl.includes('tenant'));
  });
  let em0: EntityManager;
  test.before.each(({ em }) => {
    em0 = em;
  });

  test('a query gives the REST items, with bigints, decimals and datetimes as strings', async ({ em }) => {
    const rest = await createEngine(em, { policy, maxLimit: 50 })
      .from((em as any).createQueryBuilder(Entry, 'e').where({ tenant: 1 }))
      .list({
        filter: 'score gte 2 or score is null',
        sort: '-score,title',
        limit: '50',
        fields: 'title,big,amount,at',
      });
    const res = await post(
      served.url,
      '{ entries(filter: "score gte 2 or score is null", sort: "-score,title", first: 50) { nodes { id title big amount at } } }',
    );
    assert.is(res.errors, undefined);
    const expected = rest.items.map((i) => ({ ...i, at: (i.at as Date).toISOString() }));
    assert.equal(res.data.entries.nodes, expected);
    assert.ok(expected.length > 3);
    assert.ok(expected.every((i) => typeof i.big === 'string' && typeof i.at === 'string'));
  });

  test('the selection narrows the SELECT like fields (fragments and aliases included)', async () => {
    const { result, calls } = await captureDriver(() =>
      post(
        served.url,
        '{ entries(first: 2) { edges { node { ...F } } } } fragment F on Entry { name: title ... on Entry { score } }',
      ),
    );
    assert.equal(result.data.entries.edges[0].node, { name: 'b', score: 3 });
    assert.is(calls.length, 1);
    const select = calls[0]!.sql.slice(0, calls[0]!.sql.indexOf(' from '));
    assert.ok(select.includes('label_text') && select.includes('score_value') && select.includes('entry_id'));
    for (const column of ['big_number', 'amount_value', 'at_moment', 'day_value', 'team_key', '*'])
      assert.not.ok(select.includes(column), `${column} in ${select}`);
  });

  test('after = endCursor walks to the end without gaps or repeats; edge cursors continue after their edge', async () => {
    const ids: number[] = [];
    let after: string | null = null;
    for (let i = 0; i < 20; i++) {
      const args: string = after
        ? `first: 3, sort: "-score", after: ${JSON.stringify(after)}`
        : 'first: 3, sort: "-score"';
      const res = await post(
        served.url,
        `{ entries(${args}) { edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage endCursor startCursor } } }`,
      );
      assert.is(res.errors, undefined);
      const { edges, pageInfo } = res.data.entries;
      ids.push(...edges.map((e: any) => e.node.id));
      assert.is(pageInfo.endCursor, edges.at(-1)?.cursor ?? null);
      assert.is(pageInfo.startCursor, edges[0]?.cursor ?? null);
      assert.is(pageInfo.hasPreviousPage, after !== null);
      after = pageInfo.endCursor;
      if (!pageInfo.hasNextPage) break;
    }
    assert.equal(
      [...ids].sort((a, b) => a - b),
      live(1),
    );
    assert.is(new Set(ids).size, ids.length);
    const first = await post(served.url, '{ entries(first: 4, sort: "-score") { edges { cursor node { id } } } }');
    const middle = first.data.entries.edges[1].cursor as string;
    const next = await post(
      served.url,
      `{ entries(first: 2, sort: "-score", after: ${JSON.stringify(middle)}) { nodes { id } } }`,
    );
    assert.equal(
      next.data.entries.nodes.map((n: any) => n.id),
      first.data.entries.edges.slice(2).map((e: any) => e.node.id),
    );
  });

  test('totalCount is counted only when selected', async () => {
    const counted = await captureDriver(() => post(served.url, '{ entries(first: 1) { totalCount nodes { id } } }'));
    assert.is(counted.result.data.entries.totalCount, live(1).length);
    assert.is(counted.calls.length, 2);
    const plain = await captureDriver(() => post(served.url, '{ entries(first: 1) { nodes { id } } }'));
    assert.is(plain.calls.length, 1);
    const searched = await post(served.url, '{ entries(search: "a", first: 50) { totalCount nodes { title } } }');
    assert.is(searched.data.entries.totalCount, searched.data.entries.nodes.length);
    assert.ok(searched.data.entries.nodes.every((n: any) => n.title === 'a'));
  });

  for (const row of ERRORS) {
    test(`error: ${row.name} → extensions { code, parameter, position }`, async () => {
      const { result, calls } = await captureDriver(() =>
        post(served.url, `{ entries(${row.args}) { nodes { id } } }`),
      );
      assert.is(calls.length, 0);
      assert.equal(result.data, { entries: null });
      const error = result.errors?.[0];
      assert.ok(error);
      assert.equal(error.path, ['entries']);
      const { code, parameter, position } = error.extensions as any;
      assert.equal([code, parameter], [row.code, row.parameter]);
      if (row.offset !== undefined) assert.is(position?.offset, row.offset);
    });
  }

  test('tenant isolation: the context picks the base scope; a cursor from one tenant stays in the other', async () => {
    const two = await post(served.url, '{ entries(first: 50) { nodes { id } } }', '2');
    assert.equal(
      two.data.entries.nodes.map((n: any) => n.id),
      live(2),
    );
    const one = await post(served.url, '{ entries(first: 2) { pageInfo { endCursor } } }', '1');
    const cursor = JSON.stringify(one.data.entries.pageInfo.endCursor);
    const crossed = await post(served.url, `{ entries(first: 50, after: ${cursor}) { nodes { id } } }`, '2');
    assert.ok(crossed.data.entries.nodes.length > 0);
    for (const n of crossed.data.entries.nodes) assert.ok(live(2).includes(n.id), `id ${n.id} is not tenant 2's`);
  });

  test('an internal failure says internal_error and nothing else', async () => {
    served.internal.length = 0;
    const res = await post(served.url, '{ entries { nodes { id } } }', 'fail');
    assert.equal(res.errors?.[0]?.message, 'internal server error');
    assert.equal(res.errors?.[0]?.extensions, { code: 'internal_error' });
    assert.not.ok(JSON.stringify(res).includes('hunter2'));
    assert.is(served.internal.length, 1);
  });

  test("graphql-http's server audits: every MUST passes", async () => {
    const audits = serverAudits({ url: served.url });
    const must = audits.filter((a) => a.name.startsWith('MUST'));
    assert.ok(must.length > 10);
    const failed: string[] = [];
    for (const audit of must) {
      const result = await audit.fn();
      if (result.status !== 'ok') failed.push(`${audit.name}: ${result.reason}`);
    }
    assert.equal(failed, []);
  });
});
