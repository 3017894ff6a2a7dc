/**
 * The Policy builder: immutable, frozen, lazy about thunks, and typed so that `expose` autocompletes property
 * names. Pure data: no database is involved until bind() (see bind.test.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { filterable, type Policy, schema, sortable } from '../../src/policy/index.ts';
import type { ExposedField, ExposedRelation } from '../../src/policy/schema.ts';
import { Product, ProductSchema } from '../fixtures/catalog.ts';
import { Author, Book, Note, type NoteEntity } from '../fixtures/relations.ts';

const authorPolicy = schema(Author).expose('name');

const STEPS: readonly [string, (p: Policy<Book>) => Policy<Book>][] = [
  ['expose', (p) => p.expose('title', filterable(), sortable())],
  ['expose without options', (p) => p.expose('price')],
  ['relation', (p) => p.relation('author', authorPolicy)],
  ['relation with a thunk and an override', (p) => p.relation('writer', () => authorPolicy, { property: 'coAuthor' })],
];

for (const [name, step] of STEPS) {
  test(`${name} returns a new frozen policy and leaves the old one unchanged`, () => {
    const before = schema(Book).expose('id');
    const entriesBefore = before.entries;
    const after = step(before);
    assert.is.not(after, before);
    assert.ok(Object.isFrozen(after) && Object.isFrozen(after.entries));
    assert.ok(after.entries.every((e) => Object.isFrozen(e)));
    assert.is(before.entries, entriesBefore);
    assert.is(before.entries.length, 1);
    assert.is(after.entries.length, 2);
    assert.is(after.entity, before.entity);
    assert.throws(() => {
      (after.entries as unknown[]).push({});
    });
  });
}

test('a frozen policy cannot be modified in place', () => {
  const p = schema(Book).expose('title');
  assert.throws(() => {
    (p as { entries: unknown }).entries = [];
  });
});

const OPTIONS: readonly [string, unknown, unknown][] = [
  ['filterable() means the type defaults', filterable(), { kind: 'filterable' }],
  [
    'filterable(ops) lists exactly those',
    filterable('eq', 'in', 'null'),
    { kind: 'filterable', operators: ['eq', 'in', 'null'] },
  ],
  ['sortable()', sortable(), { kind: 'sortable' }],
];
for (const [name, option, expected] of OPTIONS) {
  test(`option: ${name}`, () => {
    assert.equal(option, expected);
    assert.ok(Object.isFrozen(option));
  });
}

test('expose records the public name and options in order', () => {
  const p = schema(Product).expose('code', filterable('eq'), sortable()).expose('name');
  const [code, name] = p.entries as ExposedField[];
  assert.equal(code, { kind: 'field', publicName: 'code', options: [filterable('eq'), sortable()] });
  assert.equal(name, { kind: 'field', publicName: 'name', options: [] });
  assert.ok(Object.isFrozen(code?.options));
});

test('relation records the nested policy, the override, and leaves thunks uncalled', () => {
  let calls = 0;
  const thunk = () => {
    calls++;
    return authorPolicy;
  };
  const p = schema(Book).relation('author', authorPolicy).relation('writer', thunk, { property: 'coAuthor' });
  const [author, writer] = p.entries as ExposedRelation[];
  assert.equal(author, { kind: 'relation', publicName: 'author', nested: authorPolicy });
  assert.is(writer?.nested, thunk);
  assert.is(writer?.property, 'coAuthor');
  assert.is(calls, 0);
});

test('schema() accepts a class, an EntitySchema and a defineEntity result', () => {
  assert.is(schema(Product).entity, Product);
  assert.is(schema(ProductSchema).entity, ProductSchema);
  assert.is(schema(Note).entity, Note);
});

test('types: expose takes public names; declared serialized names replace property names', () => {
  // Compile-time check (npm run typecheck); the type fixtures in test/types prove each rejection.
  type ExposeName = Parameters<Policy<Product>['expose']>[0];
  const propertyName: ExposeName = 'createdAt';
  const serializedName: ExposeName = 'code';
  // @ts-expect-error Product declares `sku` serialized as `code`
  const replaced: ExposeName = 'sku';
  const fromSchema: Policy<Product> = schema(ProductSchema).expose('releasedOn', filterable('eq'));
  const fromDefineEntity = schema(Note).expose('text');
  const withPublicNames = schema<NoteEntity>(Note).expose('body');
  assert.equal([propertyName, serializedName, replaced], ['createdAt', 'code', 'sku']);
  assert.is(fromSchema.entries.length, 1);
  assert.equal([fromDefineEntity.entries[0]?.publicName, withPublicNames.entries[0]?.publicName], ['text', 'body']);
});

test.run();
