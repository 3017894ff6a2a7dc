/**
 * The literal memo (a request whose parameters the engine has seen but for the filter's literals is not parsed, and
 * only its literals are re-resolved into the seen request's checked outcome): random filters of every scalar kind
 * and operator are sent twice (the second sending becomes the template), then with new literals, among them values the
 * ordinary path refuses (wrong ranges, bad dates, fractions past a decimal's scale, over-long strings). Every answer
 * is compared with an engine whose literal memo is off: the same data statement (text and bound values), the same
 * rows and count, or the same error (code, parameter, position, message).
 */
import type { EntityManager } from '@mikro-orm/core';
import fc from 'fast-check';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { PAGE_STATEMENT } from '../../src/engine/page/compiled-data.ts';
import { literalMemo } from '../../src/engine/request-mask.ts';
import { catalogEntities, Product } from '../fixtures/catalog.ts';
import { eachDialect } from '../helpers/db.ts';
import { shapeFor } from '../oracle/arbitraries.ts';
import { budget, check, SEED } from '../oracle/budget.ts';
import { generateProducts, loadProducts, productPolicy, productSpec } from '../oracle/catalog.ts';
import { STRINGS } from '../oracle/pools.ts';
import { requestArb, requestValues } from '../oracle/request.ts';
import { dbModelFor } from '../oracle/values.ts';

const ROWS = generateProducts(SEED, 120);
const RUNS = budget(150);

/** Numbers in and out of every numeric field's range and scale, and in every written form. */
const NUMBERS = [
  '0',
  '1',
  '-1',
  '7',
  '42',
  '3.5',
  '-2.25',
  '10.123456789',
  '0.005',
  '1e3',
  '2E-2',
  '-0',
  '2147483648',
  '99999999999999999999',
  '-9223372036854775809',
  '1.5e400',
  '1e-400',
  '123456789012.5',
];

/** Strings of every kind a string literal is read as (dates, date-times, UUIDs, enums), valid or not. */
const TEXTS = [
  ...STRINGS.slice(0, 24).map((s) => s.replaceAll("'", "''")),
  "O''Brien",
  '2024-02-29',
  '2023-02-29',
  '0000-01-01',
  '9999-12-31',
  '2024-01-15T10:00:00Z',
  '2024-01-15T10:00:00.1234Z',
  '1999-12-31T23:59:59+02:00',
  '2040-01-01T00:00:00Z',
  '123e4567-e89b-12d3-a456-426614174000',
  'not-a-uuid',
  'x'.repeat(1500),
];

const LITERAL = /'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_]*|-?[0-9][0-9.eE+-]*/g;

/** The filter with its string and number literals replaced, each by a pick of its kind's pool. */
function relit(filter: string, picks: readonly number[]): string {
  let k = 0;
  return filter.replace(LITERAL, (token) => {
    const pick = picks[k++ % picks.length]!;
    if (token.startsWith("'")) return `'${TEXTS[pick % TEXTS.length]}'`;
    if (/^-?[0-9]/.test(token)) return NUMBERS[pick % NUMBERS.length]!;
    k--;
    return token;
  });
}

function base(em: EntityManager) {
  return (em as any).createQueryBuilder(Product, 'p');
}

type Scoped = Record<typeof PAGE_STATEMENT, (query: Record<string, string>) => Promise<unknown>> & {
  list(query: Record<string, string>): Promise<{ items: readonly unknown[]; page: { count?: number } }>;
};

/** The statement, rows and count of a request, or its error's client-visible parts. */
async function outcome(scoped: Scoped, query: Record<string, string>): Promise<unknown> {
  try {
    const statement = await scoped[PAGE_STATEMENT]({ ...query });
    const page = await scoped.list({ ...query });
    return { statement, items: page.items, count: page.page.count };
  } catch (err) {
    const e = err as { code?: string; parameter?: string; position?: unknown; message: string };
    return { code: e.code, parameter: e.parameter, position: e.position, message: e.message };
  }
}

eachDialect('literal memo', { entities: catalogEntities, seed: (em) => loadProducts(em, ROWS) }, (test, dialect) => {
  const shape = { depth: 3, hops: 0, quantifiers: 0, ...shapeFor(dbModelFor(dialect)) };

  test(`${RUNS} filters with new literals answer as with the memo off`, async ({ db }) => {
    const config = { policy: productPolicy, maxLimit: 100, allowCount: true };
    const hot = createEngine(db.orm, config);
    const cold = createEngine(db.orm, config);
    const before = literalMemo.hits();
    const picks = fc.array(fc.nat(1000), { minLength: 1, maxLength: 6 });
    await check(
      fc.tuple(requestArb(productSpec, shape, 10), fc.array(picks, { minLength: 3, maxLength: 3 })),
      RUNS,
      async ([r, variants]) => {
        if (!r.filter) return;
        const values: Record<string, string> = {
          ...requestValues(r),
          limit: String(Math.max(1, Math.min(r.limit, 20))),
          count: 'true',
        };
        const scoped = hot.from(base(db.orm.em.fork())) as unknown as Scoped;
        // Sent twice: the second sending is the template of its masked key.
        for (let i = 0; i < 2; i++) await scoped.list({ ...values });
        for (const pick of variants) {
          const query = { ...values, filter: relit(values['filter'] ?? '', pick) };
          const got = await outcome(scoped, query);
          literalMemo.enable(false);
          let want: unknown;
          try {
            want = await outcome(cold.from(base(db.orm.em.fork())) as unknown as Scoped, query);
          } finally {
            literalMemo.enable(true);
          }
          assert.equal(got, want, `filter ${JSON.stringify(query.filter)}`);
        }
      },
    );
    assert.ok(literalMemo.hits() - before > RUNS / 2, `the memo served ${literalMemo.hits() - before} requests`);
  });

  test('a new literal reuses the compiled statement with its own values, bound', async ({ db }) => {
    const engine = createEngine(db.orm, { policy: productPolicy, maxLimit: 100 });
    const scoped = engine.from(base(db.orm.em.fork())) as unknown as Scoped;
    const query = (n: number, s: string) => ({ filter: `id gt ${n} and name ne '${s}'`, sort: 'id', limit: '5' });
    await scoped.list(query(1, 'a'));
    await scoped.list(query(2, 'b'));
    const before = literalMemo.hits();
    const first = (await scoped[PAGE_STATEMENT](query(3, 'zq'))) as { sql: string; params: unknown[] };
    const second = (await scoped[PAGE_STATEMENT](query(40, 'zr'))) as { sql: string; params: unknown[] };
    assert.is(literalMemo.hits() - before, 2);
    assert.is(first.sql, second.sql);
    assert.ok(first.params.includes('zq') && second.params.includes('zr'), 'each request binds its own literals');
    assert.not.ok(second.sql.includes('zr'));
    // A value the field refuses is refused as the ordinary path refuses it, located in this request's text.
    const refused = await outcome(scoped, query(-1, "x'' or ''a"));
    assert.is((refused as { statement?: unknown }).statement !== undefined, true);
    const bad = await outcome(scoped, { ...query(0, 'a'), filter: "id gt 1.5 and name ne 'a'" });
    assert.is((bad as { code: string }).code, 'invalid_literal');
    assert.equal((bad as { position: { offset: number } }).position.offset, 6);
  });
});
