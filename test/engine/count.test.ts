/**
 * count=true: the exact number of root rows in base scope + root filters + filter (+ search, in the search tests),
 * whatever the sort, cursor, limit or offset; each root row once when the base scope joins to-many or selects
 * distinct; one count query without order, limit or sort joins; the same total on every page.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { ENTRIES, Entry, entryPolicy, seedWalk, TAGS, walkEntities } from '../fixtures/walk.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { walk } from '../helpers/walk.ts';

const LIVE = ENTRIES.filter((e) => !e.deleted);
const TAGGED = [1, 2, 4, 6, 13]; // live entries with a red or blue tag (11 is soft-deleted)

type Base = (em: EntityManager) => any;
const plain: Base = (em) => (em as any).createQueryBuilder(Entry, 'e');
const tagged: Base = (em) =>
  plain(em)
    .leftJoin('e.tags', 't')
    .where({ 't.name': { $in: ['red', 'blue'] } });
const taggedDistinct: Base = (em) =>
  plain(em)
    .select(['id', 'label'], true)
    .leftJoin('e.tags', 't')
    .where({ 't.name': { $in: ['red', 'blue'] } });
const withTeam: Base = (em) =>
  plain(em)
    .leftJoin('e.team', 'tm')
    .where({ 'tm.id': { $ne: 0 } });

interface CountRow {
  readonly name: string;
  readonly base: Base;
  readonly query: Record<string, string>;
  readonly count: number;
}

const COUNTS: readonly CountRow[] = [
  { name: 'everything in scope', base: plain, query: {}, count: LIVE.length },
  {
    name: 'a filter',
    base: plain,
    query: { filter: 'score gt 1' },
    count: LIVE.filter((e) => (e.score ?? -1) > 1).length,
  },
  {
    name: 'a NULL test',
    base: plain,
    query: { filter: 'score is null' },
    count: LIVE.filter((e) => e.score === null).length,
  },
  {
    name: 'sort, limit and offset are ignored',
    base: plain,
    query: { sort: '-score', limit: '1', offset: '5' },
    count: LIVE.length,
  },
  {
    name: 'a to-many filter (any)',
    base: plain,
    query: { filter: "tags/any(t: t/name eq 'red')" },
    count: LIVE.filter((e) => TAGS.some((t) => t.entry === e.id && t.name === 'red')).length,
  },
  {
    name: 'a to-many filter (all, true for no tags)',
    base: plain,
    query: { filter: "tags/all(t: t/name eq 'red')" },
    count: LIVE.filter((e) => TAGS.every((t) => t.entry !== e.id || t.name === 'red')).length,
  },
  {
    name: 'a to-many filter and a to-many join in the base scope',
    base: tagged,
    query: { filter: "tags/any(t: t/name eq 'green')" },
    count: 1,
  },
  {
    name: 'a sort through a relation adds no join to the count',
    base: plain,
    query: { sort: '-group/name' },
    count: LIVE.length,
  },
  { name: 'a to-many join in the base scope', base: tagged, query: {}, count: TAGGED.length },
  { name: 'a to-many join with distinct', base: taggedDistinct, query: {}, count: TAGGED.length },
  { name: 'a to-many join and a filter', base: tagged, query: { filter: 'score gt 2' }, count: 2 },
  {
    name: 'a to-one join in the base scope',
    base: withTeam,
    query: {},
    count: LIVE.filter((e) => e.team !== null).length,
  },
];

eachDialect('engine count', { entities: walkEntities, seed: seedWalk }, (test) => {
  const engine = (em: EntityManager) => createEngine(em, { policy: entryPolicy, allowCount: true, maxLimit: 50 });

  for (const row of COUNTS) {
    test(`count: ${row.name}`, async ({ em }) => {
      const { result, calls } = await captureDriver(() =>
        engine(em)
          .from(row.base(em))
          .list({ ...row.query, count: 'true' }),
      );
      assert.is(result.page.count, row.count);
      const counts = calls.filter((c) => /count\(/i.test(c.sql));
      assert.is(counts.length, 1);
      assert.is(calls.length, 2, 'one data query and one count query');
      assert.not.match(counts[0]!.sql, /order by|limit|offset/i);
      // No sort join: only a base scope that joins the team itself reaches its table.
      if (row.base !== withTeam) assert.not.match(counts[0]!.sql, /walk_team/);
      // Rows that are root rows (no join, or to-one joins only) count `count(*)`; a to-many join or `distinct`
      // counts each root key once.
      if (row.base === tagged || row.base === taggedDistinct) assert.match(counts[0]!.sql, /count\(distinct /i);
      else assert.match(counts[0]!.sql, /count\(\*\)/i);
      // The data query agrees with the count when the page holds everything.
      if (row.query.limit === undefined) assert.is(result.items.length, row.count);
    });
  }

  // The old shape beside the new one: the statement the engine sends, with `count(*)` turned into a count of each
  // root key once, answers the same number (the rows counted are root rows).
  for (const row of COUNTS) {
    test(`count: ${row.name}: the same as each root key counted once`, async ({ em }) => {
      const scoped = engine(em).from(row.base(em));
      const { count } = await scoped.explain({ ...row.query, count: 'true' });
      const q = (name: string) => em.getPlatform().quoteIdentifier(name);
      const id = em.getMetadata().get(Entry).properties.id.fieldNames[0]!;
      const key = `count(distinct ${q('e')}.${q(id)})`;
      // MikroORM's execute() takes `?` placeholders and numbers them itself on PostgreSQL.
      const sql = count!.sql.replace(/count\(\*\)/i, key).replace(/\$\d+/g, '?');
      const rows = (await em.getConnection().execute(sql, [...count!.params], 'all')) as { count: unknown }[];
      assert.is(Number(rows[0]!.count), row.count);
      assert.is((await scoped.list({ ...row.query, count: 'true' })).page.count, row.count);
    });
  }

  test('the same total on every page of a walk, cursor pages included', async ({ em }) => {
    const { pages } = await walk(
      engine(em).from(plain(em)),
      { sort: 'at', filter: "title ne 'c'", count: 'true' },
      [3],
    );
    const expected = LIVE.filter((e) => e.label !== 'c').length;
    assert.ok(pages.length > 3);
    assert.equal(
      pages.map((p) => p.page.count),
      pages.map(() => expected),
    );
  });

  test('no count query unless asked', async ({ em }) => {
    const { result, calls } = await captureDriver(() => engine(em).from(plain(em)).list({}));
    assert.is(result.page.count, undefined);
    assert.not.ok('count' in result.page);
    assert.is(calls.length, 1);
  });
});
