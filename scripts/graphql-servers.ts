/**
 * `npm run compat:graphql`: serve listql/graphql with the usual GraphQL servers on graphql 16 and 17, away from the
 * working tree.
 *
 * 1. Bundle listql's `.` and `./graphql` entries from src/ with esbuild (as scripts/build.ts does, JavaScript only)
 *    into a scratch package whose package.json carries the real dependencies and peer ranges, and `npm pack` it.
 * 2. For each graphql line, a scratch app installs the tarball beside that graphql and the servers that accept it,
 *    with plain `npm install` (so listql's peer range must accept that graphql next to them): graphql 16.11.0 (the
 *    lowest 16.x the package supports, which Apollo Server 5 needs) with graphql-http, graphql-yoga and Apollo
 *    Server 5; graphql 17 (the devDependency's version) with graphql-http and graphql-yoga (Apollo Server 5 does not
 *    accept 17). The MikroORM core and SQLite driver are the devDependencies' versions.
 * 3. Each app runs test/graphql-servers/servers.mjs with node's test runner: every server answers a forward page,
 *    a backward walk, an error beside a sibling and validation errors over HTTP.
 * 4. src/graphql is type-checked against graphql 16's declarations too.
 *
 * Exits non-zero, naming the step, when anything fails. `--keep` leaves the scratch directory.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');
const started = Date.now();

interface Manifest {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, unknown>;
}
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;

/** One scratch app: a graphql version and the servers installed beside it (npm specs). */
interface Line {
  readonly graphql: string;
  readonly servers: Record<string, string>;
  /** Installed beside them: what a server needs (Fastify for mercurius), and the graphql-request client. */
  readonly extras: Record<string, string>;
}
const LINES: readonly Line[] = [
  {
    graphql: '16.11.0',
    servers: { 'graphql-http': '^1', 'graphql-yoga': '^5', '@apollo/server': '^5', mercurius: '^16' },
    extras: { fastify: '^5', 'graphql-request': '^7' },
  },
  { graphql: pkg.devDependencies.graphql!, servers: { 'graphql-http': '^1', 'graphql-yoga': '^5' }, extras: {} },
];
/** The name servers.mjs knows each server package by. */
const SERVER_NAME: Record<string, string> = {
  mercurius: 'mercurius',
  'graphql-http': 'graphql-http',
  'graphql-yoga': 'yoga',
  '@apollo/server': 'apollo',
};

class StepError extends Error {}

function log(message: string): void {
  const seconds = ((Date.now() - started) / 1000).toFixed(0).padStart(4);
  process.stdout.write(`[compat:graphql ${seconds}s] ${message}\n`);
}

/** Run a command; on failure, throw with its last output lines and the step's name. */
function run(step: string, command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  const res = spawnSync(command, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 26 });
  const output = `${res.stdout ?? ''}${res.stderr ?? ''}`;
  if (res.status !== 0) {
    const tail = output
      .split('\n')
      .filter((line) => !line.startsWith('npm warn'))
      .slice(-60)
      .join('\n');
    throw new StepError(`${step} failed (${command} ${args.join(' ')}, exit ${res.status ?? res.signal}):\n${tail}`);
  }
  return output;
}

/** Bundle listql's `.` and `./graphql` into `<dir>/dist`, write its package.json, and pack it; return the tarball. */
async function packListql(dir: string): Promise<string> {
  const bundled = new Set(['ohm-js', 'superstruct']);
  const external = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)]
    .filter((name) => !bundled.has(name))
    .flatMap((name) => [name, `${name}/*`]);
  await build({
    absWorkingDir: root,
    entryPoints: ['src/index.ts', 'src/graphql/index.ts'],
    outdir: join(dir, 'dist'),
    outbase: 'src',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    external,
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'warning',
  });
  const manifest = {
    name: 'listql',
    version: pkg.version,
    type: 'module',
    exports: { '.': './dist/index.js', './graphql': './dist/graphql/index.js' },
    dependencies: pkg.dependencies,
    peerDependencies: pkg.peerDependencies,
    peerDependenciesMeta: pkg.peerDependenciesMeta,
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const packed = run('npm pack', 'npm', ['pack', '--silent', '--pack-destination', join(dir, '..')], dir).trim();
  return join(dir, '..', packed.split('\n').at(-1)!.trim());
}

function installedVersion(app: string, name: string): string {
  const file = join(app, 'node_modules', ...name.split('/'), 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** Find every copy of graphql under node_modules: more than one breaks graphql-js's instanceof checks. */
function graphqlCopies(dir: string, found: string[] = []): string[] {
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    if (entry.name === 'graphql' && existsSync(join(path, 'package.json'))) found.push(path);
    else if (entry.name.startsWith('@')) graphqlCopies(path, found);
    if (existsSync(join(path, 'node_modules'))) graphqlCopies(join(path, 'node_modules'), found);
  }
  return found;
}

function testLine(scratch: string, tarball: string, line: Line): string {
  const app = join(scratch, `app-graphql-${line.graphql}`);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'gql-app', private: true, type: 'module' })}\n`);
  cpSync(join(root, 'test/graphql-servers/servers.mjs'), join(app, 'servers.mjs'));
  const specs = [
    tarball,
    `graphql@${line.graphql}`,
    ...Object.entries({ ...line.servers, ...line.extras }).map(([name, range]) => `${name}@${range}`),
    `@mikro-orm/core@${pkg.devDependencies['@mikro-orm/core']}`,
    `@mikro-orm/sqlite@${pkg.devDependencies['@mikro-orm/sqlite']}`,
  ];
  log(`[graphql ${line.graphql}] npm install ${specs.slice(1).join(' ')} and the packed listql`);
  run(`npm install beside graphql ${line.graphql}`, 'npm', ['install', '--no-audit', '--no-fund', ...specs], app);
  const copies = graphqlCopies(join(app, 'node_modules'));
  if (copies.length !== 1) throw new StepError(`graphql ${line.graphql}: ${copies.length} copies of graphql installed`);
  const versions = ['graphql', ...Object.keys(line.servers), ...Object.keys(line.extras)].map(
    (n) => `${n}@${installedVersion(app, n)}`,
  );
  log(`[graphql ${line.graphql}] installed ${versions.join(' ')}`);
  const servers = Object.keys(line.servers).map((name) => SERVER_NAME[name]!);
  const out = run(
    `servers.mjs on graphql ${line.graphql}`,
    process.execPath,
    ['--test', '--test-reporter=tap', 'servers.mjs'],
    app,
    {
      GRAPHQL_SERVERS: servers.join(','),
      GRAPHQL_MAJOR: line.graphql.split('.')[0]!,
      GRAPHQL_CLIENT: line.extras['graphql-request'] ? 'graphql-request' : '',
    },
  );
  const passed = /# pass (\d+)/.exec(out)?.[1] ?? '?';
  log(`[graphql ${line.graphql}] ${servers.join(', ')}: ${passed} tests passed`);
  return app;
}

/** Type-check src/graphql (and what it imports) with `graphql` resolved to the app's graphql 16. */
function typecheckAgainst(app: string, scratch: string): void {
  const config = {
    extends: join(root, 'tsconfig.json'),
    compilerOptions: {
      noEmit: true,
      typeRoots: [join(root, 'node_modules/@types')],
      paths: { graphql: [join(app, 'node_modules/graphql')] },
    },
    include: [join(root, 'src/graphql')],
  };
  const file = join(scratch, 'tsconfig.graphql16.json');
  writeFileSync(file, JSON.stringify(config));
  log(`type-checking src/graphql against graphql ${installedVersion(app, 'graphql')}`);
  run(
    'type-checking src/graphql against graphql 16',
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', file],
    root,
  );
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'listql-graphql-servers-'));
  try {
    log(`bundling listql into ${scratch}`);
    const tarball = await packListql(join(scratch, 'listql'));
    const apps = LINES.map((line) => testLine(scratch, tarball, line));
    typecheckAgainst(apps[0]!, scratch);
    log(`PASS in ${((Date.now() - started) / 1000).toFixed(0)}s`);
  } finally {
    if (keep) log(`kept: ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (err) {
  const message = err instanceof StepError ? err.message : ((err as Error).stack ?? String(err));
  process.stderr.write(`\n[compat:graphql] FAIL after ${((Date.now() - started) / 1000).toFixed(0)}s: ${message}\n`);
  process.exitCode = 1;
}
