import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ListError } from '../../src/errors.ts';
import { DEFAULT_LIMITS } from '../../src/limits.ts';
import { cachedFilter, cacheFilter, filterKey } from '../../src/syntax/cache.ts';
import { parseFilter } from '../../src/syntax/index.ts';

test('the same filter under the same limits is kept from its second parse, and shared', () => {
  const text = "name eq 'cached' and stock gt 1";
  const key = filterKey(text, DEFAULT_LIMITS);
  const first = parseFilter(text);
  assert.is(cachedFilter(key), undefined, 'a filter parsed once is not kept');
  const second = parseFilter(text);
  assert.is.not(second, first, 'parsed again');
  assert.equal(second, first, 'into the same AST');
  assert.is(cachedFilter(key), second, 'kept from its second parse');
  assert.is(parseFilter(text), second);
  assert.is(parseFilter(text, { ...DEFAULT_LIMITS }), second, 'equal limits in a new object still hit');
});

test('filters sent once each are never kept, however many', () => {
  for (let i = 0; i < 3000; i++) parseFilter(`stock gt ${i} and name eq 'once ${i}'`);
  for (let i = 0; i < 3000; i++)
    assert.is(cachedFilter(filterKey(`stock gt ${i} and name eq 'once ${i}'`, DEFAULT_LIMITS)), undefined);
});

test('a filter accepted under loose limits is still rejected under strict ones', () => {
  const text = "name eq 'strict' and stock gt 1";
  parseFilter(text);
  try {
    parseFilter(text, { ...DEFAULT_LIMITS, maxNodes: 2 });
    assert.unreachable('should have thrown');
  } catch (err) {
    assert.instance(err, ListError);
    assert.is((err as ListError).code, 'limit_exceeded');
  }
});

test('rejected filters are not cached: each call reports its own error', () => {
  for (let i = 0; i < 2; i++) {
    assert.throws(
      () => parseFilter('age gt(18)'),
      (err: unknown) => (err as ListError).code === 'invalid_syntax' && (err as ListError).position?.offset === 6,
    );
  }
});

test('the parse cache is bounded and forgets the least recently used filter first', () => {
  const kept = filterKey("name eq 'kept'", DEFAULT_LIMITS);
  parseFilter("name eq 'kept'");
  const node = parseFilter("name eq 'kept'");
  const first = filterKey('stock gt 0', DEFAULT_LIMITS);
  // Each key twice: a filter is kept from its second parse.
  const keep = (key: string) => {
    cacheFilter(key, node);
    cacheFilter(key, node);
  };
  keep(first);
  for (let i = 1; i <= 1000; i++) {
    keep(filterKey(`stock gt ${i}`, DEFAULT_LIMITS));
    assert.is(cachedFilter(kept), node, 'a filter in use stays');
  }
  assert.is(cachedFilter(first), undefined, 'a filter not used since is forgotten');
});

test.run();
