/**
 * Signed and sealed cursors through the engine, on every dialect: with a `cursorSecret`, list() pages forward and
 * back, pages()/items() resume and GraphQL's after/before work as with plain cursors; a changed key value or tag,
 * another secret, mode or scope, a plain cursor and an expired one are `invalid_cursor` (parameter `cursor`) before
 * any statement; rotation verifies with the old secret and signs with the new; sealed cursors hide their key values;
 * and the largest keys that fit `maxCursorBytes` are measured to the byte.
 */
import { type EntityManager, EntitySchema } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type EngineConfig, type ScopedEngine } from '../../src/engine/index.ts';
import { isListError, type ListError } from '../../src/errors.ts';
import { graphqlSchema } from '../../src/graphql/index.ts';
import { EXPIRED, NOT_AUTHENTIC } from '../../src/keyset/cursor-seal.ts';
import { schema, sortable } from '../../src/policy/index.ts';
import { Entry, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { postQuery, serveSchema, tenantEntries } from '../helpers/graphql-serve.ts';

const SECRET_A = 'engine-test-secret-A-0123456789abcdefghij';
const SECRET_B = 'engine-test-secret-B-0123456789abcdefghij';
const MODES = ['signed', 'sealed'] as const;

/** Rows whose sort keys are as large as a cursor under the default maxCursorBytes can carry, and one byte more. */
class Wide {
  region!: string;
  n!: number;
  note!: string;
  label!: string;
  code!: string;
  kind!: string;
  score!: number;
}

const WideSchema = new EntitySchema<Wide>({
  class: Wide,
  tableName: 'seal_wide',
  properties: {
    region: { type: 'string', length: 100, primary: true },
    n: { type: 'integer', primary: true, autoincrement: false },
    note: { type: 'text' },
    label: { type: 'string', length: 255 },
    code: { type: 'string', length: 255 },
    kind: { type: 'string', length: 255 },
    score: { type: 'integer' },
  },
});

const widePolicy = schema(Wide)
  .expose('region', sortable())
  .expose('n', sortable())
  .expose('note', sortable())
  .expose('label', sortable())
  .expose('code', sortable())
  .expose('kind', sortable())
  .expose('score', sortable());

const EURO_255 = '€'.repeat(255); // 765 bytes: a varchar(255) full of 3-byte characters
const EURO_100 = '€'.repeat(100);
/**
 * The keys of `sort=note,label,code,kind,score` with the primary key (region, n) after them, as JSON:
 * [note, 3 × EURO_255, 1, EURO_100, n] is the note's bytes + 2615. A sealed cursor is 60 bytes + the keys, and
 * 4096 base64url characters hold 3072 bytes: a note of 397 bytes fits exactly, one of 398 does not.
 */
const WIDE: readonly Wide[] = [
  { region: EURO_100, n: 1, note: `a${'n'.repeat(396)}`, label: EURO_255, code: EURO_255, kind: EURO_255, score: 1 },
  { region: 'r', n: 2, note: 'b', label: 'x', code: 'x', kind: 'x', score: 2 },
  { region: EURO_100, n: 3, note: `a${'n'.repeat(397)}`, label: EURO_255, code: EURO_255, kind: EURO_255, score: 1 },
  // A text key at the literal limit (4096 bytes): keys of 4120 bytes, a sealed cursor of 5574 characters.
  { region: 'r', n: 4, note: `a${'n'.repeat(4095)}`, label: 'x', code: 'x', kind: 'x', score: 1 },
];

async function seed(em: EntityManager): Promise<void> {
  await seedWalk(em);
  for (const row of WIDE) em.create(Wide, { ...row });
  await em.flush();
  em.clear();
}

type Options = Omit<EngineConfig, 'policy'>;

/** Every entry of every tenant, as `sort=score` orders them (NULLS LAST, then id): 11 and 16 are soft-deleted. */
const BY_SCORE = [17, 3, 7, 14, 19, 6, 8, 12, 21, 1, 4, 10, 15, 20, 2, 5, 9, 13, 18, 22];

function entries(em: EntityManager, options: Options): ScopedEngine {
  return createEngine(em, { policy: entryPolicy, ...options }).from((em as any).createQueryBuilder(Entry, 'e'));
}

const ids = (items: readonly Record<string, unknown>[]) => items.map((i) => i.id as number);

/** List, expecting a refusal: the ListError, and the statements that reached the database (none, every time). */
async function refused(run: () => Promise<unknown>): Promise<ListError> {
  const { result, calls } = await captureDriver(() =>
    run().then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  assert.ok(isListError(result), `expected a ListError, got ${String(result)}`);
  assert.is(calls.length, 0, `statements ran: ${calls.map((c) => c.sql).join('; ')}`);
  return result;
}

async function refusedCursor(run: () => Promise<unknown>, message = NOT_AUTHENTIC): Promise<void> {
  const err = await refused(run);
  assert.is(err.code, 'invalid_cursor');
  assert.is(err.parameter, 'cursor');
  assert.is(err.message, message);
}

/** A token with one byte changed (XOR 1). */
function flipped(token: string, at: number): string {
  const bytes = Buffer.from(token, 'base64url');
  bytes[at < 0 ? bytes.length + at : at]! ^= 1;
  return bytes.toString('base64url');
}

eachDialect('sealed cursors', { entities: [...walkEntities, WideSchema], seed }, (test) => {
  for (const mode of MODES) {
    const A: Options = { cursorSecret: SECRET_A, cursorMode: mode };

    test(`${mode}: forward by nextCursor, back by prevCursor, as with plain cursors`, async ({ em }) => {
      const scoped = entries(em, A);
      const first = await scoped.list({ sort: 'score', limit: '3' });
      assert.equal(ids(first.items), [17, 3, 7]);
      const second = await scoped.list({ sort: 'score', limit: '2', cursor: first.page.nextCursor! });
      assert.equal(ids(second.items), [14, 19]);
      const back = await scoped.list({ sort: 'score', limit: '2', cursor: second.page.prevCursor! });
      assert.equal(ids(back.items), [3, 7]);
      assert.is(back.page.hasMore, true, 'row 17 precedes');
      let cursor: string | undefined;
      const seen: number[] = [];
      do {
        const page = await scoped.list({ sort: 'score', limit: '6', ...(cursor ? { cursor } : {}) });
        seen.push(...ids(page.items));
        cursor = page.page.nextCursor;
        if (cursor) assert.not.ok(Buffer.from(cursor, 'base64url').toString('latin1').includes('"v":1'));
      } while (cursor);
      assert.equal(seen, BY_SCORE);
    });

    test(`${mode}: the key values are hidden only when sealed`, async ({ em }) => {
      const page = await entries(em, A).list({ sort: '-big', limit: '1' });
      assert.equal(ids(page.items), [6], 'big 9223372036854775807: rows 6 and 14, then by id');
      const bytes = Buffer.from(page.page.nextCursor!, 'base64url').toString('latin1');
      assert.is(bytes.includes('9223372036854775807'), mode === 'signed');
      const plain = await entries(em, {}).list({ sort: '-big', limit: '1' });
      assert.ok(Buffer.from(plain.page.nextCursor!, 'base64url').toString().includes('"9223372036854775807"'));
    });

    test(`${mode}: a changed tag, another secret, another mode and a plain cursor are refused before any query`, async ({
      em,
    }) => {
      const scoped = entries(em, A);
      const { nextCursor } = (await scoped.list({ sort: 'score', limit: '3' })).page;
      const other: Options = { cursorSecret: SECRET_A, cursorMode: mode === 'signed' ? 'sealed' : 'signed' };
      const plain = (await entries(em, {}).list({ sort: 'score', limit: '3' })).page.nextCursor!;
      for (const [engine, cursor] of [
        [scoped, flipped(nextCursor!, -1)],
        [scoped, flipped(nextCursor!, 0)],
        [entries(em, { cursorSecret: SECRET_B, cursorMode: mode }), nextCursor!],
        [entries(em, other), nextCursor!],
        [scoped, plain],
      ] as const)
        await refusedCursor(() => engine.list({ sort: 'score', cursor }));
      await refusedCursor(
        () => entries(em, {}).list({ sort: 'score', cursor: nextCursor! }),
        'the cursor is malformed',
      );
    });

    test(`${mode}: rotation: the old secret still verifies, the new one signs`, async ({ em }) => {
      const old = (await entries(em, A).list({ sort: 'score', limit: '3' })).page.nextCursor!;
      const rotated = entries(em, { cursorSecret: [SECRET_B, SECRET_A], cursorMode: mode });
      const page = await rotated.list({ sort: 'score', limit: '2', cursor: old });
      assert.equal(ids(page.items), [14, 19]);
      const fresh = page.page.nextCursor!;
      const next = await entries(em, { cursorSecret: SECRET_B, cursorMode: mode }).list({
        sort: 'score',
        cursor: fresh,
      });
      assert.equal(ids(next.items).slice(0, 2), [6, 8]);
      await refusedCursor(() => entries(em, A).list({ sort: 'score', cursor: fresh }));
    });

    test(`${mode}: cursorTtl: accepted until it has passed, then invalid_cursor saying it expired`, async ({ em }) => {
      let now = Date.UTC(2030, 0, 1);
      const scoped = entries(em, { ...A, cursorTtl: 300, cursorClock: () => now });
      const cursor = (await scoped.list({ sort: 'score', limit: '3' })).page.nextCursor!;
      now += 300_000;
      assert.equal(ids((await scoped.list({ sort: 'score', limit: '2', cursor })).items), [14, 19]);
      now += 1000;
      await refusedCursor(() => scoped.list({ sort: 'score', cursor }), EXPIRED);
      // A changed cursor is not authentic, whatever its age.
      await refusedCursor(() => scoped.list({ sort: 'score', cursor: flipped(cursor, -1) }));
    });

    test(`${mode}: ctx.cursorScope binds a cursor to its scope`, async ({ em }) => {
      const scoped = entries(em, A);
      const cursor = (await scoped.list({ sort: 'score', limit: '3' }, { cursorScope: 'tenant-1' })).page.nextCursor!;
      const page = await scoped.list({ sort: 'score', limit: '2', cursor }, { cursorScope: 'tenant-1' });
      assert.equal(ids(page.items), [14, 19]);
      for (const ctx of [{ cursorScope: 'tenant-2' }, {}, { cursorScope: ['tenant-1'] }])
        await refusedCursor(() => scoped.list({ sort: 'score', cursor }, ctx));
      const unscoped = (await scoped.list({ sort: 'score', limit: '3' })).page.nextCursor!;
      await refusedCursor(() => scoped.list({ sort: 'score', cursor: unscoped }, { cursorScope: 'tenant-1' }));
    });

    test(`${mode}: pages() and items() resume from a nextCursor; a prevCursor is refused there`, async ({ em }) => {
      const scoped = entries(em, A);
      const first = await scoped.list({ sort: 'score', limit: '3' });
      const pages: number[][] = [];
      for await (const page of scoped.pages({ sort: 'score', cursor: first.page.nextCursor! }, {}, { pageSize: 6 }))
        pages.push(ids(page.items));
      assert.equal(pages, [BY_SCORE.slice(3, 9), BY_SCORE.slice(9, 15), BY_SCORE.slice(15)]);
      const items: number[] = [];
      for await (const item of scoped.items({ sort: 'score', cursor: first.page.nextCursor! }))
        items.push(item.id as number);
      assert.equal(items, BY_SCORE.slice(3));
      const second = await scoped.list({ sort: 'score', limit: '2', cursor: first.page.nextCursor! });
      const err = await refused(async () => {
        for await (const _ of scoped.items({ sort: 'score', cursor: second.page.prevCursor! }));
      });
      assert.is(err.code, 'invalid_cursor');
      await refusedCursor(async () => {
        for await (const _ of scoped.pages({ sort: 'score', cursor: flipped(first.page.nextCursor!, 3) }));
      });
    });

    test(`${mode}: a changed key value is refused before any query`, async ({ em }) => {
      if (mode === 'sealed') {
        // Sealed: the keys are ciphertext; change a byte of it.
        const cursor = (await entries(em, A).list({ sort: 'score', limit: '3' })).page.nextCursor!;
        await refusedCursor(() => entries(em, A).list({ sort: 'score', cursor: flipped(cursor, 30) }));
        return;
      }
      const cursor = (await entries(em, A).list({ sort: 'score', limit: '3' })).page.nextCursor!;
      const bytes = Buffer.from(cursor, 'base64url');
      // Signed: header, signature length and 18 signature bytes, the keys' JSON, a 16-byte tag.
      const keys = bytes.subarray(20, bytes.length - 16).toString();
      assert.is(keys, '[1,7]', 'readable: score 1, id 7');
      for (const changed of ['[1,3]', '[0,7]', '[1,19]', '[2,7]']) {
        const forged = Buffer.concat([bytes.subarray(0, 20), Buffer.from(changed), bytes.subarray(bytes.length - 16)]);
        await refusedCursor(() => entries(em, A).list({ sort: 'score', cursor: forged.toString('base64url') }));
      }
    });
  }

  test('GraphQL: after and before take sealed cursors, bound to the tenant; a changed one names its argument', async ({
    db,
  }) => {
    const em = db.orm.em.fork();
    const engine = createEngine(em, { policy: entryPolicy, maxLimit: 50, cursorSecret: SECRET_A });
    const served = await serveSchema(
      graphqlSchema({
        endpoints: [
          {
            field: 'entries',
            type: 'Entry',
            engine,
            scope: (context: { tenant?: string }) => ({
              base: tenantEntries(em.fork()),
              ctx: { cursorScope: context.tenant ?? '1' },
            }),
          },
        ],
      }),
    );
    try {
      const PAGE = '{ edges { cursor node { id } } pageInfo { startCursor endCursor } }';
      const edgeIds = (page: any): number[] => page.edges.map((e: any) => e.node.id);
      // Tenant 1 by score: 14 (1), 6, 8 (2), 1, 4, 20 (3), then the NULLs.
      const first = await postQuery(served.url, `{ entries(first: 3, sort: "score") ${PAGE} }`);
      assert.is(first.errors, undefined, JSON.stringify(first.errors));
      assert.equal(edgeIds(first.data.entries), [14, 6, 8]);
      const end = JSON.stringify(first.data.entries.pageInfo.endCursor);
      const second = await postQuery(served.url, `{ entries(first: 3, sort: "score", after: ${end}) ${PAGE} }`);
      assert.equal(edgeIds(second.data.entries), [1, 4, 20]);
      const start = JSON.stringify(second.data.entries.pageInfo.startCursor);
      const back = await postQuery(served.url, `{ entries(last: 2, sort: "score", before: ${start}) ${PAGE} }`);
      assert.equal(edgeIds(back.data.entries), [6, 8]);
      const edge = JSON.stringify(first.data.entries.edges[0].cursor);
      assert.equal(
        edgeIds(
          (await postQuery(served.url, `{ entries(first: 1, sort: "score", after: ${edge}) ${PAGE} }`)).data.entries,
        ),
        [6],
      );
      for (const [args, tenant, parameter] of [
        [`after: ${JSON.stringify(flipped(first.data.entries.pageInfo.endCursor, -2))}`, '1', 'after'],
        [`last: 1, before: ${JSON.stringify(flipped(first.data.entries.pageInfo.endCursor, 5))}`, '1', 'before'],
        [`after: ${end}`, '2', 'after'],
      ] as const) {
        const res = await postQuery(served.url, `{ entries(sort: "score", ${args}) ${PAGE} }`, tenant);
        assert.is(res.errors?.[0]?.message, NOT_AUTHENTIC);
        assert.equal(res.errors?.[0]?.extensions, { code: 'invalid_cursor', parameter });
      }
    } finally {
      await served.close();
    }
  });

  test('sizes: the largest keys that fit maxCursorBytes sealed, one byte more, and a text key at the literal limit', async ({
    em,
  }) => {
    const sort = 'note,label,code,kind,score';
    const wide = (options: Options, only: readonly number[]) =>
      createEngine(em, { policy: widePolicy, ...options }).from(
        (em as any).createQueryBuilder(Wide, 'w').where({ n: { $in: only } }),
      );
    const sealed: Options = { cursorSecret: SECRET_A };
    // Keys of 3012 bytes: plain 43 + 3012, signed 36 + 3012, sealed 60 + 3012 bytes, in base64url characters.
    const fits = async (options: Options) => (await wide(options, [1, 2]).list({ sort, limit: '1' })).page.nextCursor!;
    assert.is((await fits({})).length, 4074);
    assert.is((await fits({ cursorSecret: SECRET_A, cursorMode: 'signed' })).length, 4064);
    const exact = await fits(sealed);
    assert.is(exact.length, 4096, 'exactly maxCursorBytes');
    const next = await wide(sealed, [1, 2]).list({ sort, limit: '1', cursor: exact });
    assert.equal(
      next.items.map((i) => i.n),
      [2],
    );
    // One byte more of note: 4098 characters, refused when sent back; a larger maxCursorBytes takes it.
    const over = (await wide(sealed, [3, 2]).list({ sort, limit: '1' })).page.nextCursor!;
    assert.is(over.length, 4098);
    const err = await refused(() => wide(sealed, [3, 2]).list({ sort, cursor: over }));
    assert.equal(
      [err.code, err.parameter, err.message],
      ['invalid_cursor', 'cursor', 'cursor is longer than 4096 bytes'],
    );
    const roomy: Options = { ...sealed, maxCursorBytes: 8192 };
    assert.equal(
      (await wide(roomy, [3, 2]).list({ sort, cursor: over })).items.map((i) => i.n),
      [2],
    );
    // A 4096-byte text key: keys of 4120 bytes, 5574 characters sealed.
    const literal = (await wide(roomy, [4, 2]).list({ sort, limit: '1' })).page.nextCursor!;
    assert.is(literal.length, 5574);
    assert.equal(
      (await wide(roomy, [4, 2]).list({ sort, cursor: literal })).items.map((i) => i.n),
      [2],
    );
  });

  test('createEngine checks the secret; a cursorScope without a secret fails the request before any query', async ({
    em,
  }) => {
    for (const [options, message] of [
      [
        { cursorSecret: 'too-short-secret' },
        'engine config: cursorSecret has 16 bytes: a cursor secret needs at least 32 random bytes',
      ],
      [
        { cursorSecret: [SECRET_A, new Uint8Array(8)] },
        'engine config: cursorSecret[1] has 8 bytes: a cursor secret needs at least 32 random bytes',
      ],
      [{ cursorTtl: 60 }, 'engine config: cursorTtl needs cursorSecret: only a signed or sealed cursor can carry it'],
      [{ cursorSecret: SECRET_A, cursorMode: 'hidden' }, "engine config: cursorMode must be 'signed' or 'sealed'"],
    ] as const)
      assert.throws(
        () => createEngine(em, { policy: entryPolicy, ...(options as Options) }),
        (e: unknown) => isListError(e) && e.code === 'invalid_schema' && e.message === message,
        message,
      );
    const err = await refused(() => entries(em, {}).list({ sort: 'score' }, { cursorScope: 'tenant-1' }));
    assert.is(err.code, 'invalid_schema');
  });
});
