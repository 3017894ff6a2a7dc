/**
 * The object form of `fields` (fieldsObjectText): each array or object written in code becomes the REST text the one
 * parser of fields reads, and what the text cannot say is refused at its place in that text. No database: nothing
 * varies by dialect (test/engine/fields-object.test.ts runs the object form against the text form on each).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isListError } from '../../src/errors.ts';
import { fieldsObjectText, withFieldsText } from '../../src/syntax/fields-object.ts';

const WRITTEN: readonly [unknown, string][] = [
  [['id'], 'id'],
  [['id', 'title', 'price'], 'id,title,price'],
  [['title', { author: ['name'] }], 'title,author(name)'],
  [[{ author: ['name'], reviews: ['stars', 'body'] }], 'author(name),reviews(stars,body)'],
  [[{ author: ['name'] }, { reviews: ['stars'] }, 'id'], 'author(name),reviews(stars),id'],
  [[{ best: { reviews: ['stars'] } }, { worst: { reviews: ['stars'] } }], 'best:reviews(stars),worst:reviews(stars)'],
  [
    [{ reviews: ['stars', { reviewer: ['name', { profile: ['bio'] }] }] }],
    'reviews(stars,reviewer(name,profile(bio)))',
  ],
  [[{ author: ['name'], top: { reviews: ['stars'] } }], 'author(name),top:reviews(stars)'],
  [['_id', 'a1_b'], '_id,a1_b'],
  // What the text refuses is left for the parser to refuse, at its own position: an empty list, a key twice.
  [[{ author: [] }], 'author()'],
  [['id', 'id'], 'id,id'],
  [[], ''],
];

for (const [fields, text] of WRITTEN) {
  test(`fields ${JSON.stringify(fields)} is written ${JSON.stringify(text)}`, () => {
    assert.is(fieldsObjectText(fields as never), text);
  });
}

const REFUSED: readonly { fields: unknown; offset: number; message: RegExp }[] = [
  { fields: ['id,title'], offset: 0, message: /'id,title' is not a name/ },
  { fields: ['id', 'author(name)'], offset: 3, message: /'author\(name\)' is not a name/ },
  { fields: ['id', ''], offset: 3, message: /'' is not a name/ },
  { fields: ['1st'], offset: 0, message: /not a name/ },
  { fields: ['naïve'], offset: 0, message: /not a name/ },
  { fields: [{ 'a b': ['x'] }], offset: 0, message: /'a b' is not a name/ },
  { fields: [{ best: { 're views': ['x'] } }], offset: 5, message: /'re views' is not a name/ },
  { fields: ['id', 7], offset: 3, message: /a name or an object of nested selections/ },
  { fields: ['id', null], offset: 3, message: /a name or an object/ },
  { fields: ['id', ['title']], offset: 3, message: /a name or an object/ },
  { fields: ['id', {}], offset: 3, message: /names at least one relation/ },
  {
    fields: [{ author: 'name' }],
    offset: 0,
    message: /value of 'author' in fields is a list of names, or one relation/,
  },
  { fields: [{ best: { reviews: ['x'], more: ['y'] } }], offset: 0, message: /one relation with its list/ },
  { fields: [{ best: {} }], offset: 0, message: /one relation with its list/ },
  { fields: [{ best: { reviews: 'stars' } }], offset: 5, message: /value of 'reviews' in fields is a list of names/ },
  { fields: ['id', { author: ['name', { publisher: [3] }] }], offset: 25, message: /a name or an object/ },
];

for (const { fields, offset, message } of REFUSED) {
  test(`fields ${JSON.stringify(fields)} is refused at ${offset}`, () => {
    try {
      const text = fieldsObjectText(fields as never);
      assert.unreachable(`written as ${text}`);
    } catch (error) {
      if (!isListError(error)) throw error;
      assert.equal([error.code, error.parameter, error.position?.offset], ['invalid_parameter', 'fields', offset]);
      assert.match(error.message, message);
    }
  });
}

test('a class instance is not an object of nested selections', () => {
  class Pick {
    author = ['name'];
  }
  assert.throws(() => fieldsObjectText([new Pick() as never]), /a name or an object of nested selections/);
  assert.is(fieldsObjectText([Object.assign(Object.create(null), { author: ['name'] })]), 'author(name)');
});

test('the text stops growing at maxLength: a cyclic object ends with limit_exceeded', () => {
  const cyclic: { a: unknown[] } = { a: [] };
  cyclic.a.push(cyclic);
  try {
    fieldsObjectText([cyclic as never], 1000);
    assert.unreachable();
  } catch (error) {
    if (!isListError(error)) throw error;
    assert.equal([error.code, error.parameter], ['limit_exceeded', 'fields']);
    assert.match(error.message, /longer than 1000 bytes/);
  }
  assert.is(fieldsObjectText(['abc', 'de'], 6), 'abc,de');
  assert.throws(() => fieldsObjectText(['abc', 'def'], 6), /longer than 6 bytes/);
});

test('no recursion: an object nested 100 000 deep is written without exhausting the stack', () => {
  let deep: unknown[] = ['x'];
  for (let i = 0; i < 100_000; i++) deep = [{ a: deep }];
  const text = fieldsObjectText(deep as never);
  assert.ok(text === `${'a('.repeat(100_000)}x${')'.repeat(100_000)}`);
});

test('withFieldsText writes an array of fields and leaves everything else as it is', () => {
  const values = { fields: ['id', { author: ['name'] }], limit: '5', 'author.sort': 'name' };
  assert.equal(withFieldsText(values, 100), { fields: 'id,author(name)', limit: '5', 'author.sort': 'name' });
  const text = { fields: 'id', limit: '5' };
  assert.is(withFieldsText(text, 100), text);
  const none = { limit: '5' };
  assert.is(withFieldsText(none, 100), none);
});

test.run();
