/**
 * listql survives bundling: esbuild bundles a tiny app (test/fixtures/bundle-app.ts) with listql inside, with the
 * options of docs/bundling.md's API example (its shell recipes run in test/package/bundle-recipes.test.ts), and the bundle
 * runs from a temporary folder that holds no grammar.ohm and no listql sources. It must parse (the fast parser and the Ohm grammar, whose recipe ships inside the JavaScript) and
 * list a page. SQLite only: this is about module loading, which does not depend on the dialect; the externals
 * (MikroORM, kysely, the drivers) come from node_modules, as in a deployed app.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What a user marks external (docs/bundling.md): MikroORM, the kysely it shares with listql, and the drivers. */
const EXTERNAL = ['@mikro-orm/*', 'kysely', 'better-sqlite3', 'pg', 'mysql2'];
/** The recipes' banner: a `require` for the CommonJS packages inside an ES module bundle. */
const BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

test('a bundled app parses and lists from a folder without grammar.ohm', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'listql-bundle-'));
  try {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: ['test/fixtures/bundle-app.ts'],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: join(dir, 'app.mjs'),
      external: EXTERNAL,
      banner: { js: BANNER },
      // The app imports 'listql' by name; it resolves to this working tree's sources, so no build is needed first.
      alias: { listql: './src/index.ts' },
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    assert.ok(
      inputs.some((f) => f.includes('node_modules/ohm-js/')),
      'ohm-js is inside the bundle',
    );
    assert.ok(
      inputs.some((f) => f.endsWith('src/syntax/grammar-source.ts')),
      'the grammar is inside the bundle',
    );
    // The externals resolve from node_modules beside the app, as in a deployment; nothing else is there.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    assert.equal(readdirSync(dir).sort(), ['app.mjs', 'node_modules']);
    assert.not.ok(existsSync(join(dir, '..', 'grammar.ohm')));

    const run = spawnSync(process.execPath, ['app.mjs'], { cwd: dir, encoding: 'utf8' });
    assert.is(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout) as { parsed: string; invalid: unknown; items: unknown[] };
    assert.is(out.parsed, 'and');
    assert.equal(out.invalid, {
      code: 'invalid_syntax',
      message: 'unexpected end of input',
      parameter: 'filter',
      position: { offset: 8, line: 1, column: 9 },
    });
    assert.equal(out.items, [
      { id: 1, name: 'gear', price: 25 },
      { id: 3, name: 'gadget', price: 10 },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no module of the package reads a file or locates itself on disk', () => {
  // What made bundles fail: a module reading a file next to itself. Anything of the kind must not come back.
  const found: string[] = [];
  for (const entry of readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    const text = readFileSync(path, 'utf8');
    if (/from 'node:fs|import\.meta|createRequire|__dirname|\brequire\(/.test(text))
      found.push(path.slice(ROOT.length));
  }
  assert.equal(found, []);
});

test.run();
