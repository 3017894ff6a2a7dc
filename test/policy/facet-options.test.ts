/**
 * `facetable()` and `relation(…, { facet })`: what the declaration records (pure data), and what bind() accepts and
 * refuses (`invalid_schema` naming Entity.property and the reason), on every dialect.
 */
import * as assert from 'uvu/assert';
import { isListError } from '../../src/errors.ts';
import { facetable, filterable, schema } from '../../src/policy/index.ts';
import type { ExposedRelation } from '../../src/policy/schema.ts';
import { Author, Book, libraryEntities, Publisher, Tag } from '../fixtures/library.ts';
import { eachDialect } from '../helpers/db.ts';

const authorP = schema(Author).expose('id').expose('name', filterable());
const lastRelation = (p: { entries: readonly unknown[] }) => p.entries[p.entries.length - 1] as ExposedRelation;

eachDialect('facet options', { entities: libraryEntities }, (test) => {
  test('the declarations: facetable() is a field option; facet: true and { label } are recorded, frozen', () => {
    assert.equal(facetable(), { kind: 'facetable' });
    assert.equal(lastRelation(schema(Book).relation('author', authorP, { facet: true })).facet, {});
    const labelled = lastRelation(schema(Book).relation('author', authorP, { facet: { label: 'name' }, select: true }));
    assert.equal(labelled.facet, { label: 'name' });
    assert.equal(labelled.select, {});
    assert.ok(Object.isFrozen(labelled.facet));
    assert.is(lastRelation(schema(Book).relation('author', authorP, { facet: false })).facet, undefined);
  });

  test('bind: facet settings resolve against the nested policy', ({ em }) => {
    const bound = schema(Book)
      .expose('title', facetable())
      .expose('price')
      .relation('author', authorP, { facet: { label: 'name' } })
      .relation('tags', schema(Tag).expose('label'), { facet: true })
      .bind(em);
    assert.is(bound.fields.get('title')?.facetable, true);
    assert.is(bound.fields.get('price')?.facetable, undefined);
    const author = bound.relations.get('author')?.facet;
    assert.equal([author?.keyColumn, author?.keyProperty, author?.label?.publicName], ['id', 'id', 'name']);
    assert.equal(bound.relations.get('tags')?.facet, { keyColumn: 'id', keyProperty: 'id' });
  });

  const REFUSED: readonly (readonly [string, () => unknown, RegExp])[] = [
    [
      'a label the nested policy does not expose',
      () => schema(Book).relation('author', schema(Author).expose('id'), { facet: { label: 'name' } }),
      /Book\.author: facet label 'name' is not a field the nested policy of Author exposes/,
    ],
    [
      'a target with a composite key',
      () => schema(Book).relation('publisher', schema(Publisher).expose('name'), { facet: true }),
      /Book\.publisher: a facet counts related rows by their key, and Publisher has no primary key of one scalar column/,
    ],
    [
      'an unknown facet option',
      () => schema(Book).relation('author', authorP, { facet: { lable: 'name' } as never }),
      /Book\.author: unknown facet option 'lable' \(known: label\)/,
    ],
  ];
  for (const [name, policy, message] of REFUSED)
    test(`bind refuses ${name}`, ({ em }) => {
      try {
        (policy() as { bind(em: unknown): unknown }).bind(em);
        assert.unreachable('bound');
      } catch (err) {
        if (!isListError(err)) throw err;
        assert.is(err.code, 'invalid_schema');
        assert.match(err.message, message);
      }
    });
});
