/**
 * The two renderings the request path takes for speed, each compared with the one it replaces over generated
 * filters on the library fixture. Sub-query frames (plan/exists.ts): an EXISTS whose text is kept per relation,
 * aliases and filter condition, with the body put in place, against the same sub-query rendered by MikroORM each
 * time. Page templates (engine/page/page-template.ts): the data statement of a new filter shape made from its
 * listing's template, against the statement planned afresh. Same SQL text, same values, same rows.
 */
import type { EntityManager, FilterOptions } from '@mikro-orm/core';
import type { QueryBuilder } from '@mikro-orm/sql';
import * as assert from 'uvu/assert';
import { resolveQuery } from '../../src/bind/index.ts';
import { dialectFor } from '../../src/dialect/index.ts';
import { execute } from '../../src/engine/execute.ts';
import { createEngine } from '../../src/engine/index.ts';
import { PAGE_STATEMENT } from '../../src/engine/page/compiled-data.ts';
import { pageTemplates, useTemplates } from '../../src/engine/page/page-template.ts';
import { filterLookup } from '../../src/plan/entity-filters.ts';
import { useFrames } from '../../src/plan/exists.ts';
import type { SqlFragment } from '../../src/plan/fragment.ts';
import { createAliasGenerator, prepareFilters } from '../../src/plan/index.ts';
import { compileFilter } from '../../src/plan/predicate.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { Author, Book, libraryEntities, libraryOptions, seedLibrary, useTenant } from '../fixtures/library.ts';
import { eachDialect } from '../helpers/db.ts';
import { authorPolicy, bookPolicy } from '../helpers/library-policies.ts';

/** A small deterministic generator (mulberry32), so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Atoms over every relation kind of the fixture: m:1 (composite too), 1:1, 1:m, m:n, hops, relation nulls. */
const ATOMS = {
  book: (v: number) => [
    `price gt ${v}`,
    `title ne 'T${v}'`,
    "author/name eq 'Ann'",
    `author/name ne 'x${v}'`,
    "publisher/country/code eq 'US'",
    "category/parent/name eq 'root'",
    `reviews/any(r: r/stars gte ${v % 6})`,
    `reviews/all(r: r/stars gte ${v % 6} or r/stars is null)`,
    `reviews/any(r: r/stars eq ${v % 6} and r/tenant eq 2)`,
    "tags/any(t: t/label eq 'red')",
    `tags/all(t: t/id gt ${v % 4})`,
    `author/books/any(b: b/price gt ${v})`,
  ],
  author: (v: number) => [
    `name ne 'x${v}'`,
    "profile/bio eq 'poet'",
    'profile/bio is null',
    `books/any(b: b/reviews/any(r: r/stars gte ${v % 6}))`,
    `books/any(b: b/reviews/any(r: r/stars gte ${v % 6} and b/price gt ${v}))`,
    "books/any(b: b/publisher/country/code eq 'FR')",
    `books/all(b: b/price gt ${v})`,
  ],
} as const;

type Root = keyof typeof ATOMS;

/** A filter of up to `depth` levels of and/or/not over a root's atoms. */
function filterOf(root: Root, next: () => number, depth: number): string {
  const atoms = ATOMS[root](Math.floor(next() * 20));
  const pick = () => atoms[Math.floor(next() * atoms.length)]!;
  const build = (level: number): string => {
    const r = next();
    if (level >= depth || r < 0.35) return pick();
    if (r < 0.5) return `not (${build(level + 1)})`;
    return `(${build(level + 1)} ${r < 0.75 ? 'and' : 'or'} ${build(level + 1)})`;
  };
  return build(0);
}

/** MikroORM filter settings the frames must key on or refuse: defaults, all rows, a global filter, a tenant. */
const SETTINGS: readonly { filters?: FilterOptions; tenant?: number }[] = [
  {},
  { filters: { softDelete: false } },
  { filters: { highStars: true } },
  { filters: { notCids: true } },
  { tenant: 1 },
];

const ROOTS = {
  book: { entity: Book, alias: 'b', policy: bookPolicy },
  author: { entity: Author, alias: 'a', policy: authorPolicy },
};

/** Compile a filter as the planner does (fresh aliases, the related rows' prepared conditions), without a cache. */
async function compileOn(em: EntityManager, root: Root, filter: string, settings: (typeof SETTINGS)[number]) {
  const { entity, alias, policy } = ROOTS[root];
  if (settings.tenant !== undefined) useTenant(em, settings.tenant);
  const bound = policy.bind(em);
  const base = (em as any).createQueryBuilder(entity, alias) as QueryBuilder<any>;
  await base.applyFilters(settings.filters ?? {});
  const resolved = resolveQuery(bound, parseHTTP({ filter }));
  const conditions = await prepareFilters(base, bound, resolved, settings.filters);
  const compile = () =>
    compileFilter(resolved.filter!, {
      platform: bound.platform,
      dialect: dialectFor(bound.platform),
      alias,
      relations: {
        em,
        platform: bound.platform,
        nextAlias: createAliasGenerator([alias]),
        filterOf: filterLookup(base, conditions, settings.filters),
      },
    });
  const rows = async (where: SqlFragment) =>
    (
      await execute<Record<string, unknown>>(
        base
          .clone()
          .andWhere(where.sql, [...where.params])
          .orderBy({ id: 'asc' }),
      )
    ).map((r) => r.id);
  return { compile, rows };
}

eachDialect(
  'frames and templates against the renderings they replace',
  { entities: libraryEntities, seed: seedLibrary, options: libraryOptions },
  (test) => {
    test('sub-query frames: same text, values and rows as MikroORM rendering each sub-query', async ({ em }) => {
      const next = random(7);
      for (let i = 0; i < 60; i++) {
        const root: Root = i % 3 === 2 ? 'author' : 'book';
        const filter = filterOf(root, next, 3);
        const settings = SETTINGS[i % SETTINGS.length]!;
        const label = `${root} ${filter} ${JSON.stringify(settings)}`;
        const { compile, rows } = await compileOn(em.fork(), root, filter, settings);
        const was = useFrames(false);
        let old: SqlFragment;
        try {
          old = compile();
        } finally {
          useFrames(was);
        }
        const cold = compile();
        const warm = compile();
        for (const got of [cold, warm]) {
          assert.is(got.sql, old.sql, label);
          assert.equal(got.params, old.params, label);
        }
        assert.equal(await rows(warm), await rows(old), label);
      }
    });

    test('page templates: a new filter shape sends the statement planned afresh', async ({ em }) => {
      const settings = { policy: bookPolicy, maxLimit: 50, limits: { maxSubqueries: 400, maxSubqueryDepth: 8 } };
      const hot = createEngine(em, { ...settings, compileStatements: true } as never);
      const cold = createEngine(em, { ...settings, compileStatements: false } as never);
      const next = random(11);
      const listings = [{ sort: 'price' }, { sort: '-title', limit: '3' }, { sort: 'id', offset: '2' }, {}];
      const statement = async (engine: typeof hot, query: Record<string, string>) => {
        const scoped = engine.from((em.fork() as any).createQueryBuilder(Book, 'b')) as any;
        return (await scoped[PAGE_STATEMENT](query)) as { sql: string; params: unknown[] };
      };
      for (let i = 0; i < 48; i++) {
        const query = { ...listings[i % listings.length], filter: filterOf('book', next, 2) };
        const label = JSON.stringify(query);
        const want = await statement(cold, query);
        const got = await statement(hot, query);
        assert.is(got.sql, want.sql, label);
        assert.equal(got.params, want.params, label);
        // The same request with templates off: planned with markers, as before templates.
        const was = useTemplates(false);
        try {
          const planned = await statement(hot, { ...query, filter: `${query.filter} and id gt -${i + 1}` });
          const fresh = await statement(cold, { ...query, filter: `${query.filter} and id gt -${i + 1}` });
          assert.is(planned.sql, fresh.sql, label);
        } finally {
          useTemplates(was);
        }
        const list = (engine: typeof hot) => engine.from((em.fork() as any).createQueryBuilder(Book, 'b')).list(query);
        assert.equal((await list(hot)).items, (await list(cold)).items, label);
      }
      assert.ok(pageTemplates(bookPolicy.bind(em)) >= listings.length, 'each listing shape has its template');
    });
  },
);
