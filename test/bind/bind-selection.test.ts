/**
 * policy.bind(orm) of selectable relations: the bound selection (defaults filled in, the defaultSort resolved
 * against the nested policy), and every refusal as `invalid_schema` naming Entity.property, on each dialect.
 */
import * as assert from 'uvu/assert';
import type { BoundSelection } from '../../src/bind/types.ts';
import { isListError } from '../../src/errors.ts';
import {
  filterable,
  type Policy,
  type RelationSelectOptions,
  schema,
  selectable,
  sortable,
} from '../../src/policy/index.ts';
import { Author, Book, Profile, Review, relationEntities, Tag } from '../fixtures/relations.ts';
import { eachDialect } from '../helpers/db.ts';

const bookOfReview = schema(Book).expose('id', sortable()).expose('title', sortable()).expose('price');
const reviewP = schema(Review)
  .expose('reviewer', sortable())
  .expose('stars', filterable(), sortable())
  .relation('book', bookOfReview)
  .relation('sameBook', bookOfReview, { property: 'book' });
const authorP = schema(Author).expose('name', sortable()).relation('books', schema(Book).expose('title', sortable()));
const profileP = schema(Profile).expose('bio');
const tagP = schema(Tag).expose('label', sortable());

const withReviews = (select: RelationSelectOptions): Policy =>
  schema(Book).expose('id').relation('reviews', reviewP, selectable(select));

/** The bound selection as plain data: the resolved default sort as `-path/field` names. */
function plain(selection: BoundSelection | undefined) {
  if (!selection) return undefined;
  const { defaultSort, ...rest } = selection;
  return {
    ...rest,
    ...(defaultSort
      ? {
          defaultSort: defaultSort.map(
            (t) =>
              `${t.direction === 'desc' ? '-' : ''}${[...t.target!.relations.map((r) => r.publicName), t.target!.field.publicName].join('/')}`,
          ),
        }
      : {}),
  };
}

const BOUND: readonly [string, () => Policy, string, unknown][] = [
  ['not selectable without the option', () => schema(Book).relation('author', authorP), 'author', undefined],
  ['selectable(false)', () => schema(Book).relation('author', authorP, selectable(false)), 'author', undefined],
  [
    'a to-one relation: one object per parent',
    () => schema(Book).relation('author', authorP, selectable()),
    'author',
    { maxLimit: 1, defaultLimit: 1, allowCount: false },
  ],
  [
    'an inverse 1:1 with { select: true }',
    () => schema(Author).relation('profile', profileP, { select: true }),
    'profile',
    { maxLimit: 1, defaultLimit: 1, allowCount: false },
  ],
  [
    'a to-many relation with the defaults',
    () => schema(Book).relation('reviews', reviewP, selectable()),
    'reviews',
    { maxLimit: 50, defaultLimit: 10, allowCount: false },
  ],
  [
    'defaultLimit follows a smaller maxLimit',
    () => withReviews({ maxLimit: 4 }),
    'reviews',
    { maxLimit: 4, defaultLimit: 4, allowCount: false },
  ],
  [
    'every option, the sort written loosely and canonical in defaultSortText',
    () => withReviews({ maxLimit: 20, defaultLimit: 5, defaultSort: ' -stars , reviewer ', allowCount: true }),
    'reviews',
    {
      maxLimit: 20,
      defaultLimit: 5,
      allowCount: true,
      defaultSortText: '-stars,reviewer',
      defaultSort: ['-stars', 'reviewer'],
    },
  ],
  [
    'a default sort through a to-one relation of the nested policy',
    () => withReviews({ defaultSort: 'book/title,-stars' }),
    'reviews',
    {
      maxLimit: 50,
      defaultLimit: 10,
      allowCount: false,
      defaultSortText: 'book/title,-stars',
      defaultSort: ['book/title', '-stars'],
    },
  ],
  [
    'an m:n relation with allowCount',
    () => schema(Author).relation('tags', tagP, selectable({ allowCount: true })),
    'tags',
    { maxLimit: 50, defaultLimit: 10, allowCount: true },
  ],
];

const REFUSED: readonly [string, () => Policy, readonly string[]][] = [
  [
    'list options on a to-one relation',
    () => schema(Book).relation('author', authorP, selectable({ maxLimit: 3 })),
    ['Book.author', 'maxLimit applies to to-many relations only'],
  ],
  [
    'allowCount on a to-one relation',
    () => schema(Book).relation('author', authorP, { select: { allowCount: true } }),
    ['Book.author', 'allowCount applies to to-many relations only'],
  ],
  [
    'defaultLimit over maxLimit',
    () => withReviews({ maxLimit: 5, defaultLimit: 6 }),
    ['Book.reviews', 'defaultLimit (6) must not exceed maxLimit (5)'],
  ],
  ['maxLimit 0', () => withReviews({ maxLimit: 0 }), ['Book.reviews', 'maxLimit must be a positive integer']],
  [
    'a fractional defaultLimit',
    () => withReviews({ defaultLimit: 2.5 }),
    ['Book.reviews', 'defaultLimit must be a positive integer'],
  ],
  [
    'allowCount not a boolean',
    () => withReviews({ allowCount: 'yes' as never }),
    ['Book.reviews', 'allowCount must be true or false'],
  ],
  [
    'an unknown option',
    () => withReviews({ maxRows: 3 } as never),
    ['Book.reviews', "unknown select option 'maxRows'"],
  ],
  [
    'a default sort that does not parse',
    () => withReviews({ defaultSort: 'stars,' }),
    ['Book.reviews', "defaultSort 'stars,' is not a valid sort at byte 6"],
  ],
  [
    'a default sort on a field the nested policy does not expose',
    () => withReviews({ defaultSort: '-rating' }),
    ['Book.reviews', "'rating' is not a field it exposes"],
  ],
  [
    'a default sort on a field that is not sortable',
    () => withReviews({ defaultSort: 'book/price' }),
    ['Book.reviews', "'price' is not sortable"],
  ],
  [
    'a default sort through an unknown relation',
    () => withReviews({ defaultSort: 'author/name' }),
    ['Book.reviews', "'author' is not a relation it exposes"],
  ],
  [
    'a default sort through a to-many relation',
    () =>
      schema(Author).relation(
        'tags',
        schema(Tag).expose('label').relation('authors', schema(Author).expose('name', sortable())),
        selectable({ defaultSort: 'authors/name' }),
      ),
    ['Author.tags', "'authors' is a to-many relation"],
  ],
];

eachDialect('policy.bind: selectable relations', { entities: relationEntities }, (test) => {
  for (const [name, policy, relation, expected] of BOUND)
    test(`binds ${name}`, ({ db }) => {
      const bound = policy().bind(db.orm);
      assert.equal(plain(bound.relations.get(relation)?.selection), expected);
    });

  for (const [name, policy, says] of REFUSED)
    test(`refuses ${name}`, ({ db }) => {
      let error: unknown;
      try {
        policy().bind(db.orm);
      } catch (e) {
        error = e;
      }
      if (!isListError(error)) throw new Error(`expected a ListError, got ${String(error)}`);
      assert.is(error.code, 'invalid_schema');
      for (const text of says) assert.ok(error.message.includes(text), error.message);
    });

  test('a default sort resolves to the nested bound fields and relations', ({ db }) => {
    const bound = withReviews({ defaultSort: 'book/title' }).bind(db.orm);
    const reviews = bound.relations.get('reviews')!;
    const [term] = reviews.selection!.defaultSort!;
    assert.is(term!.target!.relations[0], reviews.target.relations.get('book'));
    assert.is(term!.target!.field, reviews.target.relations.get('book')!.target.fields.get('title'));
  });
});
