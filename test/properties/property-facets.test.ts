/**
 * Property: over the generated library, random filters (to-one paths, nested any/all, null tests) with random facets
 * (a nullable integer field, to-one and to-many relations) and limits give, through list(), exactly the reference's
 * facets: the filter without each facet's own conjuncts, soft delete and tenants applied to root and related rows,
 * each book once per value, most frequent first, then by value, NULL last; on every dialect.
 */
import fc from 'fast-check';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { Book, libraryEntities, libraryOptions, useTenant } from '../fixtures/library.ts';
import { NO_BUDGET } from '../helpers/budget.ts';
import { eachDialect } from '../helpers/db.ts';
import { shapeFor } from '../oracle/arbitraries.ts';
import { budget, check, printable, SEED } from '../oracle/budget.ts';
import { expectedFacet, facetSpecs, withFacets } from '../oracle/facets.ts';
import { bookPolicy, bookSpec, generateLibrary, loadLibrary } from '../oracle/library.ts';
import { requestArb, requestValues, toQueryString } from '../oracle/request.ts';
import { dbModelFor } from '../oracle/values.ts';

const LIBRARY = generateLibrary(SEED);
const RUNS = budget(300);
const NAMES = ['price', 'author', 'category', 'tags', 'reviews'] as const;
const policy = withFacets(bookPolicy, NAMES);
const SHAPE = { depth: 3, hops: 2, quantifiers: 2 };

const facetsArb = fc.uniqueArray(
  fc.record({ name: fc.constantFrom(...NAMES), limit: fc.integer({ min: 1, max: 6 }) }),
  { minLength: 1, maxLength: 5, selector: (f) => f.name },
);

eachDialect(
  'property: facets equal the reference',
  { entities: libraryEntities, seed: (em) => loadLibrary(em, LIBRARY), options: libraryOptions },
  (test, dialect) => {
    const db = dbModelFor(dialect);
    test(`${RUNS} random filters and facets give the reference buckets`, async (ctx) => {
      const engine = createEngine(ctx.db.orm, { policy, maxLimit: 100, limits: NO_BUDGET, statementTimeout: false });
      const arb = fc
        .record({
          request: requestArb(bookSpec, { ...SHAPE, ...shapeFor(db) }, 0),
          facets: facetsArb,
          softDelete: fc.boolean(),
          tenant: fc.option(fc.constantFrom(1, 2), { nil: undefined }),
        })
        .map((c) =>
          printable(c, (x) => `${toQueryString(requestValues(x.request))} facets ${JSON.stringify(x.facets)}`),
        );
      await check(arb, RUNS, async ({ request, facets, softDelete, tenant }) => {
        const visibility = { db, softDelete, ...(tenant === undefined ? {} : { tenant }) };
        const em = ctx.db.orm.em.fork();
        if (tenant !== undefined) useTenant(em, tenant);
        const base = (em as any).createQueryBuilder(Book, 'b');
        const scoped = engine.from(base, softDelete ? {} : { filters: { softDelete: false } });
        const values = {
          ...requestValues(request, { offset: false }),
          limit: '0',
          facets: facets.map((f) => `${f.name}:${f.limit}`).join(','),
        };
        const page = await scoped.list(values);
        const specs = facetSpecs(
          bookSpec,
          facets.map((f) => f.name),
        );
        facets.forEach((f, i) => {
          const want = expectedFacet(bookSpec, LIBRARY.books, request.filter, specs[i]!, f.limit, visibility);
          const got = (page.facets?.[f.name] ?? []).map((b) => [b.value, b.count]);
          assert.equal(
            got,
            want,
            `${toQueryString(values)}: ${f.name}\n got ${JSON.stringify(got)}\n want ${JSON.stringify(want)}`,
          );
        });
      });
    });
  },
);
