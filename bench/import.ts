/**
 * Cold start: what `import('listql')` costs a fresh Node process, and the first parses after it. Each sample is a new
 * process importing the built package through its exports map, as an app does (built first when dist/ is missing).
 *
 * The target is on listql's own import: the process has loaded MikroORM first, as an app has by the time it
 * creates an engine, so MikroORM's own start-up is not counted. The whole import, MikroORM included, is reported
 * beside it. Run alone with `npx node bench/import.ts`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fmt, noise, type Sample, summarize, type Target, verdict } from './stats.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PEERS = "await import('@mikro-orm/core'); await import('@mikro-orm/sql');";

/** The child: optionally load the peers, then time the import, a first valid filter and a first invalid one. */
function script(withPeers: boolean): string {
  return `${withPeers ? PEERS : ''}
const t0 = performance.now();
const m = await import('listql');
const t1 = performance.now();
m.parseFilter("name eq 'x' and price gt 10");
const t2 = performance.now();
try { m.parseFilter('price gt'); } catch {}
const t3 = performance.now();
console.log(JSON.stringify([t1 - t0, t2 - t1, t3 - t2]));`;
}

function sample(withPeers: boolean, runs: number): Sample[] {
  const columns: number[][] = [[], [], []];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script(withPeers)], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    for (const [j, v] of (JSON.parse(out) as number[]).entries()) columns[j]!.push(v);
  }
  return columns.map(summarize);
}

function line(name: string, s: Sample, target: Target): string {
  return `${name.padEnd(64)} ${fmt(s.median, 'ms').padStart(9)}  ${noise(s).padStart(7)}  ${verdict(s.median, target, ' ms')}`;
}

/** Measure and print the cold import and first-parse figures, over `runs` fresh processes each. */
export function benchImport(runs = 11): string[] {
  // A fresh clone has no dist/: build it first (as `npm run build` does), so a full run always has this figure.
  if (!existsSync(`${ROOT}dist/index.js`))
    execFileSync(process.execPath, ['scripts/build.ts'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const [own, firstValid, firstInvalid] = sample(true, runs) as [Sample, Sample, Sample];
  const [whole] = sample(false, runs) as [Sample];
  return [
    line("import('listql'), MikroORM already loaded", own, { max: 30 }),
    line("import('listql') in a bare process, MikroORM included", whole, 'report'),
    line('first parseFilter, valid filter (fast parser)', firstValid, 'report'),
    line('first parseFilter, invalid filter (loads ohm-js, builds grammar)', firstInvalid, 'report'),
    `(medians of ${runs} fresh Node processes each)`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const l of benchImport()) console.log(l);
}
