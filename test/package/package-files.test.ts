/**
 * What the published package carries speaks to its users: `npm pack` ships the README, LICENSE and docs, every
 * relative link in those pages resolves to a file inside the package, and no shipped text (the pages, or the
 * JSDoc that becomes the .d.ts files) cites documents users do not have. The peer ranges let an app install any
 * MikroORM 7 from 7.2.1 on (docs/compatibility.md). No database is involved: nothing here varies by dialect.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The files `npm pack` would put in the tarball (dist/ only when built). */
function packedFiles(): Set<string> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [report] = JSON.parse(out) as { files: { path: string }[] }[];
  return new Set(report!.files.map((f) => f.path));
}

const files = packedFiles();
const pages = [...files].filter((f) => f.endsWith('.md'));

test('the package ships README, LICENSE and every docs page', () => {
  for (const f of ['README.md', 'LICENSE', 'package.json']) assert.ok(files.has(f), f);
  for (const page of readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')))
    assert.ok(files.has(`docs/${page}`), `docs/${page}`);
});

test('every relative link in a shipped page resolves inside the package', () => {
  const broken: string[] = [];
  for (const page of pages) {
    // Links only: code blocks and code spans may hold `](` as plain text.
    const text = readFileSync(join(root, page), 'utf8')
      .replace(/```[\s\S]*?```/g, '')
      .replace(/`[^`\n]*`/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!) || target!.startsWith('#')) continue;
      const path = normalize(join(dirname(page), target!.split('#')[0]!)).replace(/\/$/, '');
      const shipped = files.has(path) || [...files].some((f) => f.startsWith(`${path}/`));
      if (!shipped) broken.push(`${page}: ${target}`);
    }
  }
  assert.equal(broken, []);
});

test('no shipped text cites documents users do not have', () => {
  const cites = /DESIGN §|DESIGN\.md|spec §|RelationGoField|§\d/;
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|md)$/.test(entry.name))
        readFileSync(join(root, path), 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (cites.test(line)) found.push(`${path}:${i + 1}`);
          });
    }
  };
  for (const dir of ['src', 'docs', 'examples']) walk(dir);
  for (const page of ['README.md']) if (cites.test(readFileSync(join(root, page), 'utf8'))) found.push(page);
  assert.equal(found, []);
});

test('package.json: MikroORM peer ranges from 7.2.1, driver-supplied sql, and where the project lives', () => {
  assert.is(pkg.peerDependencies['@mikro-orm/core'], '^7.2.1');
  assert.is(pkg.peerDependencies['@mikro-orm/sql'], '^7.2.1');
  // The driver brings @mikro-orm/sql at its own version; a required peer would make npm add the newest sql, whose
  // core pin then conflicts with an older driver's (ERESOLVE).
  assert.is(pkg.peerDependenciesMeta['@mikro-orm/sql']?.optional, true);
  assert.is(pkg.devDependencies['@mikro-orm/core'], '7.2.1', 'dev pins stay exact');
  assert.is(pkg.license, 'MIT');
  assert.match(pkg.repository.url, 'github.com/listql/listql');
  assert.ok(pkg.keywords.includes('mikro-orm'));
  assert.is(pkg.engines.node, '>=22.17');
});

test.run();
