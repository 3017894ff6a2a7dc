/**
 * `npm run build`: the published dist/. Type declarations come from tsc (one .d.ts per source file, as the exports
 * map names them); the JavaScript is bundled by esbuild, one entry per subpath export, with the code they share in
 * common chunks (so `listql` and `listql/express` hold one copy of ListError). A few files load much faster than a
 * hundred: `import('listql')` is mostly Node resolving and compiling modules (see docs/performance.md, Cold start).
 *
 * Bundled in: listql's own code, ohm-js and superstruct (small, and not shared with the application).
 * Left as imports: MikroORM, kysely (shared with MikroORM), the database drivers and every framework.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
  exports: Record<string, string | { default?: string }>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

/** `listql/client` runs in browsers: built on its own (no shared chunk), for browsers, importing nothing. */
const CLIENT_ENTRY = 'src/client/index.ts';

/** Packages bundled into dist/ rather than imported at run time. */
const BUNDLED = new Set(['ohm-js', 'superstruct']);

/** The source file of each subpath export: `./dist/http/express.js` comes from `src/http/express.ts`. */
function entryPoints(): string[] {
  return Object.values(pkg.exports)
    .map((target) => (typeof target === 'string' ? target : target.default))
    .filter((target): target is string => typeof target === 'string' && target.startsWith('./dist/'))
    .map((target) => target.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
}

const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]
  .filter((name) => !BUNDLED.has(name))
  .flatMap((name) => [name, `${name}/*`]);

execFileSync(process.execPath, ['scripts/gen-grammar.ts'], { cwd: ROOT, stdio: 'inherit' });
rmSync(`${ROOT}dist`, { recursive: true, force: true });
execFileSync(
  process.execPath,
  ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--emitDeclarationOnly'],
  {
    cwd: ROOT,
    stdio: 'inherit',
  },
);
await build({
  absWorkingDir: ROOT,
  entryPoints: entryPoints().filter((entry) => entry !== CLIENT_ENTRY),
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external,
  chunkNames: 'chunks/[name]-[hash]',
  legalComments: 'eof',
  sourcemap: false,
  logLevel: 'warning',
});
await build({
  absWorkingDir: ROOT,
  entryPoints: [CLIENT_ENTRY],
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  legalComments: 'eof',
  sourcemap: false,
  logLevel: 'warning',
});
