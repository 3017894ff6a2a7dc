/**
 * `relation(name, policy, selectable(…))` and `{ select }`: what the declaration records (pure data, no database),
 * and what the types accept.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Policy, schema, selectable } from '../../src/policy/index.ts';
import type { ExposedRelation } from '../../src/policy/schema.ts';
import { Author, Book, Review } from '../fixtures/relations.ts';

const authorPolicy = schema(Author).expose('name');
const reviewPolicy = schema(Review).expose('stars');

const lastRelation = (p: Policy<Book>): ExposedRelation => p.entries[p.entries.length - 1] as ExposedRelation;

const DECLARED: readonly [string, (p: Policy<Book>) => Policy<Book>, Partial<ExposedRelation>][] = [
  ['no third argument: not selectable', (p) => p.relation('author', authorPolicy), {}],
  ['selectable(): the defaults', (p) => p.relation('author', authorPolicy, selectable()), { select: {} }],
  ['selectable(true)', (p) => p.relation('author', authorPolicy, selectable(true)), { select: {} }],
  ['selectable(false): not selectable', (p) => p.relation('author', authorPolicy, selectable(false)), {}],
  [
    'selectable({ … }): the list options as written',
    (p) => p.relation('reviews', reviewPolicy, selectable({ maxLimit: 20, defaultSort: '-stars', allowCount: true })),
    { select: { maxLimit: 20, defaultSort: '-stars', allowCount: true } },
  ],
  ['{ select: true }', (p) => p.relation('author', authorPolicy, { select: true }), { select: {} }],
  ['{ select: false }', (p) => p.relation('author', authorPolicy, { select: false }), {}],
  [
    '{ select: { … }, nullCheck }',
    (p) => p.relation('author', authorPolicy, { select: { defaultLimit: 3 }, nullCheck: true }),
    { select: { defaultLimit: 3 }, nullCheck: true },
  ],
  [
    '{ property, select }',
    (p) => p.relation('editor', authorPolicy, { property: 'coAuthor', select: true }),
    { property: 'coAuthor', select: {} },
  ],
];

for (const [name, declare, expected] of DECLARED)
  test(`relation(): ${name}`, () => {
    const entry = lastRelation(declare(schema(Book).expose('id')));
    const { kind: _kind, publicName: _name, nested: _nested, ...rest } = entry;
    assert.equal(rest, expected);
    assert.ok(Object.isFrozen(entry));
    if (entry.select) assert.ok(Object.isFrozen(entry.select));
  });

test('selectable(): the field option is unchanged; with options it is the relation kind, frozen', () => {
  assert.equal(selectable(), { kind: 'selectable', enabled: true });
  assert.equal(selectable(false), { kind: 'selectable', enabled: false });
  const options = { maxLimit: 3 };
  const relation = selectable(options);
  assert.equal(relation, { kind: 'selectableRelation', select: { maxLimit: 3 } });
  assert.ok(Object.isFrozen(relation) && Object.isFrozen(relation.select));
  // A copy: changing the object given afterwards changes nothing declared.
  (options as { maxLimit: number }).maxLimit = 9;
  assert.is(relation.select.maxLimit, 3);
});

test('types: list options are for relations; the property override keeps its type check', () => {
  const ok = schema(Book)
    .expose('title', selectable())
    .relation('reviews', reviewPolicy, selectable({ maxLimit: 5 }))
    .relation('writer', authorPolicy, { property: 'coAuthor', select: { allowCount: false } });
  assert.is(ok.entries.length, 3);
  // @ts-expect-error expose() takes the field option only, not a relation's list options
  schema(Book).expose('title', selectable({ maxLimit: 5 }));
  // @ts-expect-error a list option of the wrong type
  schema(Book).relation('reviews', reviewPolicy, selectable({ maxLimit: '5' }));
  // @ts-expect-error the property override must name a relation of Book
  schema(Book).relation('editor', authorPolicy, { property: 'title', select: true });
});
test.run();
