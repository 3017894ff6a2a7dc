/**
 * Property: nested selections over the generated library (books at the root; m:1, composite-key m:1, owning and
 * inverse 1:1, 1:m, m:n both sides and a self-reference below, four levels deep, with aliases), each to-many level
 * with a random filter, sort, limit, offset and count of its own, give through list() exactly the reference's
 * answer (test/oracle/tree.ts): every item and nested object or page, hasMore, where cursors are due, and counts,
 * with soft delete on or off, tenant 1, 2 or none and Review's relation-path filter at every level. Every value of
 * every level reaches the database bound (a marker literal in each nested filter is among the bound values and
 * never in the SQL text), and each level runs one statement for all its parents (plus one with its count).
 */
import fc from 'fast-check';
import * as assert from 'uvu/assert';
import { MAX_NESTED_LISTS } from '../../src/syntax/nested-parameters.ts';
import { fromQueryString } from '../../src/syntax/query-string.ts';
import { libraryEntities, libraryOptions } from '../fixtures/library.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { shapeFor } from '../oracle/arbitraries.ts';
import { budget, check, printable, SEED } from '../oracle/budget.ts';
import type { GenFilter } from '../oracle/filter.ts';
import { bookTreeSpec, generateLibrary, loadLibrary } from '../oracle/library.ts';
import type { EntitySpec, Visibility } from '../oracle/model.ts';
import { expectedRows, toQueryString } from '../oracle/request.ts';
import { expectedItems, firstDifference, type GenLevel, maskCursors } from '../oracle/tree.ts';
import { type TreeRequest, type TreeShape, treeRequestArb, treeValues } from '../oracle/tree-arbitraries.ts';
import { describeVisibility, scopedFor, treeEngine, visibilityArb } from '../oracle/tree-engine.ts';
import { type DbModel, dbModelFor } from '../oracle/values.ts';

const LIBRARY = generateLibrary(SEED, 80);
const RUNS = budget(150);
const MARKED = budget(40);
const WALKS = budget(20);

interface Case {
  readonly t: TreeRequest;
  readonly visibility: Visibility;
}

/** Shapes on a database that compares as `db` does: top-level filters lighter than the relations suite's. */
function shapes(db: DbModel) {
  const literals = shapeFor(db);
  const tree: TreeShape = {
    depth: 4,
    width: 3,
    filter: { depth: 2, hops: 2, quantifiers: 1, ...literals },
    sortHops: 2,
  };
  return { top: { depth: 2, hops: 2, quantifiers: 1, ...literals }, tree };
}

function caseArb(db: DbModel): fc.Arbitrary<Case> {
  const { top, tree } = shapes(db);
  return fc
    .record({ t: treeRequestArb(bookTreeSpec, top, tree, 20), visibility: visibilityArb.map((v) => ({ ...v, db })) })
    .map((c) => printable(c, (x) => `${toQueryString(treeValues(x.t))} (${describeVisibility(x.visibility)})`));
}

/** Every to-many selection's path and count flag, to bound the statements a request may run. */
function listLevels(level: GenLevel): { lists: number; counts: number; levels: number } {
  let lists = 0;
  let counts = 0;
  let levels = 0;
  for (const s of level.selections) {
    const below = listLevels(s);
    levels += 1 + below.levels;
    lists += (s.list ? 1 : 0) + below.lists;
    counts += (s.list?.count ? 1 : 0) + below.counts;
  }
  return { lists, counts, levels };
}

/** A marker literal put into a nested filter, and whether its level runs a statement whenever the top page has rows. */
interface Marker {
  readonly text: string;
  readonly sent: boolean;
}

/**
 * Put a marker literal into every nested list's filter: `<filter> or <field> eq <marker>` (or `<field> ne <marker>`
 * alone), on the target's first field, a number or text no row and no SQL holds. A list right under the top level
 * with rows to read (`limit` above 0) or a count runs a statement whenever the top page has rows: its marker is sent.
 */
function marked(level: GenLevel, markers: Marker[], depth = 1): GenLevel {
  return {
    ...level,
    selections: level.selections.map((s) => {
      const inner = marked(s, markers, depth + 1);
      if (!s.list) return { ...s, ...inner };
      const target: EntitySpec = s.relation.target();
      const field = target.fields[0]!;
      const n = markers.length;
      const literal =
        field.kind === 'integer'
          ? { text: String(731_904_000 + n), value: 731_904_000 + n }
          : { text: `'lqmark${n}zq'`, value: `lqmark${n}zq` };
      const reads = (s.list.limit ?? s.relation.select!.defaultLimit) > 0 || s.list.count === true;
      markers.push({ text: String(literal.value), sent: depth === 1 && reads });
      const test: GenFilter = { kind: 'cmp', path: { hops: [], field }, op: 'ne', literal };
      const filter: GenFilter = s.list.filter
        ? { kind: 'or', left: s.list.filter, right: { ...test, op: 'eq' } }
        : test;
      return { ...s, ...inner, list: { ...s.list, filter } };
    }),
  };
}

eachDialect(
  'property: nested selections through list() equal the reference',
  { entities: libraryEntities, seed: (em) => loadLibrary(em, LIBRARY), options: libraryOptions },
  (test, dialect) => {
    const db = dbModelFor(dialect);

    test(`${RUNS} random trees return the reference items, nested objects, pages and counts`, async (ctx) => {
      const engine = treeEngine(ctx.db.orm);
      await check(caseArb(db), RUNS, async ({ t, visibility }) => {
        const { request } = t;
        const all = expectedRows(bookTreeSpec, LIBRARY.books, request, visibility);
        const rows = all.slice(request.offset, request.offset + request.limit);
        const want = expectedItems(bookTreeSpec, rows, t.tree, { visibility });
        const values = { ...treeValues(t), count: 'true' };
        const query = request.raw ? fromQueryString(`?${toQueryString(values)}`) : values;
        const page = await scopedFor(engine, ctx.db.orm, visibility)().list(query);
        const got = maskCursors(page.items);
        const tag = `${toQueryString(values)} (${describeVisibility(visibility)})`;
        const diff = firstDifference(got, want);
        assert.ok(diff === undefined, `${tag}\n  ${diff}`);
        assert.is(page.page.count, all.length, `${tag}: count`);
      });
    });

    test(`${WALKS} top-level cursor walks carry each page's trees`, async (ctx) => {
      const engine = treeEngine(ctx.db.orm);
      const { top, tree } = shapes(db);
      const arb = fc
        .record({
          t: treeRequestArb(bookTreeSpec, top, { ...tree, depth: 2 }, 0),
          visibility: visibilityArb.map((v) => ({ ...v, db })),
          sizes: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 4 }),
        })
        .map((c) =>
          printable(
            c,
            (x) => `${toQueryString(treeValues(x.t))} sizes ${x.sizes} (${describeVisibility(x.visibility)})`,
          ),
        );
      await check(arb, WALKS, async ({ t, visibility, sizes }) => {
        const all = expectedRows(bookTreeSpec, LIBRARY.books, t.request, visibility);
        const values = treeValues(t, { offset: false });
        let cursor: string | undefined;
        let seen = 0;
        for (let i = 0; ; i++) {
          assert.ok(i < 200, 'the walk does not end');
          const limit = sizes[i % sizes.length]!;
          const query = { ...values, limit: String(limit), ...(cursor ? { cursor } : {}) };
          const page = await scopedFor(engine, ctx.db.orm, visibility)().list(query);
          const want = expectedItems(bookTreeSpec, all.slice(seen, seen + limit), t.tree, { visibility });
          const diff = firstDifference(maskCursors(page.items), want);
          assert.ok(
            diff === undefined,
            `page ${i} of ${toQueryString(query)} (${describeVisibility(visibility)})\n  ${diff}`,
          );
          seen += page.items.length;
          if (!page.page.nextCursor) break;
          cursor = page.page.nextCursor;
        }
        assert.is(seen, all.length, `${toQueryString(values)}: rows walked`);
      });
    });

    test(`${MARKED} trees with a marker literal in every nested filter: bound, never in the SQL text`, async (ctx) => {
      const engine = treeEngine(ctx.db.orm);
      // Every list gets a filter here: no more lists than a request may give parameters to.
      const withList = caseArb(db).filter(
        ({ t }) => listLevels(t.tree).lists > 0 && listLevels(t.tree).lists <= MAX_NESTED_LISTS,
      );
      await check(withList, MARKED, async ({ t, visibility }) => {
        const markers: Marker[] = [];
        const tree = marked(t.tree, markers);
        const markedCase: TreeRequest = { ...t, tree };
        const values = treeValues(markedCase);
        const tag = `${toQueryString(values)} (${describeVisibility(visibility)})`;
        const { result: page, calls } = await captureDriver(() =>
          scopedFor(engine, ctx.db.orm, visibility)().list(values),
        );
        const all = expectedRows(bookTreeSpec, LIBRARY.books, t.request, visibility);
        const rows = all.slice(t.request.offset, t.request.offset + t.request.limit);
        const diff = firstDifference(maskCursors(page.items), expectedItems(bookTreeSpec, rows, tree, { visibility }));
        assert.ok(diff === undefined, `${tag}\n  ${diff}`);
        const sql = calls.map((c) => c.sql).join('\n');
        const bound = new Set(calls.flatMap((c) => c.values.map((v) => String(v))));
        const levels = listLevels(tree);
        // One statement per level at most (none for a level without parents), never one per parent.
        assert.ok(
          calls.length <= 1 + levels.levels + levels.counts,
          `${tag}: ${calls.length} statements for ${levels.levels} levels\n${sql}`,
        );
        for (const { text, sent } of markers) {
          assert.not.ok(sql.includes(text), `${tag}: marker ${text} in the SQL text\n${sql}`);
          if (sent && rows.length > 0) assert.ok(bound.has(text), `${tag}: marker ${text} not among the bound values`);
        }
      });
    });
  },
);
