/**
 * The size of `listql/client` in a browser bundle: its entry bundled by esbuild as an application's bundler would
 * (ESM for browsers, minified, everything it imports included), then gzip-compressed at level 9. The target is 5 kB
 * gzip; the bundle must hold nothing of listql outside src/client/ (its imports of the rest are types only).
 */

import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The gzip size the client stays under. */
export const CLIENT_GZIP_TARGET = 5 * 1024;

/** Bundle, minify and gzip the client entry; its sizes in bytes and the files it holds. */
export async function clientSize(): Promise<{ minified: number; gzip: number; inputs: string[] }> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ['src/client/index.ts'],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  return {
    minified: code.byteLength,
    gzip: gzipSync(code, { level: 9 }).byteLength,
    inputs: Object.keys(result.metafile.inputs),
  };
}

/** The bench section: the sizes, against the target, and whether anything outside src/client/ got in. */
export async function benchClientSize(): Promise<string[]> {
  const { minified, gzip, inputs } = await clientSize();
  const outside = inputs.filter((f) => !f.startsWith('src/client/'));
  return [
    `listql/client: ${minified.toLocaleString('en-US')} bytes minified, ${gzip.toLocaleString('en-US')} bytes gzip ` +
      `(target ≤ ${CLIENT_GZIP_TARGET.toLocaleString('en-US')}: ${gzip <= CLIENT_GZIP_TARGET ? 'met' : 'MISSED'})`,
    `files bundled: ${inputs.length}, ${outside.length === 0 ? 'all from src/client/' : `OUTSIDE src/client/: ${outside.join(', ')}`}`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) for (const line of await benchClientSize()) console.log(line);
