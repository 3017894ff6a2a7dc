/**
 * The README's install line, run as written on the newest registry state (part of `npm run compat`):
 *
 * - on the Node running compat (24), in a fresh app, with the packed listql in place of the name `listql` (the
 *   package is installed from its tarball): it must install MikroORM 7, and the app must list a page with the
 *   driver the line names;
 * - on Node 20 with its npm 10 (fetched with `npm exec`, as any package): npm picks MikroORM 6, whose engines
 *   allow Node 20, and fails with ERESOLVE naming listql's peer. README.md and docs/compatibility.md explain that
 *   error; this step fails when npm's answer no longer matches what they quote.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { log, makeScratch, run, StepError } from './compat-run.ts';
import { smoke } from './compat-smoke.ts';

/** What npm 10 and 11 print on Node 20 for the README's line; docs/compatibility.md quotes the same lines. */
const NODE20_ERROR = [
  'ERESOLVE could not resolve',
  'Found: @mikro-orm/core@6',
  'Conflicting peer dependency: @mikro-orm/core@7',
];

/** The words of the `npm install` line in the first ```sh block under README.md's "## Install". */
export function readmeInstallLine(root: string): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Install\n'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const lines = block.split('\n').filter((line) => line.startsWith('npm install '));
  if (lines.length !== 1)
    throw new StepError(`README.md's Install section has ${lines.length} npm install lines, not 1`);
  return lines[0]!.split('#')[0]!.trim().split(/\s+/);
}

function freshApp(label: string): string {
  const app = makeScratch(label);
  const manifest = { name: 'listql-readme-app', private: true, type: 'module' };
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return app;
}

function installedVersion(app: string, pkg: string): string {
  const file = join(app, 'node_modules', ...pkg.split('/'), 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** Run the README's line in a fresh app on this Node, with `tarball` for `listql`, then list a page there. */
export function installAsReadme(root: string, tarball: string): void {
  const words = readmeInstallLine(root);
  const driver = words.map((w) => /^@mikro-orm\/(postgresql|sqlite|mariadb|mysql)$/.exec(w)?.[1]).find(Boolean);
  if (!words.includes('listql') || !driver)
    throw new StepError(`README's line names no listql or driver: ${words.join(' ')}`);
  const args = words.slice(1).map((w) => (w === 'listql' ? tarball : w));
  const app = freshApp('readme');
  const npm = run('npm -v', 'npm', ['-v'], app).trim();
  log(`README line on Node ${process.versions.node} (npm ${npm}): ${words.join(' ')} (listql packed)`);
  // prefer-online: the newest registry state, not npm's cached package lists. It changes no resolution rule.
  run("the README's install line", 'npm', args, app, { npm_config_prefer_online: 'true' });
  const core = installedVersion(app, '@mikro-orm/core');
  log(
    `README line installed @mikro-orm/core@${core}, @mikro-orm/${driver}@${installedVersion(app, `@mikro-orm/${driver}`)}`,
  );
  if (!core.startsWith('7.')) throw new StepError(`the README's line installed @mikro-orm/core@${core}, not 7.x`);
  log(smoke(app, driver));
}

/** Run the README's line on Node 20 with npm 10, and check it fails as the docs say. */
export function readmeOnNode20(root: string, tarball: string): void {
  const words = readmeInstallLine(root);
  const app = freshApp('readme-node20');
  const line = words.map((w) => (w === 'listql' ? tarball : w)).join(' ');
  log(`README line on Node 20 (npm 10): ${words.join(' ')}, expecting the ERESOLVE the docs explain`);
  const exec = ['exec', '--yes', '--package=node@20', '--package=npm@10', '--', 'sh', '-c', `node -v && ${line}`];
  const res = spawnSync('npm', exec, { cwd: app, encoding: 'utf8', maxBuffer: 1 << 26 });
  const output = `${res.stdout}${res.stderr}`;
  const version = /^v\d+\.\d+\.\d+/m.exec(output)?.[0] ?? 'unknown';
  if (!version.startsWith('v20.'))
    throw new StepError(`could not run Node 20 through npm exec:\n${output.slice(-2000)}`);
  const docs =
    readFileSync(join(root, 'docs', 'compatibility.md'), 'utf8') + readFileSync(join(root, 'README.md'), 'utf8');
  const missing = NODE20_ERROR.filter((text) => !output.includes(text) || !docs.includes(text));
  if (res.status === 0 || missing.length)
    throw new StepError(
      `on Node ${version} the README's line ${res.status === 0 ? 'installed' : 'failed otherwise'} than README.md and ` +
        `docs/compatibility.md say (${missing.join('; ') || 'exit 0'}): update them.\n${output.slice(-3000)}`,
    );
  log(`on Node ${version}, npm answers ERESOLVE as documented`);
}
