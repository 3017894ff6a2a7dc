/**
 * A GraphQL document is one request: all its listql fields share one deadline, counted from when its first field
 * started. A field that gets to its statements after the document's time has run out answers `query_timeout` and
 * sends nothing; its sibling keeps its data.
 */
import type { EntityManager } from '@mikro-orm/core';
import { execute, parse } from 'graphql';
import * as assert from 'uvu/assert';
import { Book, ENTITIES } from '../../examples/bookstore/entities.ts';
import { bookPolicy } from '../../examples/bookstore/policies.ts';
import { seed } from '../../examples/bookstore/seed.ts';
import { createEngine, type ListContext } from '../../src/engine/index.ts';
import { graphqlSchema } from '../../src/graphql/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

eachDialect('engine request deadline, GraphQL', { entities: ENTITIES, seed }, (test) => {
  /** The engine ctx each field's search callback saw. */
  const seen: ListContext[] = [];

  const schemaFor = (em: EntityManager, requestTimeout: number) => {
    const engine = createEngine(em, {
      policy: bookPolicy,
      requestTimeout,
      search: (ctx, qb) => {
        seen.push(ctx);
        return qb;
      },
    });
    const base = () => (em.fork() as any).createQueryBuilder(Book, 'b').where({ tenant: 1 });
    return graphqlSchema({
      endpoints: [
        { field: 'books', type: 'Book', engine, scope: () => ({ base: base() }) },
        // Its scope takes 300 ms to build: by then the document's 200 ms are gone.
        { field: 'lateBooks', type: 'LateBook', engine, scope: () => sleep(300).then(() => ({ base: base() })) },
      ],
    });
  };
  const document = parse('{ books(search: "x") { nodes { id } } lateBooks(search: "x") { nodes { id } } }');

  test('two fields share the document deadline: the late one is query_timeout and sends nothing', async ({ em }) => {
    seen.length = 0;
    const schema = schemaFor(em, 200);
    const { result, calls } = await captureDriver(async () => execute({ schema, document }));
    const data = result.data as { books: { nodes: unknown[] } | null; lateBooks: unknown } | null | undefined;
    assert.is(data?.books?.nodes.length, 8);
    assert.is(data?.lateBooks, null);
    assert.equal(
      result.errors?.map((e) => [e.path?.join('.'), e.extensions.code]),
      [['lateBooks', 'query_timeout']],
    );
    assert.is(calls.length, 1, `statements: ${calls.map((c) => c.sql).join('\n')}`);
    // Both fields' requests counted from the same instant: the document's start.
    assert.is(seen.length, 2);
    assert.ok(typeof seen[0]?.requestStart === 'number');
    assert.is(seen[1]?.requestStart, seen[0]?.requestStart);
  });

  test('with time enough, both fields answer; another execution of the document has its own deadline', async ({
    em,
  }) => {
    seen.length = 0;
    const schema = schemaFor(em, 5000);
    for (let run = 0; run < 2; run++) {
      const result = await execute({ schema, document });
      assert.is(result.errors, undefined, JSON.stringify(result.errors));
    }
    assert.is(seen.length, 4);
    assert.ok(seen[2]!.requestStart! > seen[0]!.requestStart!, 'the second execution reused the first one start');
  });
});
