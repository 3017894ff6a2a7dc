import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ListError } from '../../src/errors.ts';
import { DEFAULT_LIMITS } from '../../src/limits.ts';
import { cachedFilter, cacheFilter, filterKey } from '../../src/syntax/cache.ts';
import { parseFilter } from '../../src/syntax/index.ts';

test('the same filter under the same limits is parsed once and shared', () => {
  const text = "name eq 'cached' and stock gt 1";
  const first = parseFilter(text);
  assert.is(parseFilter(text), first);
  assert.is(parseFilter(text, { ...DEFAULT_LIMITS }), first, 'equal limits in a new object still hit');
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
  const node = parseFilter("name eq 'kept'");
  const first = filterKey('stock gt 0', DEFAULT_LIMITS);
  cacheFilter(first, node);
  for (let i = 1; i <= 1000; i++) {
    cacheFilter(filterKey(`stock gt ${i}`, DEFAULT_LIMITS), node);
    assert.is(cachedFilter(kept), node, 'a filter in use stays');
  }
  assert.is(cachedFilter(first), undefined, 'a filter not used since is forgotten');
});

test.run();
