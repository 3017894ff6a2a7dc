/**
 * The built package as an app installs it, for the tests that need dist/: this tree when its dist/ is fresher than
 * everything it is built from (CI builds before it tests), else a build of the tree into a folder under `scratch`.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Whether dist/ was built after every file it is built from changed. */
function distIsFresh(): boolean {
  const built = join(ROOT, 'dist', 'index.js');
  if (!existsSync(built)) return false;
  const sources = ['package.json', 'grammar.ohm', 'scripts/build.ts'].map((f) => join(ROOT, f));
  for (const entry of readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true }))
    if (entry.isFile()) sources.push(join(entry.parentPath, entry.name));
  const newest = Math.max(...sources.map((f) => statSync(f).mtimeMs));
  return statSync(built).mtimeMs >= newest;
}

/** The folder of the built package: this tree when dist/ is fresh, else a build of it in `<scratch>/listql`. */
export function builtPackage(scratch: string): string {
  if (distIsFresh()) return ROOT;
  const pkg = join(scratch, 'listql');
  for (const path of ['src', 'grammar.ohm', 'package.json', 'tsconfig.json', 'tsconfig.build.json'])
    cpSync(join(ROOT, path), join(pkg, path), { recursive: true });
  for (const script of ['build.ts', 'gen-grammar.ts'])
    cpSync(join(ROOT, 'scripts', script), join(pkg, 'scripts', script));
  symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir');
  execFileSync(process.execPath, ['scripts/build.ts'], { cwd: pkg, stdio: 'pipe' });
  return pkg;
}
