/**
 * `listql/client` stays small and self-contained in a browser bundle: esbuild's minified bundle of its entry, gzip
 * compressed, is at most 5 kB, and holds no file of listql outside src/client/ (what it takes from the rest is types,
 * imported with `import type`). `npm run bench` prints the same figures.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CLIENT_GZIP_TARGET, clientSize } from '../../bench/client-size.ts';

test('the client bundle is at most 5 kB gzip and holds src/client/ only', async () => {
  const { gzip, minified, inputs } = await clientSize();
  assert.ok(gzip <= CLIENT_GZIP_TARGET, `${gzip} bytes gzip`);
  assert.ok(minified > 1000, 'the bundle is the client itself');
  assert.equal(
    inputs.filter((f) => !f.startsWith('src/client/')),
    [],
  );
  assert.ok(inputs.includes('src/client/fetch.ts') && inputs.includes('src/client/filter.ts'));
});

test.run();
