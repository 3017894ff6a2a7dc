/**
 * The cursor memo (a request whose parameters the engine has seen but for its cursor reuses the seen request's
 * checks, and decodes only its own cursor against the remembered cursor plan): random filters and sorts, paged
 * forward and back, each page sent with cursors taken from real pages and with broken ones (truncated, tampered,
 * another sort's, minted under another cursorScope, expired, not base64url). Every answer is compared with an engine
 * whose cursor and literal memos are off: the same data statement (text and bound values), the same rows, count and
 * cursors, or the same error (code, parameter, position, message); plain, signed and sealed cursors alike.
 */
import type { EntityManager } from '@mikro-orm/core';
import fc from 'fast-check';
import * as assert from 'uvu/assert';
import { createEngine, type EngineConfig } from '../../src/engine/index.ts';
import { PAGE_STATEMENT } from '../../src/engine/page/compiled-data.ts';
import { cursorMemo, literalMemo } from '../../src/engine/request-mask.ts';
import { catalogEntities, Product } from '../fixtures/catalog.ts';
import { eachDialect } from '../helpers/db.ts';
import { shapeFor } from '../oracle/arbitraries.ts';
import { budget, check, SEED } from '../oracle/budget.ts';
import { generateProducts, loadProducts, productPolicy, productSpec } from '../oracle/catalog.ts';
import { requestArb, requestValues } from '../oracle/request.ts';
import { dbModelFor } from '../oracle/values.ts';

const ROWS = generateProducts(SEED, 120);
const RUNS = budget(40);
const SECRET = 'cursor-memo-test-secret-0123456789abcdef';
const T0 = Date.UTC(2030, 0, 1);

type Ctx = { readonly cursorScope?: string };
type Query = Record<string, string>;
type PageOut = {
  items: readonly unknown[];
  page: { nextCursor?: string; prevCursor?: string; hasMore: boolean; count?: number };
};
type Scoped = Record<typeof PAGE_STATEMENT, (query: Query, ctx?: Ctx) => Promise<unknown>> & {
  list(query: Query, ctx?: Ctx): Promise<PageOut>;
  pages(query: Query, ctx?: Ctx): AsyncIterable<PageOut>;
};

function base(em: EntityManager) {
  return (em as any).createQueryBuilder(Product, 'p');
}

/** Sealed cursors carry a fresh nonce each time: compared by presence only. */
function cursorOf(token: string | undefined, sealed: boolean): string | undefined {
  return sealed && token !== undefined ? 'sealed' : token;
}

function failure(err: unknown): unknown {
  const e = err as { code?: string; parameter?: string; position?: unknown; message: string };
  return { code: e.code, parameter: e.parameter, position: e.position, message: e.message };
}

/** The statement, rows, count and cursors of a request, or its error's client-visible parts. */
async function outcome(scoped: Scoped, query: Query, ctx: Ctx, sealed: boolean): Promise<unknown> {
  try {
    const statement = await scoped[PAGE_STATEMENT]({ ...query }, ctx);
    const { items, page } = await scoped.list({ ...query }, ctx);
    const cursors = [cursorOf(page.nextCursor, sealed), cursorOf(page.prevCursor, sealed)];
    return { statement, items, hasMore: page.hasMore, count: page.count, cursors };
  } catch (err) {
    return failure(err);
  }
}

/** The first page of a walk from a request (pages() follows nextCursor only), or its error. */
async function walked(scoped: Scoped, query: Query, ctx: Ctx): Promise<unknown> {
  try {
    for await (const page of scoped.pages({ ...query }, ctx)) return page.items;
    return [];
  } catch (err) {
    return failure(err);
  }
}

const LITERAL = /'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_]*|-?[0-9][0-9.eE+-]*/g;

/** The filter with each number literal replaced by 7 and each string literal by 'x' (names kept). */
function relit(filter: string): string {
  return filter.replace(LITERAL, (token) => (token.startsWith("'") ? "'x'" : /^-?[0-9]/.test(token) ? '7' : token));
}

/** A token with one character changed (in its middle, where the keys or the tag are). */
function tampered(token: string): string {
  const at = Math.floor(token.length / 2);
  return token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
}

/** Run `fn` with every memo a request with a cursor can take switched off. */
async function memoless<T>(fn: () => Promise<T>): Promise<T> {
  cursorMemo.enable(false);
  literalMemo.enable(false);
  try {
    return await fn();
  } finally {
    cursorMemo.enable(true);
    literalMemo.enable(true);
  }
}

const MODES = ['plain', 'signed', 'sealed'] as const;

eachDialect('cursor memo', { entities: catalogEntities, seed: (em) => loadProducts(em, ROWS) }, (test, dialect) => {
  const shape = { depth: 2, hops: 0, quantifiers: 0, ...shapeFor(dbModelFor(dialect)) };

  for (const mode of MODES) {
    test(`${mode}: ${RUNS} requests, each page's cursors and broken ones answer as with the memo off`, async ({
      db,
    }) => {
      let now = T0;
      const cursors =
        mode === 'plain' ? {} : { cursorSecret: SECRET, cursorMode: mode, cursorTtl: 60, cursorClock: () => now };
      const config: EngineConfig = { policy: productPolicy, maxLimit: 100, allowCount: true, ...cursors };
      const hot = createEngine(db.orm, config);
      const cold = createEngine(db.orm, config);
      const sealed = mode === 'sealed';
      const before = cursorMemo.hits();
      const relitBefore = literalMemo.hits();
      await check(
        fc.tuple(requestArb(productSpec, shape, 0), fc.boolean(), fc.boolean()),
        RUNS,
        async ([r, counted, scopedCtx]) => {
          const values: Query = { ...requestValues(r, { offset: false }), limit: String(1 + (r.limit % 7)) };
          if (counted) values['count'] = 'true';
          const ctx: Ctx = scopedCtx && mode !== 'plain' ? { cursorScope: 'tenant-1' } : {};
          const other: Ctx = mode === 'plain' ? {} : { cursorScope: 'tenant-2' };
          const coldScoped = () => cold.from(base(db.orm.em.fork())) as unknown as Scoped;
          const hotScoped = () => hot.from(base(db.orm.em.fork())) as unknown as Scoped;
          // Real cursors: of page 1 and page 2, forward and back, minted by the engine without memo.
          const minted = await memoless(async () => {
            const first = await coldScoped().list(values, ctx);
            const next = first.page.nextCursor;
            const second = next ? await coldScoped().list({ ...values, cursor: next }, ctx) : undefined;
            const foreign = (await coldScoped().list({ limit: '2', sort: r.sort.length ? 'id' : '-id' }, ctx)).page
              .nextCursor;
            const elsewhere = (await coldScoped().list(values, other)).page.nextCursor;
            now = T0 - 120_000;
            const old = (await coldScoped().list(values, ctx)).page.nextCursor;
            now = T0;
            return { next, second, foreign, elsewhere, old };
          });
          const valid = [minted.next, minted.second?.page.nextCursor, minted.second?.page.prevCursor].filter(
            (c): c is string => c !== undefined,
          );
          // The template: this request's key sent twice, with two cursors (or the same one twice).
          const warm = valid.length ? [valid[0]!, valid.at(-1)!] : ['eyJ2IjoxfQ', 'eyJ2IjoxfQ'];
          for (const cursor of warm)
            await hotScoped()
              .list({ ...values, cursor }, ctx)
              .catch(() => undefined);
          const probes = [
            ...valid,
            ...valid.map((c) => c.slice(0, -3)),
            ...valid.map(tampered),
            minted.foreign,
            minted.elsewhere,
            minted.old,
            'eyJ2IjoxfQ',
            'not+base64',
            'A'.repeat(5000),
          ].filter((c): c is string => c !== undefined);
          // New literals beside a cursor: the literal memo and the cursor memo at once.
          const relits = values['filter'] ? valid.map((cursor) => ({ filter: relit(values['filter']!), cursor })) : [];
          for (const changed of [...probes.map((cursor) => ({ cursor })), ...relits]) {
            const query = { ...values, ...changed };
            const got = await outcome(hotScoped(), query, ctx, sealed);
            const want = await memoless(() => outcome(coldScoped(), query, ctx, sealed));
            assert.equal(
              got,
              want,
              `cursor ${query.cursor.slice(0, 40)} of ${JSON.stringify({ ...query, cursor: 0 })}`,
            );
          }
          // A walk (pages()) takes the memo too, and refuses a prevCursor as it does without it.
          for (const cursor of valid) {
            const query = { ...values, cursor };
            const got = await walked(hotScoped(), query, ctx);
            const want = await memoless(() => walked(coldScoped(), query, ctx));
            assert.equal(got, want, `walk from ${cursor.slice(0, 40)} of ${JSON.stringify(values)}`);
          }
        },
      );
      assert.ok(cursorMemo.hits() - before > RUNS, `the memo served ${cursorMemo.hits() - before} requests`);
      assert.ok(literalMemo.hits() > relitBefore, 'new literals beside a cursor were served by the literal memo');
    });
  }

  test('a new cursor reuses the checks and the compiled statement, with its own position bound', async ({ db }) => {
    const engine = createEngine(db.orm, { policy: productPolicy, maxLimit: 100 });
    const scoped = () => engine.from(base(db.orm.em.fork())) as unknown as Scoped;
    const query = { sort: '-price', limit: '3', filter: 'id gt 0' };
    const pages: PageOut[] = [await scoped().list(query)];
    for (let i = 0; i < 4; i++) pages.push(await scoped().list({ ...query, cursor: pages.at(-1)!.page.nextCursor! }));
    const before = cursorMemo.hits();
    const a = (await scoped()[PAGE_STATEMENT]({ ...query, cursor: pages[3]!.page.nextCursor! })) as {
      sql: string;
      params: unknown[];
    };
    const b = (await scoped()[PAGE_STATEMENT]({ ...query, cursor: pages[4]!.page.nextCursor! })) as {
      sql: string;
      params: unknown[];
    };
    assert.is(cursorMemo.hits() - before, 2);
    assert.is(a.sql, b.sql);
    assert.not.equal(a.params, b.params);
    // Backward from the same key: the direction is the cursor's own, not the template's.
    const back = await scoped().list({ ...query, cursor: pages[4]!.page.prevCursor! });
    assert.equal(back.items, pages[3]!.items);
    const broken = await scoped()
      .list({ ...query, cursor: pages[4]!.page.nextCursor!.slice(0, -2) })
      .catch(failure);
    assert.is((broken as { code: string }).code, 'invalid_cursor');
  });
});
