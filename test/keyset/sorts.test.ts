/**
 * The sorts users expect: `:ci` (case-insensitive, opted in per string field) and `:nullsfirst` / `:nullslast` on
 * nullable keys. Forward and backward walks at several page sizes equal an order computed here from the seed rows;
 * a cursor of one sort is refused by another; errors carry the parameter and position; indexes() names what serves
 * them; describe() and the typed client know them.
 */
import { EntitySchema } from '@mikro-orm/core';
import { graphql } from 'graphql';
import * as assert from 'uvu/assert';
import { client } from '../../src/client/index.ts';
import { createEngine, type ScopedEngine } from '../../src/engine/index.ts';
import type { Page } from '../../src/engine/page/list-page.ts';
import { isListError } from '../../src/errors.ts';
import { graphqlSchema } from '../../src/graphql/index.ts';
import { toOpenAPI } from '../../src/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { parseSort } from '../../src/syntax/sort.ts';
import { eachDialect } from '../helpers/db.ts';
import { walk, walkBack } from '../helpers/walk.ts';

class Band {
  id!: number;
  name!: string;
}

class Song {
  id!: number;
  title!: string;
  nick?: string | null;
  score?: number | null;
  band?: Band | null;
}

const BandSchema = new EntitySchema<Band>({
  class: Band,
  tableName: 'so_band',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    name: { type: 'string' },
  },
});

const SongSchema = new EntitySchema<Song>({
  class: Song,
  tableName: 'so_song',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    title: { type: 'string' },
    nick: { type: 'string', nullable: true },
    score: { type: 'integer', nullable: true },
    band: { kind: 'm:1', entity: () => Band, nullable: true },
  },
});

const bandPolicy = schema(Band)
  .expose('id', sortable())
  .expose('name', sortable({ caseInsensitive: true }));
const policy = schema(Song)
  .expose('id', sortable())
  .expose('title', sortable({ caseInsensitive: true }))
  .expose('nick', sortable({ caseInsensitive: true }), filterable('eq', 'ieq'))
  .expose('score', sortable(), filterable())
  .relation('band', bandPolicy);

// Letters and digits only: every dialect's caseless order (MariaDB's collation, the others' folded bytes) agrees.
const BANDS: readonly [number, string][] = [
  [1, 'beta'],
  [2, 'Alpha'],
  [3, 'BETA'],
];
// biome-ignore format: one row per line reads as a table
const SONGS: readonly [number, string, string | null, number | null, number | null][] = [
  [1, 'apple', 'Zed', 3, 1],
  [2, 'Banana', null, null, 2],
  [3, 'APPLE', 'zed', 1, null],
  [4, 'cherry', 'Amy', null, 3],
  [5, 'Apple', null, 3, 1],
  [6, 'banana', 'amy', 2, 2],
  [7, 'Cherry2', 'AMY', null, null],
  [8, 'apple', 'b0b', 1, 3],
  [9, 'Zeta', null, 2, 1],
  [10, 'zeta', 'Bob', null, 2],
  [11, 'alpha', 'bob', 0, null],
];

type Row = (typeof SONGS)[number];
type Value = string | number | null;
const fold = (v: string | null) => (v === null ? null : v.replace(/[A-Z]/g, (c) => c.toLowerCase()));
const GET: Record<string, (r: Row, ci: boolean) => Value> = {
  id: (r) => r[0],
  title: (r, ci) => (ci ? fold(r[1]) : r[1]),
  nick: (r, ci) => (ci ? fold(r[2]) : r[2]),
  score: (r) => r[3],
  'band/name': (r, ci) => {
    const name = BANDS.find((b) => b[0] === r[4])?.[1] ?? null;
    return ci ? fold(name) : name;
  },
};

/** The order a sort value asks for, computed here: keys in order, then id ascending; NULLs last unless asked. */
function expectedIds(sort: string): number[] {
  const terms = parseSort(sort).map((t) => ({
    name: t.path.segments.map((s) => s.name).join('/'),
    dir: t.direction === 'desc' ? -1 : 1,
    ci: t.caseInsensitive === true,
    nullsFirst: t.nulls === 'first',
  }));
  if (!terms.some((t) => t.name === 'id')) terms.push({ name: 'id', dir: 1, ci: false, nullsFirst: false });
  return [...SONGS]
    .sort((a, b) => {
      for (const t of terms) {
        const x = GET[t.name]!(a, t.ci);
        const y = GET[t.name]!(b, t.ci);
        if (x === y) continue;
        if (x === null) return t.nullsFirst ? -1 : 1;
        if (y === null) return t.nullsFirst ? 1 : -1;
        return x < y ? -t.dir : t.dir;
      }
      return 0;
    })
    .map((r) => r[0]);
}

async function seed(em: import('@mikro-orm/core').EntityManager): Promise<void> {
  for (const [id, name] of BANDS) em.create(Band, { id, name });
  for (const [id, title, nick, score, band] of SONGS)
    em.create(Song, { id, title, nick, score, band: band === null ? null : em.getReference(Band, band) });
  await em.flush();
}

const WALKS = [
  'title:ci',
  '-title:ci',
  'title:ci,-score:nullsfirst',
  'nick:ci:nullsfirst',
  '-nick:ci',
  '-nick:ci:nullsfirst,-id',
  'score:nullsfirst',
  '-score:nullsfirst',
  'score:nullslast,title:ci',
  '-score:nullsfirst,title:ci',
  'score:nullsfirst,-nick:nullsfirst',
  'band/name:ci,-score:nullsfirst',
  '-band/name:ci:nullsfirst',
  'id:nullsfirst',
];

function songQuery(em: unknown) {
  return (em as any).createQueryBuilder(Song, 's');
}

function songs(scoped: { from(qb: unknown): ScopedEngine }, em: unknown): ScopedEngine {
  return scoped.from(songQuery(em));
}

async function refusal(
  run: () => Promise<unknown>,
): Promise<{ code: string; parameter: string | undefined; offset: number | undefined }> {
  try {
    await run();
  } catch (error) {
    if (!isListError(error)) throw error;
    return { code: error.code, parameter: error.parameter, offset: error.position?.offset };
  }
  throw new Error('test: expected a refusal');
}

eachDialect('sorts users expect', { entities: [BandSchema, SongSchema], seed }, (test, dialect) => {
  for (const sort of WALKS) {
    test(`walks forward and back: sort=${sort}`, async ({ db, em }) => {
      // One engine for every page size and both directions: compiled statements are reused across them.
      const scoped = songs(createEngine(db.orm, { policy, maxLimit: 50 }), em);
      const expected = expectedIds(sort);
      for (const size of [1, 2, 3, 4, 11]) {
        const forward = await walk(scoped, { sort }, [size]);
        assert.equal(
          forward.items.map((i) => i.id),
          expected,
          `forward at page size ${size}`,
        );
        const last: Page = forward.pages.at(-1)!;
        if (!last.page.prevCursor) continue;
        const back = await walkBack(scoped, { sort }, last.page.prevCursor, [size]);
        const before = expected.slice(0, expected.indexOf(last.items[0]!.id as number));
        assert.equal(
          back.items.map((i) => i.id),
          before,
          `backward at page size ${size}`,
        );
      }
    });
  }

  test('a cursor of one sort is refused by another; a placement a key cannot use changes nothing', async ({
    db,
    em,
  }) => {
    const scoped = songs(createEngine(db.orm, { policy }), em);
    const cursorOf = async (sort: string) => (await scoped.list({ sort, limit: '2' })).page.nextCursor!;
    const pairs: [string, string][] = [
      ['score', 'score:nullsfirst'],
      ['-score', '-score:nullsfirst'],
      ['title', 'title:ci'],
      ['-title:ci', '-title'],
      ['nick:ci', 'nick:ci:nullsfirst'],
      ['band/name', 'band/name:ci'],
    ];
    for (const [from, to] of pairs) {
      const cursor = await cursorOf(from);
      const refused = await refusal(() => scoped.list({ sort: to, cursor }));
      assert.is(refused.code, 'invalid_cursor', `${from} → ${to}`);
      assert.is(refused.parameter, 'cursor');
    }
    // `:nullslast` is the default placement, and the primary key cannot be NULL: the same order, the same cursors.
    const same = await scoped.list({ sort: 'score:nullslast', cursor: await cursorOf('score'), limit: '2' });
    assert.equal(
      same.items.map((i) => i.id),
      expectedIds('score').slice(2, 4),
    );
    const key = await scoped.list({ sort: 'id:nullsfirst', cursor: await cursorOf('id'), limit: '1' });
    assert.equal(
      key.items.map((i) => i.id),
      [3],
    );
  });

  test('errors name the parameter and the position', async ({ db, em }) => {
    const scoped = songs(createEngine(db.orm, { policy }), em);
    const cases: [string, string, number][] = [
      ['score:ci', 'field_not_sortable', 0],
      ['title,-band/id:ci', 'field_not_sortable', 6],
      ['title:cs', 'invalid_parameter', 6],
      ['title:ci:ci', 'invalid_parameter', 9],
      ['score:nullsfirst:nullslast', 'invalid_parameter', 17],
      ['score :nullsfirst', 'invalid_parameter', 6],
      ['score:', 'invalid_parameter', 6],
    ];
    for (const [sort, code, offset] of cases) {
      const refused = await refusal(() => scoped.list({ sort }));
      assert.equal(refused, { code, parameter: 'sort', offset }, sort);
    }
    const hinted = await refusal(() => Promise.resolve(parseSort('score:desc')));
    assert.is(hinted.offset, 6);
  });

  test('indexes() names the indexes that serve :ci and :nullsfirst, and they run', async ({ db }) => {
    const engine = createEngine(db.orm, { policy });
    const advice = engine.indexes().filter((a) => a.reason === 'sort');
    const serves = advice.map((a) => a.serves);
    for (const s of ['sort=title', 'sort=-title', 'sort=nick', 'sort=-score']) assert.ok(serves.includes(s), s);
    const ci = advice.filter((a) => a.serves.includes(':ci'));
    const first = advice.filter((a) => a.serves.includes(':nullsfirst'));
    if (dialect === 'mariadb') {
      // The collation already compares caselessly and NULLs are the smallest value: the plain indexes serve both.
      assert.equal(ci, []);
      assert.equal(first, []);
    } else {
      assert.equal(
        ci.map((a) => a.serves),
        dialect === 'postgresql'
          ? [
              'sort=title:ci',
              'sort=-title:ci',
              'sort=nick:ci',
              'sort=-nick:ci',
              'sort=nick:ci:nullsfirst',
              'sort=-nick:ci:nullsfirst',
            ]
          : ['sort=title:ci', 'sort=-title:ci', 'sort=nick:ci', 'sort=-nick:ci'],
      );
      const folded = dialect === 'postgresql' ? 'lower("title" collate "C")' : 'lower(`title`)';
      assert.ok(ci[0]!.ddl.includes(`(${folded}), `), ci[0]!.ddl);
    }
    if (dialect === 'postgresql')
      assert.ok(
        advice.some((a) => a.serves === 'sort=score:nullsfirst' && a.ddl.includes('("score" nulls first, "id")')),
        JSON.stringify(first),
      );
    for (const a of engine.indexes()) await db.orm.em.getConnection().execute(a.ddl);
    // With them in place, every walk still gives the same rows.
    const scoped = songs(engine, db.orm.em.fork());
    for (const sort of ['title:ci', '-score:nullsfirst', 'nick:ci:nullsfirst']) {
      const { items } = await walk(scoped, { sort }, [3]);
      assert.equal(
        items.map((i) => i.id),
        expectedIds(sort),
        sort,
      );
    }
  });

  test('describe() and the typed client know the modifiers', ({ db }) => {
    const engine = createEngine(db.orm, { policy, defaultSort: '-score:nullsfirst,title:ci' });
    const description = engine.describe();
    const field = (name: string) => description.fields.find((f) => f.name === name)!;
    assert.is(field('title').sortCaseInsensitive, true);
    assert.is(field('score').sortCaseInsensitive, undefined);
    assert.is(description.defaultSort, '-score:nullsfirst,title:ci');
    const doc = toOpenAPI(description, { title: 'songs', version: '1', path: '/songs' }) as any;
    const sortParam = doc.paths['/songs'].get.parameters.find((p: any) => p.name === 'sort');
    assert.match(sortParam.description, 'Sortable: id, title[:ci], nick[:ci], score, band/id, band/name[:ci].');
    assert.match(sortParam.description, '`:nullsfirst`');
    const request = client<typeof policy>().sort('-score:nullsfirst', 'title:ci', 'band/name:ci:nullslast');
    assert.is(new URLSearchParams(request.toString()).get('sort'), '-score:nullsfirst,title:ci,band/name:ci:nullslast');
    assert.throws(() => client<typeof policy>().sort('title:CI' as never), /unknown sort modifier/);
  });

  test('GraphQL takes the modifiers in its sort argument, forward and backward', async ({ db }) => {
    const em = db.orm.em.fork();
    const engine = createEngine(db.orm, { policy, maxLimit: 50 });
    const built = graphqlSchema({
      endpoints: [{ field: 'songs', type: 'Song', engine, scope: () => ({ base: songQuery(em.fork()) }) }],
    });
    const sort = '-score:nullsfirst,title:ci';
    const run = async (args: string) => {
      const result = await graphql({
        schema: built,
        source: `{ songs(sort: ${JSON.stringify(sort)}${args}) { edges { node { id } } pageInfo { startCursor endCursor } } }`,
      });
      assert.is(result.errors, undefined, JSON.stringify(result.errors));
      return (result.data as any).songs;
    };
    const first = await run(', first: 4');
    const second = await run(`, first: 4, after: ${JSON.stringify(first.pageInfo.endCursor)}`);
    const back = await run(`, last: 4, before: ${JSON.stringify(second.pageInfo.startCursor)}`);
    const ids = (page: any) => page.edges.map((e: any) => e.node.id);
    assert.equal([...ids(first), ...ids(second)], expectedIds(sort).slice(0, 8));
    assert.equal(ids(back), ids(first));
    const refused = await graphql({ schema: built, source: '{ songs(sort: "score:ci") { edges { node { id } } } }' });
    assert.match(String(refused.errors?.[0]?.message), /case-insensitively/);
  });

  test('the policy checks :ci: string fields only, and a default sort only where allowed', ({ db }) => {
    const numeric = schema(Song)
      .expose('id', sortable())
      .expose('score', sortable({ caseInsensitive: true }));
    assert.throws(
      () => createEngine(db.orm, { policy: numeric }),
      /Song\.score: a case-insensitive sort needs a string/,
    );
    assert.throws(
      () => createEngine(db.orm, { policy, defaultSort: 'band/id:ci' }),
      /cannot be sorted case-insensitively/,
    );
  });
});
