/**
 * `npm run check:lock`: a fresh clone's `npm install` leaves package-lock.json byte for byte as committed.
 *
 * Copies package.json and package-lock.json into two scratch folders and runs a full `npm install --ignore-scripts`
 * in each, at the same time: one with the npm running this script (npm 11 on Node 24), one with npm 10 (Node 22's)
 * through `npm exec`. A full install, not `--package-lock-only`: only a real install reads the installed packages'
 * manifests, which is where npm finds, for example, that better-sqlite3 has an install script (`hasInstallScript`).
 * `--ignore-scripts` runs none of them, which changes nothing in the lockfile. Exits non-zero, showing the first
 * lines that differ, when either npm rewrites the file.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, makeScratch, removeScratch, reportFailure, StepError, tail } from './compat-run.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');
const TOOL = 'check:lock';
const INSTALL = ['install', '--ignore-scripts', '--no-audit', '--no-fund'];

/** The npm commands whose installs must keep the lockfile: this npm, and npm 10 fetched like any package. */
const NPMS: readonly { label: string; prefix: readonly string[] }[] = [
  { label: 'npm', prefix: [] },
  { label: 'npm 10', prefix: ['exec', '--yes', '--package=npm@10', '--', 'npm'] },
];

function exec(args: readonly string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** How the written lockfile differs from the committed one: `diff -u`, cut short (line by line without diff). */
function differences(committedFile: string, writtenFile: string): string {
  const diff = spawnSync('diff', ['-u', committedFile, writtenFile], { encoding: 'utf8' });
  if (diff.stdout) return diff.stdout.split('\n').slice(0, 40).join('\n');
  const a = readFileSync(committedFile, 'utf8').split('\n');
  const b = readFileSync(writtenFile, 'utf8').split('\n');
  const first = a.findIndex((line, i) => line !== b[i]);
  return `first difference at line ${first + 1}: committed ${JSON.stringify(a[first])}, written ${JSON.stringify(b[first])}`;
}

/** Install in a fresh copy with one npm and return the problem, or '' when the lockfile is unchanged. */
async function check(npm: (typeof NPMS)[number], committed: string): Promise<string> {
  const dir = makeScratch('lock');
  for (const file of ['package.json', 'package-lock.json', '.npmrc'])
    if (existsSync(join(root, file))) copyFileSync(join(root, file), join(dir, file));
  const version = (await exec([...npm.prefix, '-v'], dir)).output.trim();
  log(`${npm.label} (${version}): npm ${INSTALL.join(' ')} in ${dir}`, TOOL);
  const { code, output } = await exec([...npm.prefix, ...INSTALL], dir);
  if (code !== 0) return `${npm.label} (${version}): npm install failed (exit ${code}):\n${tail(output)}`;
  const written = readFileSync(join(dir, 'package-lock.json'), 'utf8');
  if (written === committed) {
    log(`${npm.label} (${version}): package-lock.json unchanged`, TOOL);
    return '';
  }
  const changes = differences(join(root, 'package-lock.json'), join(dir, 'package-lock.json'));
  return `${npm.label} (${version}) rewrote package-lock.json:\n${changes}`;
}

async function main(): Promise<void> {
  const committed = readFileSync(join(root, 'package-lock.json'), 'utf8');
  const problems = (await Promise.all(NPMS.map((npm) => check(npm, committed)))).filter(Boolean);
  if (problems.length) throw new StepError(problems.join('\n\n'));
  log('PASS: a fresh npm install keeps package-lock.json', TOOL);
}

try {
  await main();
} catch (err) {
  reportFailure(err, TOOL);
} finally {
  removeScratch(keep, TOOL);
}
