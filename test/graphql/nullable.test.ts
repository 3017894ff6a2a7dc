/**
 * listql/graphql connection fields are nullable: a client error or an internal failure on one root field nulls that
 * field only, and its siblings (aliases of the same endpoint, other endpoints) keep their data.
 */
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { graphqlSchema } from '../../src/graphql/index.ts';
import { Cell, cellPolicy, ENTRIES, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { entriesEndpoint, postQuery, type ServedSchema, serveSchema } from '../helpers/graphql-serve.ts';

eachDialect('graphql-nullable', { entities: walkEntities, seed: seedWalk }, (test) => {
  let served: ServedSchema;
  const internal: unknown[] = [];
  test.before(async ({ db }) => {
    const em = db.orm.em.fork();
    const schema = graphqlSchema<{ tenant: string | undefined }>({
      endpoints: [
        entriesEndpoint(em),
        {
          field: 'cells',
          type: 'Cell',
          engine: createEngine(em, { policy: cellPolicy }),
          scope: ({ tenant }) => {
            if (tenant === 'fail') throw new Error('the cells database is down');
            return { base: (em.fork() as any).createQueryBuilder(Cell, 'c') };
          },
        },
      ],
      onInternalError: (err) => internal.push(err),
    });
    served = await serveSchema(schema);
  });
  test.after(() => served.close());

  const live = ENTRIES.filter((e) => e.tenant === 1 && !e.deleted).map((e) => e.id);

  test('a bad argument on one alias leaves its sibling alias and the other endpoint intact', async () => {
    const { result, calls } = await captureDriver(() =>
      postQuery(
        served.url,
        '{ bad: entries(filter: "score gt") { nodes { id } } good: entries(first: 3) { nodes { id } } cells(first: 2) { nodes { row col } } }',
      ),
    );
    assert.is(result.data.bad, null);
    assert.equal(
      result.data.good.nodes.map((n: any) => n.id),
      live.slice(0, 3),
    );
    assert.is(result.data.cells.nodes.length, 2);
    assert.is(result.errors?.length, 1);
    assert.equal(result.errors?.[0]?.path, ['bad']);
    assert.is(result.errors?.[0]?.extensions?.code, 'invalid_syntax');
    assert.is(calls.length, 2);
  });

  test('an internal failure of one endpoint leaves the other endpoint intact', async () => {
    internal.length = 0;
    const result = await postQuery(
      served.url,
      '{ entries(first: 2) { nodes { id } } cells { nodes { row } } }',
      'fail',
    );
    assert.equal(result.data, { entries: { nodes: live.slice(0, 2).map((id) => ({ id })) }, cells: null });
    assert.equal(result.errors?.[0]?.extensions, { code: 'internal_error' });
    assert.equal(result.errors?.[0]?.path, ['cells']);
    assert.is(internal.length, 1);
  });

  test('the connection field types are nullable in the schema', async () => {
    const result = await postQuery(served.url, '{ __type(name: "Query") { fields { name type { kind name } } } }');
    assert.equal(result.data.__type.fields, [
      { name: 'entries', type: { kind: 'OBJECT', name: 'EntryConnection' } },
      { name: 'cells', type: { kind: 'OBJECT', name: 'CellConnection' } },
    ]);
  });
});
