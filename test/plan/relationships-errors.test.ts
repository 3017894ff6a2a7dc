/**
 * Relationship requests that are refused, with their code, parameter and position (byte offset into the
 * parameter's value), on both dialects and before any SQL runs: an undisclosed relation reads exactly like an
 * unknown one, a to-many path needs a quantifier, variables are lexically scoped, sorts stay on to-one paths,
 * and polymorphic associations cannot be exposed at all.
 */
import * as assert from 'uvu/assert';
import { resolveQuery } from '../../src/bind/index.ts';
import { isListError } from '../../src/errors.ts';
import { planResolved } from '../../src/plan/index.ts';
import { schema } from '../../src/policy/index.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { libraryEntities, libraryOptions } from '../fixtures/library.ts';
import { Book, Comment, relationEntities } from '../fixtures/relations.ts';
import { eachDialect } from '../helpers/db.ts';
import { ROOTS, type Root } from '../helpers/library-run.ts';

interface ErrorRow {
  readonly root: Root;
  readonly values: Record<string, string>;
  readonly code: string;
  readonly parameter: 'filter' | 'sort';
  readonly offset: number;
  readonly message?: string;
}

const ERRORS: readonly ErrorRow[] = [
  // Book.author's policy does not expose Author.profile: the same words as for a relation that does not exist.
  {
    root: 'book',
    values: { filter: "author/profile/bio eq 'x'" },
    code: 'invalid_relationship',
    parameter: 'filter',
    offset: 7,
    message: "unknown relationship 'profile'",
  },
  {
    root: 'book',
    values: { filter: "author/agent/bio eq 'x'" },
    code: 'invalid_relationship',
    parameter: 'filter',
    offset: 7,
    message: "unknown relationship 'agent'",
  },
  { root: 'book', values: { filter: 'author/tenant eq 1' }, code: 'unknown_field', parameter: 'filter', offset: 7 },
  {
    root: 'book',
    values: { filter: 'reviews/stars eq 5' },
    code: 'invalid_relationship',
    parameter: 'filter',
    offset: 0,
  },
  {
    root: 'book',
    values: { filter: 'author/books/price gt 1' },
    code: 'invalid_relationship',
    parameter: 'filter',
    offset: 7,
  },
  {
    root: 'book',
    values: { filter: "author/any(a: a/name eq 'x')" },
    code: 'invalid_relationship',
    parameter: 'filter',
    offset: 0,
  },
  // Variables: only active ones, never outside their any/all, never shadowing an outer one.
  {
    root: 'book',
    values: { filter: 'reviews/any(r: x/stars eq 1)' },
    code: 'invalid_relationship',
    parameter: 'filter',
    offset: 15,
  },
  {
    root: 'book',
    values: { filter: 'reviews/any(r: r/stars eq 1) and r/stars eq 1' },
    code: 'invalid_relationship',
    parameter: 'filter',
    offset: 33,
    message: "unknown relationship 'r'",
  },
  {
    root: 'author',
    values: { filter: 'books/any(b: b/reviews/any(b: b/stars eq 1))' },
    code: 'invalid_relationship',
    parameter: 'filter',
    offset: 27,
  },
  // Sorts go through to-one relations only.
  { root: 'book', values: { sort: 'title,reviews/stars' }, code: 'invalid_relationship', parameter: 'sort', offset: 6 },
  { root: 'book', values: { sort: '-author/books/price' }, code: 'invalid_relationship', parameter: 'sort', offset: 8 },
  {
    root: 'book',
    values: { sort: 'author/agent/name' },
    code: 'invalid_relationship',
    parameter: 'sort',
    offset: 7,
    message: "unknown relationship 'agent'",
  },
];

eachDialect('relationships: refused requests', { entities: libraryEntities, options: libraryOptions }, (test) => {
  for (const row of ERRORS) {
    test(`${row.root}: ${JSON.stringify(row.values)}`, ({ em }) => {
      const r = ROOTS[row.root];
      const bound = r.policy.bind(em);
      try {
        const resolved = resolveQuery(bound, parseHTTP(row.values));
        planResolved((em as any).createQueryBuilder(r.entity, r.alias), bound, resolved);
        assert.unreachable('no error');
      } catch (err) {
        if (!isListError(err)) throw err;
        assert.is(err.code, row.code);
        assert.is(err.parameter, row.parameter);
        assert.equal(err.position, { offset: row.offset, line: 1, column: row.offset + 1 });
        if (row.message !== undefined) assert.is(err.message, row.message);
      }
    });
  }
});

eachDialect('relationships: polymorphic associations', { entities: relationEntities }, (test) => {
  test('cannot be exposed: binding the policy fails', ({ em }) => {
    // @ts-expect-error the types refuse it too (subject targets Book | Author); this checks the run-time guard
    const policy = schema(Comment).expose('body').relation('subject', schema(Book).expose('title'));
    try {
      policy.bind(em);
      assert.unreachable('no error');
    } catch (err) {
      if (!isListError(err)) throw err;
      assert.is(err.code, 'invalid_schema');
      assert.match(err.message, /polymorphic/);
    }
  });
});
