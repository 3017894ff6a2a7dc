/**
 * Planned builders reused by shape (planResolved() copies the state MikroORM built for a shape planned before, with
 * the request's values): over random filters (to-one paths, nested any/all, aggregates), sorts (to-one paths and
 * aggregate keys, which are planned afresh), pages, tenants and base scopes, sent again and with new literals, the
 * builder planResolved() returns gives what a fresh plan on a copy of the base gives: the same SQL text and values,
 * the same state, the same rows, the same SQL after the caller adds to it, and the same error. A builder handed out
 * is the caller's: changing, running or copying it changes no later plan.
 */
import { type EntityManager, isRaw, QueryFlag } from '@mikro-orm/core';
import fc from 'fast-check';
import * as assert from 'uvu/assert';
import { resolveQuery } from '../../src/bind/index.ts';
import type { BoundSchema } from '../../src/bind/types.ts';
import { execute } from '../../src/engine/execute.ts';
import { type ApplyOptions, planInPlace, planResolved } from '../../src/plan/plan-query.ts';
import { shapedBuilderHits } from '../../src/plan/prepared.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { Book, libraryEntities, libraryOptions, useTenant } from '../fixtures/library.ts';
import { eachDialect } from '../helpers/db.ts';
import { shapeFor } from '../oracle/arbitraries.ts';
import { budget, check, SEED } from '../oracle/budget.ts';
import { bookPolicy, bookSpec, generateLibrary, loadLibrary } from '../oracle/library.ts';
import { requestArb, requestValues } from '../oracle/request.ts';
import { dbModelFor } from '../oracle/values.ts';

const LIBRARY = generateLibrary(SEED, 40);
const RUNS = budget(60);
const SHAPE = { depth: 3, hops: 2, quantifiers: 1 };

/**
 * Base scopes: plain, with a condition (a date in one), with a page of its own, with an order, with a flag and a
 * comment, and one no key reads (raw SQL).
 */
const BASES = [
  (em: EntityManager) => qbOf(em),
  (em: EntityManager) => qbOf(em).where({ id: { $gt: 2 } }),
  (em: EntityManager) => qbOf(em).limit(7, 3),
  (em: EntityManager) =>
    qbOf(em)
      .where({ $or: [{ price: null }, { price: { $lt: 50 } }] })
      .orderBy({ title: 'asc' }),
  (em: EntityManager) => qbOf(em).where({ deletedAt: { $ne: new Date('2020-01-01T00:00:00Z') } }),
  (em: EntityManager) => qbOf(em).setFlag(QueryFlag.DISTINCT).comment('listed'),
  (em: EntityManager) => qbOf(em).where('b.id > ?', [1]),
];

function qbOf(em: EntityManager) {
  return (em as any).createQueryBuilder(Book, 'b');
}

const NUMBER = /(?<![\w'.])-?\d+(?:\.\d+)?(?![\w'])/g;

/** The filter with each number literal moved by `shift`: the same shape, new values. */
function relit(filter: string, shift: number): string {
  let k = 0;
  return filter.replace(NUMBER, (n) => String(Number(n) + shift + k++));
}

/** Deferred SQL markers number each plan's fragments: the same plan twice differs only there. */
const sql = (text: string) => text.replace(/\/\*listql:\d+\*\//g, '/*listql*/');

/**
 * A builder's state as comparable data: raw fragments (keys too) as their SQL and values, metadata by name, other
 * class instances by their class, an object met again on the way down as such.
 */
function normal(value: unknown, path: Set<object> = new Set()): unknown {
  if (typeof value === 'function') return `fn:${value.name}`;
  if (typeof value === 'symbol') return `sym:${sql(value.description ?? '')}`;
  if (typeof value === 'string') return sql(value);
  if (value === null || typeof value !== 'object') return value;
  if (isRaw(value)) return { raw: value.sql, params: normal(value.params, path) };
  if (value.constructor?.name === 'EntityMetadata') return `meta:${(value as { className: string }).className}`;
  if (value instanceof Date) return value.toISOString();
  if (path.has(value)) return '[again]';
  const inner = new Set(path).add(value);
  if (Array.isArray(value)) return value.map((v) => normal(v, inner));
  if (value instanceof Set) return { set: [...value].map((v) => normal(v, inner)) };
  if (value instanceof Map) return { map: [...value].map((v) => normal(v, inner)) };
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return `instance:${value.constructor?.name}`;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = normal((value as Record<string, unknown>)[key], inner);
  for (const symbol of Object.getOwnPropertySymbols(value))
    out[`raw:${sql(symbol.description ?? '')}`] = normal((value as Record<symbol, unknown>)[symbol], inner);
  return out;
}

type Planned = { qb: any; sort: unknown; paging: unknown } | { error: unknown };

function attempt(plan: () => { qb: any; sort: unknown; paging: unknown }): Planned {
  try {
    return plan();
  } catch (err) {
    const e = err as { code?: string; parameter?: string; position?: unknown; message: string };
    return { error: { code: e.code, parameter: e.parameter, position: e.position, message: e.message } };
  }
}

/** What a planned builder gives: SQL, values, state, and the SQL of a copy and of an addition. */
function view(planned: Planned): unknown {
  if ('error' in planned) return planned;
  const { qb, sort, paging } = planned;
  const state = qb.state;
  const shared = state.mainAlias === state.aliases[state.mainAlias.aliasName];
  // The sort keys' terms are the resolved request's own (the same objects in both plans).
  const keys = normal((sort as { term?: unknown }[]).map(({ term, ...key }) => ({ ...key, term: term !== undefined })));
  const seen = { sql: sql(qb.getQuery()), params: qb.getParams(), state: normal(state), shared, sort: keys, paging };
  const copy = qb.clone();
  const added = qb
    .clone()
    .andWhere({ id: { $ne: 5 } })
    .orderBy({ id: 'desc' });
  return { ...seen, copy: sql(copy.getQuery()), added: [sql(added.getQuery()), added.getParams()] };
}

function optionsFor(visibility: { softDelete: boolean; pricedBook: boolean }): ApplyOptions {
  return { filters: { ...(visibility.softDelete ? {} : { softDelete: false }), pricedBook: visibility.pricedBook } };
}

async function rows(planned: Planned): Promise<unknown> {
  if ('error' in planned) return planned;
  try {
    return (await execute(planned.qb)).map((r) => r['id']);
  } catch (err) {
    // A statement the database refuses (DISTINCT with an aggregate order on PostgreSQL) is refused alike.
    return { failed: sql(String((err as { cause?: unknown }).cause ?? err)) };
  }
}

/** Compare as JSON text, so that a difference is shown as the two texts (uvu's diff of deep states overflows). */
function same(got: unknown, want: unknown, tag: string): void {
  const text = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
  const [a, b] = [text(got), text(want)];
  if (a !== b) assert.unreachable(`${tag}\n got  ${a}\n want ${b}`);
}

eachDialect(
  'planned builders reused by shape',
  { entities: libraryEntities, seed: (em) => loadLibrary(em, LIBRARY), options: libraryOptions },
  (test, dialect) => {
    const shape = { ...SHAPE, ...shapeFor(dbModelFor(dialect)) };
    const visibility = fc.record({ softDelete: fc.boolean(), pricedBook: fc.boolean(), tenant: fc.constantFrom(1, 2) });

    test(`${RUNS} random requests, sent again and with new literals, plan as a fresh plan does`, async ({ db }) => {
      const bound: BoundSchema = bookPolicy.bind(db.orm);
      const before = shapedBuilderHits();
      const arb = fc.tuple(
        // Sorts on the root's own fields (copied plans), or through relations and aggregates (planned afresh).
        fc.oneof(
          { weight: 2, arbitrary: requestArb(bookSpec, shape, 10, 0) },
          { weight: 1, arbitrary: requestArb(bookSpec, shape, 10, SHAPE.hops, { aggregates: true }) },
        ),
        visibility,
        fc.nat(BASES.length - 1),
      );
      await check(arb, RUNS, async ([request, seen, b]) => {
        const em = db.orm.em.fork();
        useTenant(em, seen.tenant);
        const base = BASES[b]!(em);
        const values = requestValues(request);
        const options = optionsFor(seen);
        const filters = values['filter']
          ? [values['filter'], relit(values['filter'], 1), relit(values['filter'], 7)]
          : [];
        for (const filter of [...filters, filters[0], values['filter'], filters[2]]) {
          const query = { ...values, ...(filter === undefined ? {} : { filter }) };
          let resolved: ReturnType<typeof resolveQuery>;
          try {
            resolved = resolveQuery(bound, parseHTTP(query));
          } catch {
            continue; // refused before any plan (a moved literal out of its field's range): no plan to compare
          }
          const got = attempt(() => planResolved(base, bound, resolved, options));
          const want = attempt(() => planInPlace(base.clone(), bound, resolved, options));
          const tag = `${JSON.stringify(query)} base ${b}`;
          same(view(got), view(want), tag);
          same(await rows(got), await rows(want), `${tag}: rows`);
        }
      });
      assert.ok(shapedBuilderHits() - before > RUNS, `kept states served ${shapedBuilderHits() - before} plans`);
    });

    test(`filters of ${RUNS} new shapes under a few bases and orders: each a copy of another filter's state, as a fresh plan`, async ({
      db,
    }) => {
      const bound: BoundSchema = bookPolicy.bind(db.orm);
      const before = shapedBuilderHits();
      let planned = 0;
      // Few bases and orders, many filters: each base and order's state, kept from its second filter on, serves the
      // filters of every other shape with its text replaced.
      const arb = fc.tuple(
        requestArb(bookSpec, shape, 10, 0),
        fc.nat(2),
        fc.constantFrom('-price', 'title,id', undefined),
      );
      await check(arb, RUNS * 2, async ([request, b, sort]) => {
        const em = db.orm.em.fork();
        useTenant(em, 1);
        const base = BASES[b]!(em);
        const { sort: _sort, ...values } = requestValues(request);
        if (values['filter'] === undefined) return;
        const query = { ...values, ...(sort === undefined ? {} : { sort }) };
        let resolved: ReturnType<typeof resolveQuery>;
        try {
          resolved = resolveQuery(bound, parseHTTP(query));
        } catch {
          return;
        }
        const got = attempt(() => planResolved(base, bound, resolved));
        const want = attempt(() => planInPlace(base.clone(), bound, resolved));
        const tag = `${JSON.stringify(query)} base ${b}`;
        same(view(got), view(want), tag);
        same(await rows(got), await rows(want), `${tag}: rows`);
        planned++;
      });
      // At most two plans of each of the nine bases and orders go through MikroORM (and a shape whose filter text
      // MikroORM would rewrite, none here); every other is a copy.
      assert.ok(planned > 20, `only ${planned} filters planned`);
      assert.ok(shapedBuilderHits() - before >= planned - 18, `copies ${shapedBuilderHits() - before} of ${planned}`);
    });

    test('a builder handed out is the caller’s: changing, running or copying it changes no later plan', async ({
      db,
    }) => {
      const bound: BoundSchema = bookPolicy.bind(db.orm);
      const em = db.orm.em.fork();
      const base = qbOf(em).where({ id: { $gt: 0 } });
      const plan = (n: number) => {
        const resolved = resolveQuery(
          bound,
          parseHTTP({ filter: `price gt ${n} and title ne 'x${n}'`, sort: '-price' }),
        );
        return [planResolved(base, bound, resolved), planInPlace(base.clone(), bound, resolved)] as const;
      };
      const before = shapedBuilderHits();
      const handed = [plan(1)[0], plan(2)[0], plan(3)[0]];
      assert.is(shapedBuilderHits() - before, 1);
      for (const { qb } of handed) {
        qb.andWhere({ title: { $ne: 'y' } })
          .orderBy({ id: 'asc' })
          .limit(1)
          .offset(2);
        qb.groupBy('b.id');
        await qb.execute('all', false);
        qb.clone().andWhere({ id: { $lt: 99 } });
      }
      for (const n of [4, 5]) {
        const [got, want] = plan(n);
        same(view(got), view(want), `price gt ${n}`);
        assert.ok(got.qb.getParams().includes(n) && got.qb.getParams().includes(`x${n}`), 'its own values');
      }
      assert.is(shapedBuilderHits() - before, 3);
      // The base itself is never planned on.
      assert.equal(normal(base.state), normal(qbOf(em).where({ id: { $gt: 0 } }).state));
    });
  },
);
