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
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type OutputFile, type Plugin, transformSync } from 'esbuild';

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

/**
 * ohm-js builds its own grammars and Unicode tables when it loads: most of what `import('listql')` cost once the
 * code was bundled, for a library that valid filters never touch. src/syntax/ohm-module.ts is the one place that
 * imports it; here that file becomes a `require('ohm-js')` inside its function, which esbuild bundles as ohm-js's
 * CommonJS build wrapped in a function that runs on its first call: the first invalid filter (or aggregate sort).
 * Still synchronous, and the published files load nothing at run time that a bundler could miss.
 */
const lazyOhm: Plugin = {
  name: 'lazy-ohm',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]syntax[\\/]ohm-module\.ts$/ }, ({ path }) => {
      const source = readFileSync(path, 'utf8');
      // Replace only the file this was written for: a changed ohm-module.ts must be looked at again here.
      if (!source.includes("import * as ohm from 'ohm-js';") || !source.includes('export function ohmModule()'))
        throw new Error(`${path} no longer has the shape the lazy-ohm build step replaces`);
      return { contents: "export function ohmModule() { return require('ohm-js'); }", loader: 'js' };
    });
  },
};

/**
 * ohm-js's CommonJS build, minified as it is bundled in: it is third-party code nobody steps through in listql's
 * dist/, and V8 scans every function of a file when it compiles it, called or not. Minified, its 190 KB become about
 * 95 KB, and `import('listql')` about 1.7 ms shorter on the 2-core bench machine (docs/performance.md, Cold start).
 */
const minifiedOhm: Plugin = {
  name: 'minified-ohm',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]ohm-js[\\/]dist[\\/]ohm\.cjs$/ }, ({ path }) => ({
      contents: transformSync(readFileSync(path, 'utf8'), { loader: 'js', minify: true, legalComments: 'inline' }).code,
      loader: 'js',
    }));
  },
};

/** Node's modules whose ES namespace costs more at import than listql uses of them at once (see lazyBuiltins). */
const LAZY_BUILTINS = /^node:(crypto|util)$/;

/**
 * Importing a Node module by name from an ES module builds its namespace, which reads every export: for `node:util`
 * that loads streams, worker_threads and more behind its lazy getters, and `node:crypto` loads all of crypto, WebCrypto
 * included. Together that was about a third of `import('listql')` once ohm-js was deferred, for functions used only
 * when a cursor is sealed or a writer is checked. Here each import of those modules becomes a forwarder per function
 * that takes the module from `process.getBuiltinModule` on its first call. Only functions are forwarded: importing
 * anything else from them (a class, a constant) fails the build, so a new use has to be looked at here first.
 * (Where a driver loads node:crypto anyway, as pg and mysql2 do, that half of the saving goes to the driver.)
 */
const lazyBuiltins: Plugin = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: LAZY_BUILTINS }, ({ path }) => ({ path, namespace: 'lazy-builtin' }));
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, async ({ path }) => {
      const mod = (await import(path)) as Record<string, unknown>;
      const functions = Object.keys(mod).filter((name) => /^[a-z]\w*$/.test(name) && typeof mod[name] === 'function');
      const lines = [`let loaded; const load = () => (loaded ??= process.getBuiltinModule(${JSON.stringify(path)}));`];
      for (const name of functions) lines.push(`export function ${name}(...args) { return load().${name}(...args); }`);
      return { contents: lines.join('\n'), loader: 'js' };
    });
  },
};

/** Plain-ASCII spellings of the characters listql's comments use most; any other becomes a `\\uXXXX` spelling. */
const ASCII_SPELLING: Record<string, string> = {
  '≤': '<=',
  '≥': '>=',
  '≠': '!=',
  '→': '->',
  '←': '<-',
  '⇒': '=>',
  '×': 'x',
  '÷': '/',
  '–': '-',
  '—': '--',
  '…': '...',
  µ: 'u',
  '‘': "'",
  '’': "'",
  '“': '"',
  '”': '"',
  '⋅': '.',
  '±': '+-',
  '✓': 'ok',
  '✗': 'x',
};

/**
 * Write a bundled file as plain ASCII. esbuild already escapes every non-ASCII character of strings, templates and
 * regular expressions, but copies comments as written, and one `≤` in a comment makes the whole file UTF-8 text that
 * Node decodes into a two-byte string for V8: 6 ms of a 37 ms `import('listql')` on the 2-core bench machine went to
 * decoding and scanning the wider text (docs/performance.md, Cold start). Such characters can only be in comments
 * here, and the check below proves it: with comments stripped, the file is the same before and after.
 */
function writeAscii(file: OutputFile): void {
  const text = file.text;
  const ascii = text.replace(/[^\x00-\x7f]/gu, (c) => {
    const spelled = ASCII_SPELLING[c];
    if (spelled !== undefined) return spelled;
    return [...c].map((u) => `\\u${u.codePointAt(0)!.toString(16).padStart(4, '0')}`).join('');
  });
  if (ascii !== text && file.path.endsWith('.js')) {
    const code = (source: string) =>
      transformSync(source, { loader: 'js', minifyWhitespace: true, legalComments: 'none' }).code;
    if (code(ascii) !== code(text)) throw new Error(`${file.path}: a non-ASCII character outside a comment`);
  }
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, ascii);
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
const server = await build({
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
  // superstruct has no exports map, and for Node esbuild would take its `main` (CommonJS): the whole library then
  // runs at import and its namespace is copied property by property. Its `module` (ESM) build lets esbuild keep
  // only the structs listql uses.
  mainFields: ['module', 'main'],
  plugins: [lazyBuiltins, lazyOhm, minifiedOhm],
  legalComments: 'eof',
  sourcemap: false,
  logLevel: 'warning',
  write: false,
});
// A namespace import (`import * as crypto from 'node:crypto'`) reading a member lazyBuiltins does not forward is
// only a warning to esbuild, and that member would be undefined at run time: fail instead.
const unforwarded = server.warnings.filter((w) => w.text.includes('lazy-builtin:'));
if (unforwarded.length > 0) throw new Error(unforwarded.map((w) => w.text).join('\n'));
for (const file of server.outputFiles) writeAscii(file);
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
