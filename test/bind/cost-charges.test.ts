/**
 * What the cost budget charges besides sub-queries (docs/security.md, Cost budget): comparisons (pattern tests and
 * the ones inside quantifiers), a sort through a relation, an offset, and the runs of a page read as a UNION ALL of
 * branches on a nullable sort key (PostgreSQL, MariaDB). A request over the budget is refused before any statement,
 * at the term that crosses, saying by how much; one at the budget runs.
 */
import * as assert from 'uvu/assert';
import { checkBudget } from '../../src/bind/cost.ts';
import { resolveQuery } from '../../src/bind/index.ts';
import { dialectFor } from '../../src/dialect/index.ts';
import { createEngine, DEFAULT_LIMITS, isListError, type Limits, parseHTTP } from '../../src/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { type Dialect, eachDialect } from '../helpers/db.ts';
import { COST_ENTITIES, seedShelves, shelfPolicy, shelves } from './cost-fixture.ts';

const Q = 'notes/any(n: n/stars gt 9)';
const or = (n: number, term: (i: number) => string) => Array.from({ length: n }, (_, i) => term(i)).join(' or ');
/** `notes/any(n: n/stars gt 0 or n/stars gt 1 …)` with `k` comparisons inside. */
const inner = (k: number) => `notes/any(n: ${or(k, (i) => `n/stars gt ${i}`)})`;

interface Row {
  readonly name: string;
  readonly query: Record<string, string>;
  readonly limits?: Partial<Limits>;
  /** Take a cursor after the first row of the same sort and send it. */
  readonly continued?: boolean;
  /** Expected per dialect (or for all): accepted, or [parameter, byte offset or undefined, text in the message]. */
  readonly error?: Expect | Partial<Record<Dialect, Expect>>;
}
type Expect = readonly [string, number | undefined, string];

const ROWS: readonly Row[] = [
  // A quantifier weighs 1.5 with its first comparison; each further plain comparison inside it 1/8.
  {
    name: '13 comparisons in one quantifier: 1.5 + 12/8 = 3, at the budget',
    query: { filter: inner(13) },
    limits: { maxSubqueries: 3 },
  },
  {
    name: 'the 14th comparison crosses: 3.13',
    query: { filter: inner(14) },
    limits: { maxSubqueries: 3 },
    error: ['filter', inner(14).indexOf('n/stars gt 13'), '3.13 of maxSubqueries (3), 0.13 over'],
  },
  {
    name: 'count runs the comparisons again: 2 × 1.63',
    query: { filter: inner(2), count: 'true' },
    limits: { maxSubqueries: 3 },
    error: ['filter', inner(2).indexOf('n/stars gt 1'), '2 runs (the page, count=true)'],
  },
  // A pattern test weighs 3/4 inside a quantifier (5/8 more for the first), 1/4 at the root; plain ones are free there.
  {
    name: 'an i-operator inside a quantifier: 1.5 + 5/8',
    query: { filter: "notes/any(n: n/text icontains 'of')" },
    limits: { maxSubqueries: 2 },
    error: ['filter', 'notes/any(n: '.length, '1 sub-queries weighing 1.5 and 1 comparisons weighing 0.63 per run'],
  },
  {
    name: '4 root pattern tests weigh 1',
    query: { filter: or(4, () => "label icontains 'a'") },
    limits: { maxSubqueries: 1 },
  },
  {
    name: 'the 5th root pattern test crosses',
    query: { filter: or(5, () => "label icontains 'a'") },
    limits: { maxSubqueries: 1 },
    error: ['filter', 4 * "label icontains 'a' or ".length, '1.25 of maxSubqueries (1)'],
  },
  {
    name: '40 plain root comparisons are free',
    query: { filter: or(40, (i) => `id eq ${i}`) },
    limits: { maxSubqueries: 1 },
  },
  // A sort through a relation: 4 (6 on MariaDB, 1 on SQLite), before the filter.
  {
    name: 'a relation sort and 2 quantifiers: 7 (9 on MariaDB; on SQLite 4, over its 3 per statement)',
    query: { sort: 'owner/name', filter: or(2, () => Q) },
    error: {
      sqlite: ['filter', `${Q} or `.length, 'needs at least 4, 1 over the 3 one statement may need on SQLite'],
      mariadb: ['filter', `${Q} or `.length, 'and 6 for a sort through a relation'],
    },
  },
  {
    name: 'a relation sort and a 3rd quantifier: 8.5',
    query: { sort: 'owner/name', filter: or(3, () => Q) },
    error: {
      sqlite: ['filter', `${Q} or `.length, 'and 1 for a sort through a relation'],
      postgresql: ['filter', 2 * `${Q} or `.length, 'and 4 for a sort through a relation'],
      mariadb: ['filter', `${Q} or `.length, 'and 6 for a sort through a relation'],
    },
  },
  {
    name: 'a relation sort alone over a budget of 3 (1 on SQLite: accepted)',
    query: { sort: 'rank,owner/name' },
    limits: { maxSubqueries: 3 },
    error: {
      postgresql: ['sort', 'rank,'.length, 'needs 4 of maxSubqueries (3) before its filter, 1 over: 4 for a sort'],
      mariadb: ['sort', 'rank,'.length, 'needs 6 of maxSubqueries (3) before its filter, 3 over: 6 for a sort'],
    },
  },
  // An offset: 1 per 25,000 rows produced and skipped (per 50,000 on SQLite).
  { name: 'offset 50000 weighs 2', query: { offset: '50000' }, limits: { maxSubqueries: 2 } },
  {
    name: 'offset 75000 weighs 3 (1.5 on SQLite)',
    query: { offset: '75000' },
    limits: { maxSubqueries: 2 },
    error: {
      postgresql: ['offset', undefined, '3 for offset 75000'],
      mariadb: ['offset', undefined, '3 for offset 75000'],
    },
  },
  {
    name: 'an offset and a filter together',
    query: { offset: '50000', filter: Q },
    limits: { maxSubqueries: 3 },
    error: {
      postgresql: ['filter', 0, '1 run (the page), and 2 for offset 50000'],
      mariadb: ['filter', 0, '1 run (the page), and 2 for offset 50000'],
    },
  },
  {
    name: 'offset 100000 and a relation sort weigh 3 on SQLite',
    query: { offset: '100000', sort: 'owner/name' },
    limits: { maxSubqueries: 3 },
    error: {
      postgresql: ['sort', 0, 'needs 4 of maxSubqueries (3) before its filter'],
      mariadb: ['sort', 0, 'needs 6 of maxSubqueries (3) before its filter'],
    },
  },
  {
    name: 'with a root pattern test, over what one SQLite statement may need',
    query: { offset: '100000', sort: 'owner/name', filter: "label icontains 'a'" },
    error: {
      sqlite: ['filter', 0, 'needs at least 3.25, 0.25 over the 3 one statement'],
      postgresql: ['filter', 0, 'needs at least 8.25 of maxSubqueries (8)'],
      mariadb: ['offset', undefined, 'needs 10 of maxSubqueries (8) before its filter'],
    },
  },
  {
    name: 'a budget below 8 keeps 3 per statement: two quantifiers',
    query: { filter: or(2, () => Q) },
    limits: { maxSubqueries: 3 },
  },
  // SQLite runs each statement on the event loop: one may need at most 3/8 of maxSubqueries (of 8 when it is lower).
  { name: 'two quantifiers: 3, at SQLite’s share of one statement', query: { filter: or(2, () => Q) } },
  {
    name: 'two quantifiers with count=true: 3 per statement, 6 in all',
    query: { filter: or(2, () => Q), count: 'true' },
  },
  {
    name: 'a third quantifier: 4.5 in one statement, over SQLite’s 3',
    query: { filter: or(3, () => Q) },
    error: { sqlite: ['filter', 2 * `${Q} or `.length, '4.5, 1.5 over the 3 one statement may need on SQLite'] },
  },
  {
    name: 'maxSubqueries 16 gives one SQLite statement 6: four quantifiers',
    query: { filter: or(4, () => Q) },
    limits: { maxSubqueries: 16 },
  },
  {
    name: 'a fifth crosses it',
    query: { filter: or(5, () => Q) },
    limits: { maxSubqueries: 16 },
    error: { sqlite: ['filter', 4 * `${Q} or `.length, 'needs at least 7.5, 1.5 over the 6 one statement'] },
  },
  // Pages on a nullable sort key: every database reads a continuation page as one branch per key and one more per
  // nullable key (rank > ?, rank is null, rank = ? and id > ?), each repeating the filter; each weighs 2 runs on
  // PostgreSQL, 4 on MariaDB, 1 on SQLite.
  {
    name: 'a page after a cursor on a nullable key',
    query: { sort: 'rank', filter: Q },
    continued: true,
    limits: { maxSubqueries: 2 },
    error: {
      sqlite: ['filter', 0, '3 runs (3 branches of a nullable sort key)'],
      postgresql: ['filter', 0, '6 runs (3 branches of a nullable sort key ×2)'],
      mariadb: ['filter', 0, '12 runs (3 branches of a nullable sort key ×4)'],
    },
  },
  {
    name: 'a first page whose leading nullable key is ascending: two branches on MariaDB',
    query: { sort: 'rank', filter: Q },
    limits: { maxSubqueries: 11 },
    error: { mariadb: ['filter', 0, '8 runs (2 branches of a nullable sort key ×4)'] },
  },
  {
    name: 'descending, the same first page is one statement',
    query: { sort: '-rank', filter: Q },
    limits: { maxSubqueries: 2 },
  },
];

eachDialect('cost budget charges', { entities: COST_ENTITIES, seed: seedShelves }, (test, dialect) => {
  for (const row of ROWS) {
    test(row.name, async ({ em }) => {
      const engine = createEngine(em, {
        policy: shelfPolicy,
        allowCount: true,
        ...(row.limits ? { limits: row.limits } : {}),
      });
      let query = row.query;
      if (row.continued) {
        const first = await engine.from(shelves(em)).list({ sort: row.query.sort!, limit: '1' });
        query = { ...query, cursor: first.page.nextCursor! };
      }
      const { result, calls } = await captureDriver(() =>
        engine
          .from(shelves(em))
          .list(query)
          .then(
            (page) => page,
            (err: unknown) => err,
          ),
      );
      const expected = Array.isArray(row.error)
        ? (row.error as Expect)
        : (row.error as Partial<Record<Dialect, Expect>> | undefined)?.[dialect];
      if (!expected) {
        if (result instanceof Error) throw result;
        assert.ok(calls.length >= 1, 'accepted and run');
        return;
      }
      if (!isListError(result)) throw new Error(`expected a ListError, got ${String(result)}`);
      const [parameter, offset, says] = expected;
      assert.equal([result.code, result.parameter, result.position?.offset], ['limit_exceeded', parameter, offset]);
      assert.ok(result.message.includes(says), result.message);
      assert.ok(result.message.length <= 240, result.message);
      assert.is(calls.length, 0, 'no statement ran');
    });
  }

  test('the cost of an accepted request: its filter work, and everything held against maxSubqueries', ({ em }) => {
    const bound = shelfPolicy.bind(em);
    const page = { dialect: dialectFor(bound.platform) };
    const priced = (values: Record<string, string>) => {
      const cost = checkBudget(resolveQuery(bound, parseHTTP(values)), { ...DEFAULT_LIMITS, maxSubqueries: 20 }, page);
      return [cost.subqueries, cost.units];
    };
    assert.equal(priced({ filter: Q }), [1.5, 1.5]);
    // Per run 1.5 + 2/8 (two more comparisons inside) + 1/4 (a pattern test at the root); twice with the count.
    assert.equal(priced({ filter: `${inner(3)} and label contains 'a'`, count: 'true' }), [4, 4]);
    const [sort, offset] = ({ sqlite: [1, 0.5], postgresql: [4, 1], mariadb: [6, 1] } as const)[dialect];
    assert.equal(priced({ filter: Q, sort: 'owner/name', offset: '25000' }), [1.5, 1.5 + sort + offset]);
    // An estimated count asks the planner only: no second run.
    assert.equal(priced({ filter: Q, count: 'estimated' }), [1.5, 1.5]);
  });
});
