/**
 * listql/graphql pages backward: `last` alone reads the end of the list, `last` + `before` the rows before an edge,
 * always in the requested order, with a real `hasPreviousPage`. Walked back to the start over nullable, duplicate and
 * descending sort keys and compared with the REST order; argument mix-ups are errors named after the argument.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { graphqlSchema, printSchema } from '../../src/graphql/index.ts';
import { ENTRIES, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { entriesEndpoint, postQuery, type ServedSchema, serveSchema, tenantEntries } from '../helpers/graphql-serve.ts';

const SORTS = ['-score', 'score', 'amount,-title', 'day,-big', 'title', undefined] as const;

function engineOf(em: EntityManager) {
  return createEngine(em, { policy: entryPolicy, maxLimit: 50, allowCount: true });
}

const sortArg = (sort: string | undefined) => (sort === undefined ? '' : `, sort: ${JSON.stringify(sort)}`);
const ids = (page: any): number[] => page.edges.map((e: any) => e.node.id);
const PAGE = '{ edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }';

eachDialect('graphql-backward', { entities: walkEntities, seed: seedWalk }, (test) => {
  let served: ServedSchema;
  test.before(async ({ db }) => {
    const em = db.orm.em.fork();
    served = await serveSchema(
      graphqlSchema({
        endpoints: [entriesEndpoint(em, { allowCount: true })],
      }),
    );
  });
  test.after(() => served.close());

  test('SDL: connections take last and before', ({ em }) => {
    const built = graphqlSchema({
      endpoints: [{ field: 'entries', type: 'Entry', engine: engineOf(em), scope: () => ({ base: null as never }) }],
    });
    const args = built
      .getQueryType()!
      .getFields()
      .entries!.args.map((a) => `${a.name}: ${String(a.type)}`);
    assert.equal(args, [
      'filter: String',
      'sort: String',
      'first: Int',
      'after: String',
      'last: Int',
      'before: String',
      'offset: Int',
    ]);
    assert.match(printSchema(built), /hasPreviousPage: Boolean!/);
  });

  for (const sort of SORTS)
    test(`last alone, then before = startCursor, walk back to the start in order (sort ${sort ?? 'none'})`, async ({
      em,
    }) => {
      const rest = await engineOf(em)
        .from(tenantEntries(em.fork()))
        .list({ limit: '50', ...(sort === undefined ? {} : { sort }) });
      const order = rest.items.map((i) => i.id as number);
      assert.ok(order.length > 8);
      const seen: number[][] = [];
      let before: string | null = null;
      for (let i = 0; i < 20; i++) {
        const args = `last: 3${sortArg(sort)}${before === null ? '' : `, before: ${JSON.stringify(before)}`}`;
        const res = await postQuery(served.url, `{ entries(${args}) ${PAGE} }`);
        assert.is(res.errors, undefined, JSON.stringify(res.errors));
        const page = res.data.entries;
        seen.unshift(ids(page));
        const end = order.length - seen.flat().length;
        assert.equal(ids(page), order.slice(Math.max(end, 0), end + ids(page).length), `page ${i}`);
        assert.is(page.pageInfo.hasPreviousPage, end > 0, `hasPreviousPage of page ${i}`);
        assert.is(page.pageInfo.hasNextPage, before !== null, `hasNextPage of page ${i}`);
        assert.is(page.pageInfo.startCursor, page.edges[0].cursor);
        assert.is(page.pageInfo.endCursor, page.edges.at(-1).cursor);
        before = page.pageInfo.startCursor;
        if (!page.pageInfo.hasPreviousPage) break;
      }
      assert.equal(seen.flat(), order);
    });

  test('before an edge: the rows right before it, with cursors that page forward again', async () => {
    const all = await postQuery(served.url, `{ entries(first: 50, sort: "-score") ${PAGE} }`);
    const edges = all.data.entries.edges;
    const before = JSON.stringify(edges[6].cursor);
    const res = await postQuery(served.url, `{ entries(last: 2, sort: "-score", before: ${before}) ${PAGE} }`);
    assert.equal(ids(res.data.entries), ids({ edges: edges.slice(4, 6) }));
    assert.equal(
      res.data.entries.edges.map((e: any) => e.cursor),
      edges.slice(4, 6).map((e: any) => e.cursor),
    );
    const forward = await postQuery(
      served.url,
      `{ entries(first: 1, sort: "-score", after: ${JSON.stringify(res.data.entries.pageInfo.endCursor)}) ${PAGE} }`,
    );
    assert.equal(ids(forward.data.entries), [edges[6].node.id]);
    const start = await postQuery(
      served.url,
      `{ entries(last: 5, sort: "-score", before: ${JSON.stringify(edges[2].cursor)}) ${PAGE} }`,
    );
    assert.equal(ids(start.data.entries), ids({ edges: edges.slice(0, 2) }));
    assert.is(start.data.entries.pageInfo.hasPreviousPage, false);
    assert.is(start.data.entries.pageInfo.hasNextPage, true);
  });

  test('last: 0 and totalCount: no rows, the full count', async () => {
    const res = await postQuery(
      served.url,
      '{ entries(last: 0) { totalCount nodes { id } pageInfo { hasPreviousPage } } }',
    );
    const live = ENTRIES.filter((e) => e.tenant === 1 && !e.deleted).length;
    assert.equal(res.data.entries, { totalCount: live, nodes: [], pageInfo: { hasPreviousPage: false } });
  });

  test('forward pages keep hasPreviousPage: true after a cursor or an offset', async () => {
    const first = await postQuery(served.url, `{ entries(first: 2) ${PAGE} }`);
    assert.is(first.data.entries.pageInfo.hasPreviousPage, false);
    const offset = await postQuery(served.url, `{ entries(first: 2, offset: 1) ${PAGE} }`);
    assert.is(offset.data.entries.pageInfo.hasPreviousPage, true);
  });

  const ERRORS = [
    { args: 'first: 2, last: 2', code: 'invalid_parameter', parameter: 'last' },
    { args: 'last: 2, after: "abc"', code: 'invalid_parameter', parameter: 'after' },
    { args: 'first: 2, before: "abc"', code: 'invalid_parameter', parameter: 'before' },
    { args: 'last: 2, offset: 3', code: 'invalid_parameter', parameter: 'offset' },
    { args: 'last: 51', code: 'limit_exceeded', parameter: 'last' },
    { args: 'last: -1', code: 'invalid_parameter', parameter: 'last' },
    { args: 'last: 2, before: "a=b"', code: 'invalid_cursor', parameter: 'before' },
  ];
  for (const row of ERRORS)
    test(`error: ${row.args} → ${row.code} on ${row.parameter}, before any query`, async () => {
      const { result, calls } = await captureDriver(() =>
        postQuery(served.url, `{ entries(${row.args}) { nodes { id } } }`),
      );
      assert.is(calls.length, 0);
      const error = result.errors?.[0];
      assert.equal([error?.extensions?.code, error?.extensions?.parameter], [row.code, row.parameter]);
    });
});
