/**
 * Nothing but a ListError leaves list(), pages(), items(), a count, explain() or apply(): client errors keep their
 * code, and any other failure (a filter condition MikroORM cannot compile, a filter whose arguments are missing, a
 * base scope on a table that does not exist) becomes `execution_failed` with the original error as its `cause`.
 * Failures are injected the way an application meets them, on both dialects.
 */
import { type EntityManager, EntitySchema, type FilterOptions } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { resolveQuery } from '../../src/bind/index.ts';
import { createEngine } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { apply, prepareFilters } from '../../src/plan/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { Book, libraryEntities, libraryOptions, Review, seedLibrary } from '../fixtures/library.ts';
import { eachDialect } from '../helpers/db.ts';
import { bookPolicy } from '../helpers/library-policies.ts';

/** An entity whose table the test drops after creating the schema. */
class Ghost {
  id!: number;
}
const GhostSchema = new EntitySchema<Ghost>({ class: Ghost, properties: { id: { type: 'integer', primary: true } } });
const ghostPolicy = schema(Ghost).expose('id', filterable(), sortable());

const options = {
  filters: {
    ...libraryOptions.filters,
    // MikroORM refuses this condition when it compiles it: Book has no `nope`.
    brokenPath: { name: 'brokenPath', cond: { book: { nope: 1 } }, entity: [Review], default: false },
    // MikroORM's em.applyFilters throws a plain Error when a filter's arguments are missing.
    needsArgs: {
      name: 'needsArgs',
      cond: (args: { id: number }) => ({ tenant: args.id }),
      entity: [Book],
      default: false,
    },
  },
};

type Operation = 'list' | 'count' | 'pages' | 'items' | 'explain';

interface Case {
  readonly name: string;
  readonly base: (em: EntityManager) => any;
  readonly policy: typeof bookPolicy;
  readonly filters?: FilterOptions;
  readonly query: string;
  /** Expected code; `cause` is the start of the original error's message (execution_failed only). */
  readonly code: string;
  readonly cause?: RegExp;
  readonly operations: readonly Operation[];
}

const ALL: readonly Operation[] = ['list', 'count', 'pages', 'items', 'explain'];

const CASES: readonly Case[] = [
  {
    name: 'a related filter condition MikroORM rejects',
    base: (em) => (em as any).createQueryBuilder(Book, 'b'),
    policy: bookPolicy,
    filters: { brokenPath: true },
    query: 'filter=reviews/any(r: r/stars gt 1)',
    code: 'execution_failed',
    cause: /not existing property/,
    operations: ALL,
  },
  {
    name: 'a root filter without its arguments',
    base: (em) => (em as any).createQueryBuilder(Book, 'b'),
    policy: bookPolicy,
    filters: { needsArgs: true },
    query: '',
    code: 'execution_failed',
    cause: /No arguments provided/,
    operations: ALL,
  },
  {
    name: 'a base scope on a table that does not exist',
    base: (em) => (em as any).createQueryBuilder(Ghost, 'g'),
    policy: ghostPolicy as typeof bookPolicy,
    query: 'sort=id',
    code: 'execution_failed',
    cause: /ghost/i,
    // explain() runs nothing, so a missing table cannot fail it.
    operations: ['list', 'count', 'pages', 'items'],
  },
  {
    name: 'a client error keeps its code',
    base: (em) => (em as any).createQueryBuilder(Book, 'b'),
    policy: bookPolicy,
    query: 'filter=nope eq 1',
    code: 'unknown_field',
    operations: ALL,
  },
];

async function run(em: EntityManager, c: Case, op: Operation): Promise<unknown> {
  const engine = createEngine(em, { policy: c.policy, allowCount: true });
  const scoped = engine.from(c.base(em), c.filters === undefined ? {} : { filters: c.filters });
  const query = op === 'count' ? `${c.query}&count=true&limit=0` : c.query;
  try {
    if (op === 'list' || op === 'count') await scoped.list(query);
    else if (op === 'explain') await scoped.explain(query);
    else for await (const _ of op === 'pages' ? scoped.pages(query) : scoped.items(query));
  } catch (err) {
    return err;
  }
  return undefined;
}

function check(err: unknown, c: Case): void {
  assert.ok(isListError(err), `expected a ListError, got ${String(err)}`);
  assert.is(err.code, c.code);
  if (c.cause) {
    assert.instance(err.cause, Error);
    assert.match((err.cause as Error).message, c.cause);
    // The public shape never carries the cause.
    assert.not.ok('cause' in err.toJSON());
  }
}

eachDialect(
  'errors: only ListErrors escape',
  {
    entities: [...libraryEntities, GhostSchema],
    seed: async (em) => {
      await seedLibrary(em);
      await em.getConnection().execute('drop table ghost');
    },
    options,
  },
  (test) => {
    for (const c of CASES)
      for (const op of c.operations)
        test(`${op}: ${c.name}`, async ({ em }) => {
          check(await run(em, c, op), c);
        });

    // apply(): synchronous conditions, and conditions from prepareFilters.
    const applyCases = [
      { name: 'a related filter condition MikroORM rejects', filters: { brokenPath: true } },
    ] as const;
    for (const a of applyCases) {
      test(`apply: ${a.name}`, ({ em }) => {
        const bound = bookPolicy.bind(em);
        const parsed = parseHTTP({ filter: 'reviews/any(r: r/stars gt 1)' });
        let err: unknown;
        try {
          apply((em as any).createQueryBuilder(Book, 'b'), bound, parsed, { filters: a.filters });
        } catch (e) {
          err = e;
        }
        check(err, { ...CASES[0]!, code: 'execution_failed' });
      });
      test(`apply + prepareFilters: ${a.name}`, async ({ em }) => {
        const bound = bookPolicy.bind(em);
        const parsed = parseHTTP({ filter: 'reviews/any(r: r/stars gt 1)' });
        const base = (em as any).createQueryBuilder(Book, 'b');
        let err: unknown;
        try {
          const filterConditions = await prepareFilters(base, bound, resolveQuery(bound, parsed), a.filters);
          apply(base, bound, parsed, { filterConditions });
        } catch (e) {
          err = e;
        }
        check(err, { ...CASES[0]!, code: 'execution_failed' });
      });
    }
  },
);
