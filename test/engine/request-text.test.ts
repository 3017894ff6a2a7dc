/**
 * The parse memo of engine requests (src/engine/request-text.ts): its key tells every two requests apart, a text is
 * remembered from its second sending, a refusal never is, and the memo stays bounded.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateConfig } from '../../src/engine/config.ts';
import { parseRequest } from '../../src/engine/request.ts';
import { isRemembered, requestText } from '../../src/engine/request-text.ts';
import { schema } from '../../src/policy/index.ts';

class Thing {
  id!: number;
}

const settings = () => validateConfig({ policy: schema(Thing).expose('id') } as never);

test('requests that differ in any name, value, absent value, order or form have different keys', () => {
  const inputs: [unknown, boolean][] = [
    ['filter=a', false],
    [{ filter: 'a' }, false],
    [{ filter: 'a' }, true],
    [{ filter: 'a', sort: undefined }, true],
    [{ sort: undefined, filter: 'a' }, true],
    [{ filter: ['a'] }, true],
    [{ filter: ['a', 'b'] }, true],
    [{ filter: ['a,1:b'] }, true],
    [{ 'filter=1:a': '' }, true],
    [{ filter: '1:a' }, true],
    [{ fi: 'lter=a' }, true],
  ];
  const keys = inputs.map(([query, objectForm]) => requestText(query, objectForm));
  assert.ok(keys.every((k) => k !== undefined));
  assert.is(new Set(keys).size, keys.length, keys.join('\n'));
  assert.is(requestText({ fields: ['id', { author: ['name'] }] }, true), undefined, 'a fields array is not keyed');
  assert.is(requestText({ limit: 20 }, true), undefined, 'a number is not keyed');
  assert.is(requestText('x'.repeat(5000), false), undefined, 'a long request is not kept');
});

test('the same text gets the same ParsedQuery from its second sending on', () => {
  const s = settings();
  const query = () => ({ filter: 'id gt 1', sort: '-id' });
  const first = parseRequest(query(), s);
  assert.not.ok(isRemembered(first));
  const second = parseRequest(query(), s);
  assert.ok(isRemembered(second));
  assert.is.not(second, first);
  assert.equal(second, first);
  assert.is(parseRequest(query(), s), second);
  assert.is(parseRequest(query(), settings()) === second, false, 'another engine has its own memo');
});

test('a refused request is refused at every sending', () => {
  const s = settings();
  for (let i = 0; i < 3; i++)
    assert.throws(
      () => parseRequest({ filter: 'id gt' }, s),
      (err: unknown) => (err as { code?: string }).code === 'invalid_syntax',
    );
});

test('the memo is bounded: an old text is parsed anew after many others', () => {
  const s = settings();
  const send = (i: number) => parseRequest(`filter=id%20gt%20${i}`, s);
  send(0);
  const kept = send(0);
  assert.is(send(0), kept);
  for (let i = 1; i <= 2000; i++) {
    send(i);
    send(i);
  }
  assert.is.not(send(0), kept, 'forgotten after 2,000 other remembered texts');
});

test.run();
