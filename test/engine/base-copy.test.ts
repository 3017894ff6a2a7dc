/**
 * The engine's private copy of a base scope (privateCopy(), engine.from()): a builder in its default state is copied
 * as a fresh builder rather than with clone(). Over plain bases (under two aliases, in a transaction, read from the
 * primary) and bases with state of their own, the copy gives what `clone()` gives: the same builderKey, the same
 * EntityManager, context and connection type, the same SQL, values and rows once the same request is planned into
 * it, and the same page through the engine. Changing the caller's builder afterwards reaches neither copy.
 */
import { type EntityManager, QueryFlag } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { resolveQuery } from '../../src/bind/index.ts';
import type { BoundSchema } from '../../src/bind/types.ts';
import { execute } from '../../src/engine/execute.ts';
import { createEngine } from '../../src/engine/index.ts';
import { builderKey, privateCopy } from '../../src/orm/qb-state.ts';
import { onPrimary } from '../../src/orm/replicas.ts';
import { planInPlace } from '../../src/plan/plan-query.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { Book, libraryEntities, libraryOptions, useTenant } from '../fixtures/library.ts';
import { eachDialect } from '../helpers/db.ts';
import { bookPolicy, generateLibrary, loadLibrary } from '../oracle/library.ts';

const LIBRARY = generateLibrary(7, 30);

const qbOf = (em: EntityManager, alias = 'b') => (em as any).createQueryBuilder(Book, alias);

/** Base scopes: plain under two aliases and read from the primary, then with state of their own. */
const BASES: Record<string, (em: EntityManager) => any> = {
  plain: (em) => qbOf(em),
  alias: (em) => qbOf(em, 'x'),
  primary: (em) => onPrimary(qbOf(em)),
  where: (em) => qbOf(em).where({ id: { $gt: 2 } }),
  paged: (em) => qbOf(em).limit(7, 3),
  flagged: (em) => qbOf(em).setFlag(QueryFlag.DISTINCT).comment('listed'),
  raw: (em) => qbOf(em).where('b.id > ?', [1]),
};

const REQUESTS = [
  { sort: 'price,id', limit: '5' },
  { filter: "price gt 10 and title ne 'x'", sort: '-title', limit: '4', offset: '2' },
  { filter: 'id lt 20', fields: 'id,title' },
];

const sql = (text: string) => text.replace(/\/\*listql:\d+\*\//g, '/*listql*/');

/** Where and how a builder runs: its EntityManager, transaction context and connection type. */
function runs(qb: any): unknown[] {
  return [qb.em, qb.context, qb.connectionType, qb.loggerContext];
}

async function planned(qb: any, bound: BoundSchema, query: Record<string, string>): Promise<unknown> {
  const { qb: plannedQb } = planInPlace(qb, bound, resolveQuery(bound, parseHTTP(query)));
  const rows = (await execute(plannedQb)).map((r) => r['id']);
  return { sql: sql(plannedQb.getQuery()), params: plannedQb.getParams(), rows };
}

eachDialect(
  'the private copy of a base scope',
  { entities: libraryEntities, seed: (em) => loadLibrary(em, LIBRARY), options: libraryOptions },
  (test) => {
    test('every base: the copy plans, runs and is keyed as clone() of it', async ({ db }) => {
      const bound: BoundSchema = bookPolicy.bind(db.orm);
      for (const [name, make] of Object.entries(BASES)) {
        for (const query of REQUESTS) {
          const em = db.orm.em.fork();
          useTenant(em, 1);
          const base = make(em);
          const { copy, key } = privateCopy(base);
          const cloned = base.clone();
          const tag = `${name} ${JSON.stringify(query)}`;
          assert.is(key, builderKey(base), `${tag}: key`);
          assert.is(builderKey(copy), builderKey(cloned), `${tag}: copy's key`);
          assert.ok(copy !== base && copy.state !== base.state, `${tag}: a copy`);
          assert.equal(runs(copy), runs(cloned), `${tag}: where it runs`);
          const [got, want] = [await planned(copy, bound, query), await planned(cloned, bound, query)];
          assert.equal(got, want, tag);
        }
      }
    });

    test('in a transaction, the copy runs on it', async ({ db }) => {
      await db.orm.em.fork().transactional(async (em) => {
        const base = qbOf(em);
        const { copy } = privateCopy(base);
        assert.ok(runs(base)[1] !== undefined, 'the base has a transaction context');
        assert.equal(runs(copy), runs(base.clone()));
      });
    });

    test('changing the caller’s builder after from() reaches neither the copy nor the scope', async ({ db }) => {
      const engine = createEngine(db.orm, { policy: bookPolicy });
      const query = { sort: 'id', limit: '50' };
      const em = db.orm.em.fork();
      useTenant(em, 1);
      const want = await engine.from(qbOf(em)).list(query);
      const base = qbOf(em);
      const { copy } = privateCopy(base);
      const before = copy.getQuery();
      const scoped = engine.from(base);
      base.where({ id: { $lt: 0 } }).limit(1);
      assert.is(copy.getQuery(), before);
      assert.equal(await scoped.list(query), want);
      assert.ok(want.items.length > 1, 'the page has items');
    });
  },
);
