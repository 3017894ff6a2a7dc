/**
 * resolveQuery with nested selections: `fields` names relations with parentheses (`author(name)`,
 * `best:reviews(stars)`) and `nested` carries the path-named list parameters (`reviews.limit`). Resolved shapes
 * (implied keys, defaults of each relation's selection) and every client error with its code, parameter and
 * position, against policies bound to each dialect's metadata.
 */
import * as assert from 'uvu/assert';
import { type ResolveOptions, resolveQuery } from '../../src/bind/index.ts';
import type { ResolvedFilter, ResolvedQuery, ResolvedSelection, SelectedField } from '../../src/bind/types.ts';
import { isListError } from '../../src/errors.ts';
import type { ParsedQuery } from '../../src/syntax/ast.ts';
import { relationEntities } from '../fixtures/relations.ts';
import { eachDialect } from '../helpers/db.ts';
import { fieldsOf, nestedOf } from './fields-text.ts';
import { bookP } from './selection-policies.ts';

/** A request as the tests write it: `fields` text, nested parameters by name, and engine bounds. */
interface Request {
  readonly fields?: string;
  readonly nested?: Readonly<Record<string, string>>;
  readonly options?: ResolveOptions;
}

function parsed(request: Request): ParsedQuery {
  const nested = request.nested && nestedOf(request.nested);
  return {
    ...(request.fields === undefined ? {} : { fields: fieldsOf(request.fields) }),
    ...(nested === undefined ? {} : { nested }),
  };
}

/** `name`, `name=property` when they differ, `*` when implied. */
const field = (f: SelectedField) =>
  `${f.publicName}${f.property === f.publicName ? '' : `=${f.property}`}${f.implied ? '*' : ''}`;

const sortText = (s: ResolvedSelection) =>
  s.list?.sort.map((t) => `${t.direction === 'desc' ? '-' : ''}${t.target!.field.publicName}`);

function shape(s: ResolvedSelection): unknown {
  const list = s.list && {
    sort: sortText(s),
    limit: s.list.limit,
    offset: s.list.offset,
    count: s.list.count,
    ...(s.list.filter ? { filter: s.list.filter.kind } : {}),
    ...(s.list.cursor === undefined ? {} : { cursor: s.list.cursor }),
  };
  return {
    key: s.key,
    path: s.path,
    relation: s.relation.publicName,
    fields: s.fields.map(field),
    children: s.children.map(shape),
    ...(list ? { list } : {}),
  };
}

function render(resolved: ResolvedQuery) {
  return { fields: resolved.fields?.map(field), selections: resolved.selections?.map(shape) };
}

const ACCEPTED: readonly { name: string; request: Request; expected: ReturnType<typeof render> }[] = [
  {
    name: 'a to-one object: its key is selected, implied',
    request: { fields: 'id,author(name)' },
    expected: {
      fields: ['id', 'author*'],
      selections: [{ key: 'author', path: 'author', relation: 'author', fields: ['name'], children: [] }],
    },
  },
  {
    name: 'a to-many list takes the relation defaults (limit 5, sort -stars)',
    request: { fields: 'title,reviews(stars)' },
    expected: {
      fields: ['title'],
      selections: [
        {
          key: 'reviews',
          path: 'reviews',
          relation: 'reviews',
          fields: ['stars'],
          children: [],
          list: { sort: ['-stars'], limit: 5, offset: 0, count: false },
        },
      ],
    },
  },
  {
    name: 'aliases: two lists of one relation, each with its own parameters',
    request: {
      fields: 'best:reviews(stars),worst:reviews(reviewer)',
      nested: { 'best.limit': '1', 'best.count': 'true', 'worst.sort': 'stars', 'worst.offset': '2' },
    },
    expected: {
      fields: [],
      selections: [
        {
          key: 'best',
          path: 'best',
          relation: 'reviews',
          fields: ['stars'],
          children: [],
          list: { sort: ['-stars'], limit: 1, offset: 0, count: true },
        },
        {
          key: 'worst',
          path: 'worst',
          relation: 'reviews',
          fields: ['reviewer'],
          children: [],
          list: { sort: ['stars'], limit: 5, offset: 2, count: false },
        },
      ],
    },
  },
  {
    name: 'the key picked by name is not implied; the alias carries the object',
    request: { fields: 'author,a:author(name)' },
    expected: {
      fields: ['author'],
      selections: [{ key: 'a', path: 'a', relation: 'author', fields: ['name'], children: [] }],
    },
  },
  {
    name: 'levels nest: a list and an owning 1:1 inside a to-one, with path-named parameters',
    request: {
      fields: 'author(name,tags(label),profile(bio))',
      nested: { 'author.tags.limit': '3', 'author.tags.cursor': 'abc' },
    },
    expected: {
      fields: ['author*'],
      selections: [
        {
          key: 'author',
          path: 'author',
          relation: 'author',
          fields: ['name', 'profile*'],
          children: [
            {
              key: 'tags',
              path: 'author.tags',
              relation: 'tags',
              fields: ['label'],
              children: [],
              list: { sort: ['-label'], limit: 3, offset: 0, count: false, cursor: 'abc' },
            },
            { key: 'profile', path: 'author.profile', relation: 'profile', fields: ['bio'], children: [] },
          ],
        },
      ],
    },
  },
  {
    name: 'a to-one object held by a key column of the composite primary key',
    request: { fields: 'reviews(stars,book(title))' },
    expected: {
      fields: [],
      selections: [
        {
          key: 'reviews',
          path: 'reviews',
          relation: 'reviews',
          fields: ['stars', 'book*'],
          children: [{ key: 'book', path: 'reviews.book', relation: 'book', fields: ['title'], children: [] }],
          list: { sort: ['-stars'], limit: 5, offset: 0, count: false },
        },
      ],
    },
  },
  {
    name: 'a relation exposed under another property: its key property is selected',
    request: { fields: 'writer(name)' },
    expected: {
      fields: ['writer=coAuthor*'],
      selections: [{ key: 'writer', path: 'writer', relation: 'writer', fields: ['name'], children: [] }],
    },
  },
  {
    name: 'a nested filter resolves against the target policy, through its to-one relations',
    request: { fields: 'reviews(stars)', nested: { 'reviews.filter': "stars gte 4 and book/title eq 'B1'" } },
    expected: {
      fields: [],
      selections: [
        {
          key: 'reviews',
          path: 'reviews',
          relation: 'reviews',
          fields: ['stars'],
          children: [],
          list: { sort: ['-stars'], limit: 5, offset: 0, count: false, filter: 'and' },
        },
      ],
    },
  },
  {
    name: 'limit at the relation maxLimit, offset at maxOffset, depth at maxSelectionDepth',
    request: {
      fields: 'author(tags(id))',
      nested: { 'author.tags.limit': '5', 'author.tags.offset': '10' },
      options: { maxOffset: 10, maxSelectionDepth: 2 },
    },
    expected: {
      fields: ['author*'],
      selections: [
        {
          key: 'author',
          path: 'author',
          relation: 'author',
          fields: [],
          children: [
            {
              key: 'tags',
              path: 'author.tags',
              relation: 'tags',
              fields: ['id'],
              children: [],
              list: { sort: ['-label'], limit: 5, offset: 10, count: false },
            },
          ],
        },
      ],
    },
  },
];

/** code, parameter, position offset (undefined: none), and text the message contains. */
type Refusal = readonly [string, string, number | undefined, string];

const REFUSED: readonly { name: string; request: Request; error: Refusal }[] = [
  {
    name: 'a to-many relation without parentheses says how to select it',
    request: { fields: 'id,reviews' },
    error: ['field_not_selectable', 'fields', 3, 'reviews(…)'],
  },
  {
    name: 'a field with parentheses',
    request: { fields: 'title(id)' },
    error: ['invalid_relationship', 'fields', 0, "'title' is a field, not a relation"],
  },
  {
    name: 'the primary key with parentheses',
    request: { fields: 'id(id)' },
    error: ['invalid_relationship', 'fields', 0, 'not a relation'],
  },
  {
    name: 'an unknown relation, with a suggestion',
    request: { fields: 'id,autor(name)' },
    error: ['invalid_relationship', 'fields', 3, "unknown relationship 'autor'; did you mean 'author'?"],
  },
  {
    name: 'a relation exposed for filters only',
    request: { fields: 'author(mentor(name))' },
    error: ['field_not_selectable', 'fields', 7, "relation 'mentor' is not selectable"],
  },
  {
    name: 'a hidden field of the nested entity looks unknown',
    request: { fields: 'author(name,secret)' },
    error: ['unknown_field', 'fields', 12, "unknown field 'secret'"],
  },
  {
    name: 'a selectable(false) field of the nested policy',
    request: { fields: 'author(emailAddress)' },
    error: ['field_not_selectable', 'fields', 7, 'emailAddress'],
  },
  {
    name: 'nesting one level over maxSelectionDepth',
    request: { fields: 'author(tags(label))', options: { maxSelectionDepth: 1 } },
    error: ['limit_exceeded', 'fields', 7, 'more than 1 deep (maxSelectionDepth)'],
  },
  {
    name: 'a list parameter for a list fields does not select',
    request: { fields: 'id', nested: { 'reviews.limit': '3' } },
    error: ['invalid_parameter', 'reviews.limit', undefined, "fields selects no list 'reviews'"],
  },
  {
    name: 'a list parameter without fields',
    request: { nested: { 'reviews.sort': 'stars' } },
    error: ['invalid_parameter', 'reviews.sort', undefined, "fields selects no list 'reviews'"],
  },
  {
    name: 'a list parameter named by the relation when fields gave an alias',
    request: { fields: 'best:reviews(stars)', nested: { 'reviews.limit': '3' } },
    error: ['invalid_parameter', 'reviews.limit', undefined, "no list 'reviews'"],
  },
  {
    name: 'list parameters on a to-one relation',
    request: { fields: 'author(name)', nested: { 'author.sort': 'name' } },
    error: [
      'invalid_parameter',
      'author.sort',
      undefined,
      "'author' is a to-one relation: it takes no list parameters",
    ],
  },
  {
    name: 'limit one over the relation maxLimit',
    request: { fields: 'reviews(stars)', nested: { 'reviews.limit': '21' } },
    error: ['limit_exceeded', 'reviews.limit', undefined, 'reviews.limit must be at most 20'],
  },
  {
    name: 'offset one over the engine maxOffset',
    request: { fields: 'best:reviews(stars)', nested: { 'best.offset': '11' }, options: { maxOffset: 10 } },
    error: ['limit_exceeded', 'best.offset', undefined, 'best.offset must be at most 10'],
  },
  {
    name: 'count on a relation without allowCount',
    request: { fields: 'author(tags(label))', nested: { 'author.tags.count': 'true' } },
    error: ['invalid_parameter', 'author.tags.count', undefined, 'count is not enabled for author.tags'],
  },
  {
    name: 'a nested filter literal that does not fit',
    request: { fields: 'reviews(stars)', nested: { 'reviews.filter': "stars eq 'x'" } },
    error: ['invalid_literal', 'reviews.filter', 9, 'invalid literal'],
  },
  {
    name: 'a nested filter field the target policy does not expose',
    request: { fields: 'reviews(stars)', nested: { 'reviews.filter': 'strs eq 1' } },
    error: ['unknown_field', 'reviews.filter', 0, "did you mean 'stars'?"],
  },
  {
    name: 'a to-many path without any/all in a nested filter, under an alias',
    request: { fields: 'a:author(tags(label))', nested: { 'a.tags.filter': "label eq 'x' and authors/name eq 'y'" } },
    error: ['invalid_relationship', 'a.tags.filter', "label eq 'x' and ".length, 'authors/any(…)'],
  },
  {
    name: 'a nested sort key the target policy does not expose',
    request: { fields: 'reviews(stars)', nested: { 'reviews.sort': 'reviewer,-nope' } },
    error: ['unknown_field', 'reviews.sort', 10, "unknown field 'nope'"],
  },
  {
    name: 'an alias that would replace the primary key items carry',
    request: { fields: 'title,id:author(name)' },
    error: ['invalid_parameter', 'fields', 6, "item key 'id' is already taken"],
  },
];

eachDialect('resolveQuery: nested selections', { entities: relationEntities }, (test) => {
  for (const row of ACCEPTED)
    test(`accepts ${row.name}`, ({ db }) => {
      const resolved = resolveQuery(bookP.bind(db.orm), parsed(row.request), row.request.options);
      assert.equal(render(resolved), row.expected);
    });

  for (const row of REFUSED)
    test(`refuses ${row.name}`, ({ db }) => {
      let error: unknown;
      try {
        resolveQuery(bookP.bind(db.orm), parsed(row.request), row.request.options);
      } catch (e) {
        error = e;
      }
      if (!isListError(error)) throw new Error(`expected a ListError, got ${String(error)}`);
      const [code, parameter, offset, says] = row.error;
      assert.equal([error.code, error.parameter, error.position?.offset], [code, parameter, offset]);
      assert.ok(error.message.includes(says), error.message);
    });

  test('the relation default sort is the bound selection one; a written sort replaces it', ({ db }) => {
    const bound = bookP.bind(db.orm);
    const reviews = bound.relations.get('reviews')!;
    const defaulted = resolveQuery(bound, parsed({ fields: 'reviews(stars)' }));
    assert.is(defaulted.selections?.[0]?.list?.sort, reviews.selection?.defaultSort);
    const written = resolveQuery(bound, parsed({ fields: 'reviews(stars)', nested: { 'reviews.sort': 'stars' } }));
    assert.is.not(written.selections?.[0]?.list?.sort, reviews.selection?.defaultSort);
  });

  test('a nested filter resolves to the target fields (no root field of the same name)', ({ db }) => {
    const resolved = resolveQuery(
      bookP.bind(db.orm),
      parsed({ fields: 'reviews(stars)', nested: { 'reviews.filter': 'stars gte 4' } }),
    );
    const filter = resolved.selections?.[0]?.list?.filter as Extract<ResolvedFilter, { kind: 'compare' }>;
    assert.equal([filter.kind, filter.target.field.property, filter.value], ['compare', 'stars', 4]);
    assert.is(filter.target.field.prop.name, 'stars');
    assert.is(resolved.filter, undefined);
  });

  test('flat fields resolve as before, without selections', ({ db }) => {
    const resolved = resolveQuery(bookP.bind(db.orm), parsed({ fields: 'id,title,author' }));
    assert.equal(render(resolved), { fields: ['id', 'title', 'author'], selections: undefined });
  });
});
