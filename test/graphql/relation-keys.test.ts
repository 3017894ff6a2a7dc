/**
 * listql/graphql nodes carry each exposed to-one relation's key as `<relation>Id` (the REST item's key under the
 * relation's own item key), typed from the target's key and nullable with the relation; to-many relations have none.
 * Selecting it reads the relation's key column and nothing more.
 */
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { graphqlSchema, printSchema } from '../../src/graphql/index.ts';
import { schema, selectable } from '../../src/policy/index.ts';
import { ENTRIES, Entry, entryPolicy, seedWalk, Tag, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { entriesEndpoint, postQuery, type ServedSchema, serveSchema, tenantEntries } from '../helpers/graphql-serve.ts';

// Tags point at their entry through a NOT NULL to-one relation, named like its property.
const tagPolicy = schema(Tag).expose('name', selectable()).relation('entry', schema(Entry).expose('id'));

eachDialect('graphql-relation-keys', { entities: walkEntities, seed: seedWalk }, (test) => {
  let served: ServedSchema;
  test.before(async ({ db }) => {
    const em = db.orm.em.fork();
    served = await serveSchema(
      graphqlSchema({
        endpoints: [
          entriesEndpoint(em),
          {
            field: 'tags',
            type: 'Tag',
            engine: createEngine(em, { policy: tagPolicy, maxLimit: 50 }),
            scope: () => ({ base: (em.fork() as any).createQueryBuilder(Tag, 't') }),
          },
        ],
      }),
    );
  });
  test.after(() => served.close());

  test('SDL: groupId (nullable) and entryId (non-null); no field for a to-many relation', async () => {
    const sdl = (await postQuery(served.url, '{ __schema { types { name fields { name type { kind name } } } } }'))
      .data;
    const fieldsOf = (name: string) =>
      sdl.__schema.types.find((t: any) => t.name === name).fields.map((f: any) => [f.name, f.type.kind, f.type.name]);
    const entry = fieldsOf('Entry');
    assert.ok(
      entry.some((f: unknown[]) => f[0] === 'groupId' && f[1] === 'SCALAR' && f[2] === 'Int'),
      'groupId',
    );
    assert.not.ok(entry.some((f: unknown[]) => f[0] === 'group' || f[0] === 'tags' || f[0] === 'tagsId'));
    assert.equal(fieldsOf('Tag'), [
      ['id', 'NON_NULL', null],
      ['name', 'NON_NULL', null],
      ['entryId', 'NON_NULL', null],
    ]);
  });

  test('groupId is the REST item key of the relation, read from the key column alone', async ({ em }) => {
    const rest = await createEngine(em, { policy: entryPolicy, maxLimit: 50 })
      .from(tenantEntries(em))
      .list({ limit: '50' });
    const { result, calls } = await captureDriver(() =>
      postQuery(served.url, '{ entries(first: 50) { nodes { id groupId } } }'),
    );
    assert.is(result.errors, undefined, JSON.stringify(result.errors));
    assert.equal(
      result.data.entries.nodes,
      rest.items.map((i) => ({ id: i.id, groupId: i.team ?? null })),
    );
    const expected = ENTRIES.filter((e) => e.tenant === 1 && !e.deleted).map((e) => ({ id: e.id, groupId: e.team }));
    assert.equal(result.data.entries.nodes, expected);
    assert.ok(expected.some((e) => e.groupId === null) && expected.some((e) => e.groupId !== null));
    const select = calls[0]!.sql.slice(0, calls[0]!.sql.indexOf(' from '));
    assert.ok(select.includes('team_key'), select);
    for (const column of ['label_text', 'score_value', 'big_number', '*'])
      assert.not.ok(select.includes(column), select);
  });

  test('entryId of a NOT NULL relation, beside other fields and through an edge', async () => {
    const result = await postQuery(served.url, '{ tags(first: 50) { edges { node { id entryId name } } } }');
    assert.is(result.errors, undefined, JSON.stringify(result.errors));
    assert.ok(result.data.tags.edges.length > 5);
    for (const { node } of result.data.tags.edges) assert.is(typeof node.entryId, 'number');
  });

  test('printSchema shows the key fields', ({ em }) => {
    const sdl = printSchema(
      graphqlSchema({
        endpoints: [
          {
            field: 'tags',
            type: 'Tag',
            engine: createEngine(em, { policy: tagPolicy }),
            scope: () => ({ base: null as never }),
          },
        ],
      }),
    );
    assert.match(sdl, /type Tag \{\n {2}id: Int!\n {2}name: String!\n {2}entryId: Int!\n\}/);
  });
});
