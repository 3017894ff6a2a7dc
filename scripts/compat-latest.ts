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
 *    engine, serialization and binding tests (`npm test -- engine execute bind`) on the set's dialects.
 * 3. `npm pack` the build and install the tarball beside each set's core and driver in a scratch app, with plain
 *    `npm install` (peer ranges must resolve), then run a tiny script there: createEngine, then list() on a fresh
 *    database (in memory for SQLite; on PostgreSQL and MariaDB a database created under LISTQL_PG_URL or
 *    LISTQL_MYSQL_URL and dropped after).
 *
 * Exits non-zero, saying which step failed and why, when anything fails. `--keep` leaves the scratch directories.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');
const started = Date.now();
const scratch: string[] = [];

/** The test dialect each driver package serves. */
const DIALECT_OF: Record<string, string> = { sqlite: 'sqlite', postgresql: 'postgresql', mariadb: 'mariadb' };
const TESTS = ['engine', 'execute', 'bind'];

interface VersionSet {
  readonly core: string;
  readonly sql: string;
  readonly drivers: Record<string, string>;
  /**
   * Other packages the set's drivers pin exactly, held at those versions in the scratch copy: `@mikro-orm/mysql`
   * under `@mikro-orm/mariadb`, and the `mysql2` that `@mikro-orm/mysql` uses (the tests' capture patches that copy).
   */
  readonly pins: Record<string, string>;
}

class StepError extends Error {}

function log(message: string): void {
  const seconds = ((Date.now() - started) / 1000).toFixed(0).padStart(4);
  process.stdout.write(`[compat ${seconds}s] ${message}\n`);
}

/** Run a command; on failure, throw with its last output lines and the step's name. */
function run(step: string, command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const res = spawnSync(command, args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = `${res.stdout ?? ''}${res.stderr ?? ''}`;
  if (res.status !== 0) {
    const lines = output.split('\n').filter((line) => !line.startsWith('npm warn'));
    // Failing tests first (uvu prints each as `FAIL <suite> "<test>"` with its assertion below), then the end.
    const failures = lines.flatMap((line, i) => (/^\s*FAIL\s/.test(line) ? lines.slice(i, i + 3) : [])).slice(0, 60);
    const tail = [...failures, ...(failures.length ? ['…'] : []), ...lines.slice(-30)].join('\n');
    throw new StepError(`${step} failed (${command} ${args.join(' ')}, exit ${res.status ?? res.signal}):\n${tail}`);
  }
  return res.stdout ?? '';
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
    if (deps.mysql2) pins.mysql2 = deps.mysql2;
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

function makeScratch(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `listql-compat-${label}-`));
  scratch.push(dir);
  return dir;
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

/** The script the scratch app runs: a fresh database, one entity, createEngine and list(). */
const SMOKE = `
import { randomBytes } from 'node:crypto';
import { EntitySchema } from '@mikro-orm/core';
import { createEngine, filterable, isListError, schema, sortable } from 'listql';

const [driver, adminUrl] = process.argv.slice(2);
const { MikroORM } = await import('@mikro-orm/' + driver);
class Note { id; title; stars; }
const NoteSchema = new EntitySchema({
  class: Note,
  tableName: 'note',
  properties: { id: { type: 'number', primary: true }, title: { type: 'string' }, stars: { type: 'number' } },
});
let database;
const options = { entities: [NoteSchema], debug: false };
if (driver === 'sqlite') options.dbName = ':memory:';
else {
  database = 'listql_compat_' + randomBytes(4).toString('hex');
  const url = new URL(adminUrl);
  url.pathname = '/' + database;
  options.clientUrl = url.toString();
}
const orm = await MikroORM.init(options);
try {
  await orm.schema.ensureDatabase();
  await orm.schema.create();
  const em = orm.em.fork();
  for (const [id, title, stars] of [[1, 'a', 3], [2, "O'Brien", 5], [3, 'c', 4]]) em.create(Note, { id, title, stars });
  await em.flush();
  const policy = schema(Note).expose('title', filterable('eq'), sortable()).expose('stars', filterable(), sortable());
  const notes = createEngine(orm, { policy, maxLimit: 10, allowCount: true });
  const page = await notes.from(orm.em.fork().createQueryBuilder(Note, 'n')).list("filter=stars gte 4&sort=-stars&count=true");
  const got = JSON.stringify(page.items.map((i) => i.id)) + ' count=' + page.page.count;
  if (got !== '[2,3] count=2') throw new Error('unexpected page: ' + JSON.stringify(page));
  const quoted = await notes.from(orm.em.fork().createQueryBuilder(Note, 'n')).list("filter=title eq 'O''Brien'");
  if (quoted.items.length !== 1) throw new Error('unexpected page: ' + JSON.stringify(quoted));
  const bad = await notes.from(orm.em.fork().createQueryBuilder(Note, 'n')).list('filter=nope eq 1').catch((e) => e);
  if (!isListError(bad) || bad.code !== 'unknown_field') throw new Error('expected unknown_field, got ' + bad);
  console.log('smoke ok: ' + driver + ' ' + got);
} finally {
  if (database) await orm.schema.dropDatabase(database).catch(() => {});
  await orm.close(true);
}
`;

function packAndSmoke(builtDir: string, sets: readonly VersionSet[]): void {
  const packDir = makeScratch('pack');
  log('npm pack');
  const packed = run('npm pack', 'npm', ['pack', '--pack-destination', packDir, '--silent'], builtDir).trim();
  const tarball = join(packDir, packed.split('\n').at(-1)!.trim());
  const adminUrls: Record<string, string> = {
    postgresql: process.env.LISTQL_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
    mariadb: process.env.LISTQL_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/',
  };
  for (const set of sets)
    for (const [driver, version] of Object.entries(set.drivers)) {
      const app = makeScratch(`app-${driver}`);
      writeFileSync(
        join(app, 'package.json'),
        `${JSON.stringify({ name: 'listql-compat-app', private: true, type: 'module' }, null, 2)}\n`,
      );
      writeFileSync(join(app, 'smoke.mjs'), SMOKE);
      const deps = [tarball, `@mikro-orm/core@${set.core}`, `@mikro-orm/${driver}@${version}`];
      log(`scratch app: npm install listql (packed) @mikro-orm/core@${set.core} @mikro-orm/${driver}@${version}`);
      run('installing the packed listql beside MikroORM', 'npm', ['install', '--no-audit', '--no-fund', ...deps], app);
      const adminUrl = adminUrls[driver] ?? '';
      const out = run(`the scratch app on ${driver}`, process.execPath, ['smoke.mjs', driver, adminUrl], app).trim();
      log(out);
    }
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
  packAndSmoke(built[0]!, sets);
  log(`PASS in ${((Date.now() - started) / 1000).toFixed(0)}s: ${sets.map(describe).join('; ')}`);
}

try {
  main();
} catch (err) {
  const message = err instanceof StepError ? err.message : ((err as Error).stack ?? String(err));
  process.stderr.write(`\n[compat] FAIL after ${((Date.now() - started) / 1000).toFixed(0)}s: ${message}\n`);
  process.exitCode = 1;
} finally {
  if (keep) log(`kept: ${scratch.join(' ')}`);
  else for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
}
