/**
 * The bundling recipes of docs/bundling.md work as written: this test reads each recipe's commands from the page
 * and runs them, unchanged, in a scratch app (test/fixtures/bundle-recipe-apps.ts) under a temporary folder: a
 * plain `node:http` app, Express and Fastify with the first recipe, a NestJS app (tsc, then esbuild) with the
 * second. Each bundle then starts on 127.0.0.1 and must answer a page of an in-memory SQLite database, and a
 * rejected filter's 400. SQLite only: this is about module loading, which does not depend on the dialect.
 *
 * listql is this tree's dist/ when it is fresher than its sources (CI builds before it tests), else a build of the
 * tree into the temporary folder (built-package.ts); the scratch apps' node_modules links to this project's, so the
 * test is offline.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type AppFiles, RECIPE_APPS } from '../fixtures/bundle-recipe-apps.ts';
import { builtPackage, ROOT } from './built-package.ts';

/** The headings of docs/bundling.md whose first `sh` block is a recipe. */
const ESM_RECIPE = 'A plain Node app, Express or Fastify';
const NEST_RECIPE = 'NestJS';

/** The first ```sh block under the `### <heading>` of docs/bundling.md. */
function recipe(heading: string): string {
  const page = readFileSync(join(ROOT, 'docs', 'bundling.md'), 'utf8');
  const start = page.indexOf(`\n### ${heading}\n`);
  const block = start < 0 ? null : /```sh\n([\s\S]*?)```/.exec(page.slice(start));
  if (!block) throw new Error(`docs/bundling.md has no sh block under "### ${heading}"`);
  return block[1]!;
}

const base = mkdtempSync(join(tmpdir(), 'listql-recipes-'));
/** Node 24 first, so `npx` and the tools' `#!/usr/bin/env node` run on it, as under `npm test`. */
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };

/** A node_modules of this project's packages plus listql, which every scratch app links to. */
function preparePackages(): void {
  const modules = join(base, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(ROOT, 'node_modules')))
    if (name !== 'listql') symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  symlinkSync(builtPackage(base), join(modules, 'listql'), 'dir');
}

/** Write an app into its own folder beside the shared node_modules, run a recipe there, and return the bundle. */
function bundleApp(name: string, files: AppFiles, commands: string): string {
  const dir = join(base, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  symlinkSync(join(base, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const run = spawnSync('sh', ['-e', '-c', commands], { cwd: dir, env, encoding: 'utf8' });
  assert.is(run.status, 0, `the recipe failed in ${name}:\n${run.stdout}${run.stderr}`);
  const outfile = /--outfile=(\S+)/.exec(commands)?.[1];
  assert.ok(outfile && existsSync(join(dir, outfile)), `the recipe wrote no bundle in ${name}`);
  const bundle = join(dir, outfile);
  // listql is inside the bundle, not imported from node_modules at run time.
  assert.not.match(readFileSync(bundle, 'utf8'), /(from |import\(|require\()["']listql/);
  return bundle;
}

/** Start a bundle and resolve with its URL once it prints `listening on <url>`. */
function start(bundle: string, extra: NodeJS.ProcessEnv = {}): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [bundle], { cwd: dirname(bundle), env: { ...env, ...extra } });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail('did not start within 30 s'), 30_000);
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill();
      reject(new Error(`${bundle} ${why}:\n${output}`));
    };
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      const url = /listening on (\S+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ url, child });
      }
    });
    child.on('exit', (code) => fail(`exited with ${code}`));
  });
}

/** Serve a bundle, ask for a page and for a rejected filter, and stop it. */
async function servesPages(bundle: string, extra: NodeJS.ProcessEnv = {}): Promise<void> {
  const { url, child } = await start(bundle, extra);
  try {
    const page = await fetch(`${url}/gadgets?filter=${encodeURIComponent('price lt 30')}&sort=-price&limit=2`);
    assert.is(page.status, 200);
    const body = (await page.json()) as { items: unknown[]; page: { hasMore: boolean } };
    assert.equal(body.items, [
      { id: 1, name: 'gear', price: 25 },
      { id: 3, name: 'gadget', price: 10 },
    ]);
    assert.is(body.page.hasMore, true);
    // A rejected filter goes through the Ohm grammar, whose recipe travels inside the bundle.
    const bad = await fetch(`${url}/gadgets?filter=${encodeURIComponent('price gt')}`);
    assert.is(bad.status, 400);
    assert.equal(await bad.json(), {
      code: 'invalid_syntax',
      message: 'unexpected end of input',
      parameter: 'filter',
      position: { offset: 8, line: 1, column: 9 },
    });
  } finally {
    child.removeAllListeners('exit');
    child.kill();
  }
}

const recipes = suite('bundling recipes');
recipes.before(preparePackages);
recipes.after(() => rmSync(base, { recursive: true, force: true }));

for (const name of ['plain', 'express', 'fastify'] as const)
  recipes(`${name}: the bundle serves a page`, async () => {
    await servesPages(bundleApp(name, RECIPE_APPS[name], recipe(ESM_RECIPE)));
  });

recipes('nestjs: tsc, then the bundle serves a page on the Express and the Fastify platform', async () => {
  const bundle = bundleApp('nestjs', RECIPE_APPS.nestjs, recipe(NEST_RECIPE));
  await servesPages(bundle, { PLATFORM: 'express' });
  await servesPages(bundle, { PLATFORM: 'fastify' });
});

recipes.run();
