/**
 * The cost budget of nested selections, before any statement: rows of every level together (maxTreeRows), each
 * level's filter sub-queries in the one maxSubqueries (twice with `<path>.count=true`), depth and sort joins per
 * level, `in` values over all filters; requestWork's totals; and createEngine's check of selectable relations
 * against maxSelectionDepth. Each bound: accepted at the limit, refused one over, with the parameter and position.
 */
import * as assert from 'uvu/assert';
import { checkBudget, checkTreeBudget } from '../../src/bind/cost.ts';
import { resolveQuery } from '../../src/bind/index.ts';
import { validateConfig } from '../../src/engine/config.ts';
import { createEngine } from '../../src/engine/engine.ts';
import { requestWork } from '../../src/engine/request-work.ts';
import { isListError } from '../../src/errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../../src/limits.ts';
import { type Policy, schema, selectable, sortable } from '../../src/policy/index.ts';
import type { ParsedQuery } from '../../src/syntax/ast.ts';
import { parseFilter } from '../../src/syntax/filter.ts';
import { parseSort } from '../../src/syntax/sort.ts';
import { Author, Book, Review, relationEntities, Tag } from '../fixtures/relations.ts';
import { eachDialect } from '../helpers/db.ts';
import { fieldsOf, nestedOf } from './fields-text.ts';
import { bookP } from './selection-policies.ts';

interface Request {
  readonly fields: string;
  readonly nested?: Readonly<Record<string, string>>;
  readonly filter?: string;
  readonly sort?: string;
  readonly limit?: number;
  readonly count?: boolean;
}

function parsed(r: Request): ParsedQuery {
  return {
    fields: fieldsOf(r.fields),
    ...(r.nested ? { nested: nestedOf(r.nested) } : {}),
    ...(r.filter ? { filter: parseFilter(r.filter) } : {}),
    ...(r.sort ? { sort: parseSort(r.sort) } : {}),
    ...(r.limit === undefined ? {} : { limit: r.limit }),
    ...(r.count === undefined ? {} : { count: r.count }),
  };
}

/** code, parameter, position offset, and text the message contains. */
type Refusal = readonly [string, string, number | undefined, string];

interface BudgetRow {
  readonly name: string;
  readonly request: Request;
  /** The top page's size. */
  readonly top: number;
  readonly limits: Partial<Limits>;
  /** Accepted: the tree's rows, its nested statements and the sub-queries of all filters. */
  readonly cost?: { rows: number; statements: number; subqueries: number };
  readonly error?: Refusal;
}

const ROWS: readonly BudgetRow[] = [
  {
    name: 'a list of 5 per parent under 20 parents, at maxTreeRows',
    request: { fields: 'reviews(stars)' },
    top: 20,
    limits: { maxTreeRows: 120 },
    cost: { rows: 120, statements: 1, subqueries: 0 },
  },
  {
    name: 'the same, one row over',
    request: { fields: 'reviews(stars)' },
    top: 20,
    limits: { maxTreeRows: 119 },
    error: [
      'limit_exceeded',
      'fields',
      0,
      'fields may answer 120 rows at all levels, 1 over maxTreeRows (119): reviews adds 100 (20 parents × 0 + 5)',
    ],
  },
  {
    name: 'a to-one level inside a list: its parents are the list rows',
    request: { fields: 'id,reviews(stars,book(title))' },
    top: 20,
    limits: { maxTreeRows: 220 },
    cost: { rows: 220, statements: 2, subqueries: 0 },
  },
  {
    name: 'the same, one over: the inner level crosses',
    request: { fields: 'id,reviews(stars,book(title))' },
    top: 20,
    limits: { maxTreeRows: 219 },
    error: ['limit_exceeded', 'fields', 'id,reviews(stars,'.length, 'reviews.book adds 100 (100 parents × 1)'],
  },
  {
    name: 'offset + limit per parent, a list inside a to-one',
    request: { fields: 'author(tags(label))', nested: { 'author.tags.offset': '3' } },
    top: 20,
    limits: { maxTreeRows: 140 },
    cost: { rows: 140, statements: 2, subqueries: 0 },
  },
  {
    name: 'a level with count sends two statements',
    request: { fields: 'reviews(stars)', nested: { 'reviews.limit': '20', 'reviews.count': 'true' } },
    top: 20,
    limits: {},
    cost: { rows: 420, statements: 2, subqueries: 0 },
  },
  {
    name: 'the top page alone over maxTreeRows, with a selection',
    request: { fields: 'author(name)' },
    top: 2001,
    limits: {},
    error: ['limit_exceeded', 'fields', undefined, 'the page alone has 2001'],
  },
  {
    name: 'a page of 0 rows: no nested statement',
    request: { fields: 'author(name),reviews(stars)' },
    top: 0,
    limits: {},
    cost: { rows: 0, statements: 0, subqueries: 0 },
  },
  {
    name: "the filters' sub-queries together, a level with count twice, at maxSubqueries",
    request: {
      fields: 'reviews(stars)',
      filter: "author/name eq 'x'",
      nested: { 'reviews.filter': "book/title eq 'x'", 'reviews.count': 'true' },
    },
    top: 10,
    limits: { maxSubqueries: 3 },
    cost: { rows: 60, statements: 2, subqueries: 3 },
  },
  {
    name: 'the same, one over: the level that crosses and by how much',
    request: {
      fields: 'reviews(stars)',
      filter: "author/name eq 'x'",
      nested: { 'reviews.filter': "book/title eq 'x'", 'reviews.count': 'true' },
    },
    top: 10,
    limits: { maxSubqueries: 2 },
    error: [
      'limit_exceeded',
      'reviews.filter',
      0,
      'reviews.filter needs 2 relationship sub-queries (each twice: with reviews.count=true), 1 before it: 3 is 1 over maxSubqueries (2)',
    ],
  },
  {
    name: 'quantifier depth counts per level, at maxSubqueryDepth',
    request: {
      fields: 'author(tags(label))',
      filter: 'reviews/any(r: r/stars gt 1)',
      nested: { 'author.tags.filter': "authors/any(a: a/name eq 'x')" },
    },
    top: 10,
    limits: { maxSubqueryDepth: 1 },
    // The top filter's quantifier weighs 1.5; a nested list's, which reads one page's related rows, 1.
    cost: { rows: 40, statements: 2, subqueries: 2.5 },
  },
  {
    name: 'a level one deeper than maxSubqueryDepth',
    request: {
      fields: 'author(tags(label))',
      nested: { 'author.tags.filter': "authors/any(a: a/tags/any(t: t/label eq 'x'))" },
    },
    top: 10,
    limits: { maxSubqueryDepth: 1 },
    error: ['limit_exceeded', 'author.tags.filter', 'authors/any(a: '.length, 'maxSubqueryDepth'],
  },
  {
    name: 'in values of all filters together, at maxInValuesTotal',
    request: { fields: 'reviews(stars)', filter: 'id in (1, 2)', nested: { 'reviews.filter': 'stars in (1, 2)' } },
    top: 10,
    limits: { maxInValuesTotal: 4 },
    cost: { rows: 60, statements: 1, subqueries: 0 },
  },
  {
    name: 'in values of all filters together, one over',
    request: { fields: 'reviews(stars)', filter: 'id in (1, 2)', nested: { 'reviews.filter': 'stars in (1, 2)' } },
    top: 10,
    limits: { maxInValuesTotal: 3 },
    error: ['limit_exceeded', 'reviews.filter', 0, 'the in lists of all filters hold more than 3 values'],
  },
  {
    name: 'sort joins count per level',
    request: { fields: 'reviews(stars)', sort: 'author/name', nested: { 'reviews.sort': 'book/title' } },
    top: 10,
    limits: { maxSortJoins: 1 },
    cost: { rows: 60, statements: 1, subqueries: 0 },
  },
];

// A chain of selectable relations 4 deep: reviews.book.author.tags.
const level4 = schema(Tag).expose('label');
const level3 = schema(Author).expose('name').relation('tags', level4, selectable());
const level2 = schema(Book).expose('title').relation('author', level3, selectable());
const level1 = schema(Review).expose('stars').relation('book', level2, selectable());
const fourDeep: Policy = schema(Book).expose('id').relation('reviews', level1, selectable());
const threeDeep: Policy = schema(Author).expose('id').relation('books', level2, selectable());
const sortedReviews: Policy = schema(Book)
  .expose('id')
  .relation('reviews', schema(Review).expose('reviewer', sortable()).expose('stars', sortable()), {
    select: { defaultSort: 'reviewer,-stars' },
  });

function thrown(run: () => unknown): {
  code: string;
  parameter: string | undefined;
  offset: number | undefined;
  message: string;
} {
  try {
    run();
  } catch (e) {
    if (!isListError(e)) throw e;
    return { code: e.code, parameter: e.parameter, offset: e.position?.offset, message: e.message };
  }
  throw new Error('expected a ListError');
}

eachDialect('nested selections: the cost budget', { entities: relationEntities }, (test, dialect) => {
  for (const row of ROWS)
    test(row.name, ({ db }) => {
      const limits = { ...DEFAULT_LIMITS, ...row.limits };
      const price = () => {
        const resolved = resolveQuery(bookP.bind(db.orm), parsed(row.request));
        const cost = checkBudget(resolved, limits);
        const tree = checkTreeBudget(resolved.selections, row.top, limits);
        return { rows: tree.rows, statements: tree.statements, subqueries: cost.subqueries };
      };
      if (row.cost) return assert.equal(price(), row.cost);
      const error = thrown(price);
      const [code, parameter, offset, says] = row.error!;
      assert.equal([error.code, error.parameter, error.offset], [code, parameter, offset]);
      assert.ok(error.message.includes(says), error.message);
    });

  test('a request without selections is not held to maxTreeRows', () => {
    assert.equal(checkTreeBudget(undefined, 5000, DEFAULT_LIMITS), { rows: 5000, statements: 0 });
  });

  test('requestWork: statements and rows of every level', ({ db }) => {
    const settings = validateConfig({ policy: bookP, allowCount: true });
    const bound = bookP.bind(db.orm);
    const request: Request = {
      fields: 'id,author(name),reviews(stars)',
      limit: 10,
      count: true,
      nested: { 'reviews.count': 'true', 'reviews.filter': "book/title eq 'x'" },
    };
    // data + count, author 1, reviews 1 + its count; 10 + 10 × 1 + 10 × 5 rows; the filter twice. Author and reviews
    // are sibling levels: two connections at once, except on SQLite.
    const connections = dialect === 'sqlite' ? 1 : 2;
    assert.equal(requestWork(settings, bound, parsed(request)), {
      subqueries: 2,
      statements: 5,
      rows: 70,
      connections,
    });
    assert.equal(requestWork(settings, bound, parsed({ ...request, limit: 0 })), {
      subqueries: 2,
      statements: 1,
      rows: 0,
      connections,
    });
    const tight = validateConfig({ policy: bookP, allowCount: true, limits: { maxTreeRows: 69 } });
    const error = thrown(() => requestWork(tight, bound, parsed(request)));
    assert.equal([error.code, error.parameter, error.offset], ['limit_exceeded', 'fields', 'id,author(name),'.length]);
  });

  test('requestWork holds nested lists to the engine maxOffset and maxSelectionDepth', ({ db }) => {
    const bound = bookP.bind(db.orm);
    const ok = validateConfig({ policy: bookP, maxOffset: 4, limits: { maxSelectionDepth: 2 } });
    const offset = thrown(() =>
      requestWork(ok, bound, parsed({ fields: 'reviews(stars)', nested: { 'reviews.offset': '5' } })),
    );
    assert.equal([offset.code, offset.parameter], ['limit_exceeded', 'reviews.offset']);
    // createEngine refuses such a policy under maxSelectionDepth 1; settings made by hand reach the request check.
    const shallow = { ...ok, limits: { ...ok.limits, maxSelectionDepth: 1 } };
    const deep = thrown(() => requestWork(shallow, bound, parsed({ fields: 'reviews(book(id))' })));
    assert.equal([deep.code, deep.offset], ['limit_exceeded', 'reviews('.length]);
    // Both at their bound (offset 4 of 4, depth 2 of 2): accepted.
    const work = requestWork(ok, bound, parsed({ fields: 'reviews(book(id))', nested: { 'reviews.offset': '4' } }));
    assert.equal(work.rows, 20 + 20 * 9 + 180);
  });

  test('createEngine: selectable relations nested over maxSelectionDepth are refused, naming the path', ({ db }) => {
    const error = thrown(() => createEngine(db.orm, { policy: fourDeep }));
    assert.is(error.code, 'invalid_schema');
    assert.ok(error.message.includes('4 deep at reviews.book.author.tags'), error.message);
    assert.ok(error.message.includes('maxSelectionDepth (3)'), error.message);
    createEngine(db.orm, { policy: threeDeep });
    createEngine(db.orm, { policy: fourDeep, limits: { maxSelectionDepth: 4 } });
    const tight = thrown(() => createEngine(db.orm, { policy: bookP, limits: { maxSelectionDepth: 1 } }));
    assert.ok(tight.message.includes('at author.publisher'), tight.message);
  });

  test("createEngine: a relation's defaultSort must fit the engine's sort limits", ({ db }) => {
    createEngine(db.orm, { policy: sortedReviews, limits: { maxSortTerms: 2 } });
    const error = thrown(() => createEngine(db.orm, { policy: sortedReviews, limits: { maxSortTerms: 1 } }));
    assert.is(error.code, 'invalid_schema');
    assert.ok(error.message.includes("selectable relation reviews 'reviewer,-stars'"), error.message);
  });
});
