/**
 * `npm run compat`: test listql against the newest MikroORM 7.x the npm registry offers, away from the working tree.
 *
 * 1. For each SQL driver among the devDependencies (`@mikro-orm/sqlite`, `postgresql`, `mariadb`), pick the newest
 *    stable 7.x release whose own `@mikro-orm/core` and `@mikro-orm/sql` are published too, and every MikroORM driver
 *    it pins (`@mikro-orm/mariadb` pins `@mikro-orm/mysql`, which brings `@mikro-orm/sql` and `mysql2`): drivers pin
 *    the core of their own version, and new patches are not published for every driver at once. Drivers that land on
 *    the same core form one set; sets that cannot share a core are tested apart, each on its own dialect.
 * 2. For each set: copy the repository into a scratch directory (the system's temporary folder), point its
 *    devDependencies at the set, `npm install`, build (which type-checks `src/` against that MikroORM) and run the
 *    engine, serialization and binding tests and the planner's kept builders (`npm test -- engine keyset bind
 *    prepared-builders`: engine/, keyset/, bind/, and test/plan/prepared-builders.test.ts, which copies MikroORM's
 *    QueryBuilder state) on the set's dialects.
 * 3. `npm pack` the build and install the tarball beside each set's core and driver in a scratch app, with plain
 *    `npm install` (peer ranges must resolve), then run a tiny script there: createEngine, then list() on a fresh
 *    database (in memory for SQLite; on PostgreSQL and MariaDB a database created under LISTQL_PG_URL or
 *    LISTQL_MYSQL_URL and dropped after).
 * 4. Run the README's install line as written (scripts/compat-readme.ts): on this Node, with the tarball for
 *    `listql`, it must install MikroORM 7 and list a page; on Node 20 it must fail with the ERESOLVE the docs explain.
 *
 * Exits non-zero, saying which step failed and why, when anything fails. `--keep` leaves the scratch directories.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installAsReadme, readmeOnNode20 } from './compat-readme.ts';
import { elapsed, log, makeScratch, removeScratch, reportFailure, run, StepError } from './compat-run.ts';
import { smoke } from './compat-smoke.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');

/** The test dialect each driver package serves. */
const DIALECT_OF: Record<string, string> = { sqlite: 'sqlite', postgresql: 'postgresql', mariadb: 'mariadb' };
const TESTS = ['engine', 'keyset', 'bind', 'prepared-builders'];
const DATABASE_CLIENTS = ['mysql2', 'pg', 'better-sqlite3'] as const;

interface VersionSet {
  readonly core: string;
  readonly sql: string;
  readonly drivers: Record<string, string>;
  /**
   * Other packages the set's drivers pin exactly, held at those versions in the scratch copy: `@mikro-orm/mysql`
   * under `@mikro-orm/mariadb`, and the database client a driver depends on (`mysql2`, `pg`, `better-sqlite3`: the
   * tests' capture patches that copy).
   */
  readonly pins: Record<string, string>;
}

function npmJson(args: readonly string[]): unknown {
  const out = run(`npm ${args.join(' ')}`, 'npm', [...args, '--json'], root);
  return JSON.parse(out);
}

const published = new Map<string, string[]>();

/** Stable 7.x versions of a package, newest first (asked of the registry once per package). */
function versions(pkg: string): string[] {
  let found = published.get(pkg);
  if (!found) {
    const all = npmJson(['view', pkg, 'versions']) as string[] | string;
    found = (Array.isArray(all) ? all : [all]).filter((v) => /^7\.\d+\.\d+$/.test(v)).sort((a, b) => compare(b, a));
    published.set(pkg, found);
  }
  return found;
}

function compare(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i]! - pb[i]!;
  return 0;
}

interface PackageDeps {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/**
 * The exact core and sql versions a driver release needs (its pins), and the other packages it pins on the way, or
 * undefined if one is not published. A driver may reach `@mikro-orm/sql` through another driver it pins exactly
 * (`@mikro-orm/mariadb` → `@mikro-orm/mysql` → `@mikro-orm/sql`); that driver must be published at that version too.
 */
function needs(driver: string, version: string, cores: readonly string[], sqls: readonly string[]) {
  const pins: Record<string, string> = {};
  let core: string | undefined;
  let sql: string | undefined;
  const queue: [string, string][] = [[`@mikro-orm/${driver}`, version]];
  for (let next = queue.shift(); next; next = queue.shift()) {
    const [name, at] = next;
    const meta = npmJson(['view', `${name}@${at}`, 'dependencies', 'peerDependencies']) as PackageDeps;
    const deps = { ...meta.peerDependencies, ...meta.dependencies };
    core ??= meta.peerDependencies?.['@mikro-orm/core'] ?? meta.dependencies?.['@mikro-orm/core'];
    sql ??= meta.dependencies?.['@mikro-orm/sql'] ?? meta.peerDependencies?.['@mikro-orm/sql'];
    // The database clients the tests' driver capture patches: the scratch copy must hold the driver's own copy.
    for (const client of DATABASE_CLIENTS) if (deps[client]) pins[client] = deps[client];
    for (const [dep, range] of Object.entries(deps)) {
      if (!/^@mikro-orm\//.test(dep) || dep === '@mikro-orm/core' || dep === '@mikro-orm/sql') continue;
      if (!/^\d+\.\d+\.\d+$/.test(range) || !versions(dep).includes(range)) return undefined;
      pins[dep] = range;
      queue.push([dep, range]);
    }
  }
  if (!core || !sql || !cores.includes(core) || !sqls.includes(sql)) return undefined;
  return { core, sql, pins };
}

function pickSets(drivers: readonly string[]): VersionSet[] {
  const cores = versions('@mikro-orm/core');
  const sqls = versions('@mikro-orm/sql');
  log(`registry: newest @mikro-orm/core ${cores[0]}, @mikro-orm/sql ${sqls[0]}`);
  const sets = new Map<string, VersionSet>();
  for (const driver of drivers) {
    const published = versions(`@mikro-orm/${driver}`);
    let chosen: { version: string; core: string; sql: string; pins: Record<string, string> } | undefined;
    // Newest first; a release whose pinned core or sql is missing from the registry cannot be installed.
    for (const version of published.slice(0, 8)) {
      const pins = needs(driver, version, cores, sqls);
      if (pins) {
        chosen = { version, ...pins };
        break;
      }
      log(`@mikro-orm/${driver}@${version} needs a core or sql the registry does not have; trying an older one`);
    }
    if (!chosen) throw new StepError(`no installable 7.x release of @mikro-orm/${driver} found`);
    log(`@mikro-orm/${driver}: newest published ${published[0]}, newest installable ${chosen.version}`);
    const pinned = Object.entries(chosen.pins).map(([name, v]) => `${name}@${v}`);
    if (pinned.length) log(`@mikro-orm/${driver}@${chosen.version} pins ${pinned.join(', ')}`);
    const key = `${chosen.core}/${chosen.sql}`;
    const set = sets.get(key) ?? { core: chosen.core, sql: chosen.sql, drivers: {}, pins: {} };
    set.drivers[driver] = chosen.version;
    Object.assign(set.pins, chosen.pins);
    sets.set(key, set);
  }
  return [...sets.values()].sort((a, b) => compare(b.core, a.core));
}

function describe(set: VersionSet): string {
  const drivers = Object.entries(set.drivers).map(([d, v]) => `${d}@${v}`);
  return `core@${set.core} sql@${set.sql} ${drivers.join(' ')}`;
}

/** Copy the working tree (no dependencies, build output, VCS data or local databases) into a scratch directory. */
function copyRepo(dir: string): void {
  const skip = new Set(['node_modules', '.git', 'dist', '.data']);
  cpSync(root, dir, {
    recursive: true,
    filter: (src) => {
      const top = relative(root, src).split(sep)[0] ?? '';
      return !skip.has(top) && !src.endsWith('.tgz');
    },
  });
}

/** Point a scratch copy's devDependencies at one version set, keeping what the tests need from the others. */
function pinSet(dir: string, set: VersionSet, allDrivers: readonly string[]): void {
  const file = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { devDependencies: Record<string, string> };
  const dev = pkg.devDependencies;
  dev['@mikro-orm/core'] = set.core;
  dev['@mikro-orm/sql'] = set.sql;
  for (const driver of allDrivers) {
    const name = `@mikro-orm/${driver}`;
    if (set.drivers[driver]) dev[name] = set.drivers[driver];
    else delete dev[name];
  }
  // A set without MariaDB drops the MySQL driver its pin brought; a set with it holds the versions it pins.
  if (!set.drivers.mariadb) delete dev['@mikro-orm/mysql'];
  Object.assign(dev, set.pins);
  // The tests' driver-level capture loads better-sqlite3 even when SQLite is not the dialect under test.
  if (!set.drivers.sqlite) dev['better-sqlite3'] = installedVersion('better-sqlite3');
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
}

function installedVersion(pkg: string, base = root): string {
  const file = join(base, 'node_modules', ...pkg.split('/'), 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

function testSet(set: VersionSet, allDrivers: readonly string[]): string {
  const dir = makeScratch(`core-${set.core}`);
  log(`[${describe(set)}] copying the repository to ${dir}`);
  copyRepo(dir);
  pinSet(dir, set, allDrivers);
  log(`[${describe(set)}] npm install`);
  run('npm install', 'npm', ['install', '--no-audit', '--no-fund'], dir);
  for (const [pkg, want] of [
    ['@mikro-orm/core', set.core],
    ['@mikro-orm/sql', set.sql],
    ...Object.entries(set.drivers).map(([d, v]) => [`@mikro-orm/${d}`, v]),
    ...Object.entries(set.pins),
  ] as const) {
    const got = installedVersion(pkg, dir);
    if (got !== want) throw new StepError(`npm install gave ${pkg}@${got}, expected ${want}`);
  }
  log(`[${describe(set)}] npm run build (type-checks src/ against this MikroORM)`);
  run('npm run build', 'npm', ['run', 'build'], dir);
  const dialects = Object.keys(set.drivers).map((d) => DIALECT_OF[d] ?? d);
  log(`[${describe(set)}] npm test -- ${TESTS.join(' ')} on ${dialects.join(', ')}`);
  const out = run('npm test', 'npm', ['test', '--', ...TESTS], dir, { LISTQL_TEST_DIALECTS: dialects.join(',') });
  log(`[${describe(set)}] ${/uvu: .*/.exec(out)?.[0] ?? 'tests passed'}`);
  return dir;
}

/** Pack the build, then install the tarball beside each set's core and driver in a fresh app, and list a page. */
function packAndSmoke(builtDir: string, sets: readonly VersionSet[]): string {
  const packDir = makeScratch('pack');
  log('npm pack');
  const packed = run('npm pack', 'npm', ['pack', '--pack-destination', packDir, '--silent'], builtDir).trim();
  const tarball = join(packDir, packed.split('\n').at(-1)!.trim());
  for (const set of sets)
    for (const [driver, version] of Object.entries(set.drivers)) {
      const app = makeScratch(`app-${driver}`);
      writeFileSync(
        join(app, 'package.json'),
        `${JSON.stringify({ name: 'listql-compat-app', private: true, type: 'module' }, null, 2)}\n`,
      );
      const deps = [tarball, `@mikro-orm/core@${set.core}`, `@mikro-orm/${driver}@${version}`];
      log(`scratch app: npm install listql (packed) @mikro-orm/core@${set.core} @mikro-orm/${driver}@${version}`);
      run('installing the packed listql beside MikroORM', 'npm', ['install', '--no-audit', '--no-fund', ...deps], app);
      log(smoke(app, driver));
    }
  return tarball;
}

function main(): void {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  // SQL drivers only: other @mikro-orm packages (such as nestjs) keep their pins, which accept any 7.x core.
  const drivers = Object.keys(DIALECT_OF).filter((driver) => pkg.devDependencies[`@mikro-orm/${driver}`]);
  log(`drivers under test: ${drivers.join(', ')}; dev pins: core@${pkg.devDependencies['@mikro-orm/core']}`);
  const sets = pickSets(drivers);
  for (const set of sets) log(`version set: ${describe(set)}`);
  const built = sets.map((set) => testSet(set, drivers));
  const tarball = packAndSmoke(built[0]!, sets);
  installAsReadme(root, tarball);
  readmeOnNode20(root, tarball);
  log(`PASS in ${elapsed()}s: ${sets.map(describe).join('; ')}`);
}

try {
  main();
} catch (err) {
  reportFailure(err);
} finally {
  removeScratch(keep);
}
