/**
 * `npm run check:docs`: type-check every TypeScript block of README.md and docs/*.md, so the snippets users copy
 * cannot rot. Each block becomes a module of a throw-away project whose `listql` imports resolve to src/, type-checked
 * by the project's own tsc with strict settings. The names a block may use without importing them are the
 * application's (check-docs-app.ts); a page gives a partial block more context in a hidden
 * `<!-- ts-preamble: … -->` comment, or exempts it with `<!-- ts-skip: reason -->` (check-docs-extract.ts).
 * Errors are reported at the page's line: `docs/http.md:25:7 error TS2304: Cannot find name 'x'.`
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { APP_SOURCE, ENTITIES_SOURCE } from './check-docs-app.ts';
import { extractSnippets, type Snippet } from './check-docs-extract.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One compiler error, placed in its page. */
export interface SnippetError {
  /** `docs/http.md:25:7`, or the generated file's name when the error is outside every block. */
  readonly where: string;
  readonly message: string;
}

/** The result of a check: the errors, and how many blocks were checked and skipped. */
export interface DocsCheck {
  readonly errors: readonly SnippetError[];
  readonly checked: number;
  readonly skipped: readonly Snippet[];
}

/** The pages checked by default: README.md and every page of docs/, relative to the repository root. */
export function defaultPages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

/** Type-check the TypeScript blocks of `pages` (given as `{ name, markdown }`); resolve with every error found. */
export async function checkSnippets(pages: readonly { name: string; markdown: string }[]): Promise<DocsCheck> {
  const snippets = pages.flatMap((p) => extractSnippets(p.name, p.markdown));
  const skipped = snippets.filter((s) => s.skip !== undefined);
  const dir = mkdtempSync(join(tmpdir(), 'listql-docs-'));
  try {
    const placed = writeProject(
      dir,
      snippets.filter((s) => s.skip === undefined),
    );
    const output = await tsc(dir);
    return { errors: parseErrors(output, dir, placed), checked: placed.size, skipped };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Where each block went: its file (relative to the project) → the block and its preamble's line count. */
type Placement = Map<string, { snippet: Snippet; offset: number }>;

function writeProject(dir: string, snippets: readonly Snippet[]): Placement {
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'entities.ts'), ENTITIES_SOURCE);
  writeFileSync(join(dir, 'app.d.ts'), APP_SOURCE);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig(), null, 2));
  const placed: Placement = new Map();
  for (const snippet of snippets) {
    const folder = join(dir, 'pages', basename(snippet.page).replace(/\W/g, '_'));
    mkdirSync(folder, { recursive: true });
    // Blocks of one page may import each other by the file name they declare, and './entities' as an app would.
    writeFileSync(join(folder, 'entities.ts'), "export * from '../../entities';\n");
    const file = join(folder, snippet.fileName ?? `line-${snippet.line}.ts`);
    const preamble = snippet.preamble ? `${snippet.preamble}\n` : '';
    // `export {}` makes every block a module: its names stay its own and top-level await is allowed.
    writeFileSync(file, `${preamble}${snippet.code}\nexport {};\n`);
    placed.set(relative(dir, file), { snippet, offset: preamble ? preamble.split('\n').length - 1 : 0 });
  }
  return placed;
}

/** Strict settings, bundler-style resolution (extensionless relative imports, as most apps write them). */
function tsconfig(): object {
  const paths: Record<string, string[]> = {};
  const exports = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).exports as Record<string, unknown>;
  for (const [subpath, target] of Object.entries(exports)) {
    const js = (target as { default?: string }).default;
    if (!js?.startsWith('./dist/')) continue;
    const source = join(ROOT, 'src', js.slice('./dist/'.length).replace(/\.js$/, '.ts'));
    paths[subpath === '.' ? 'listql' : `listql/${subpath.slice(2)}`] = [source];
  }
  return {
    compilerOptions: {
      target: 'es2023',
      lib: ['es2023'],
      module: 'preserve',
      moduleResolution: 'bundler',
      types: ['node'],
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      allowImportingTsExtensions: true,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      skipLibCheck: true,
      noEmit: true,
      paths,
    },
    include: ['app.d.ts', 'entities.ts', 'pages'],
  };
}

async function tsc(dir: string): Promise<string> {
  const bin = join(ROOT, 'node_modules', '.bin', 'tsc');
  try {
    await promisify(execFile)(bin, ['-p', dir, '--pretty', 'false'], { cwd: dir, maxBuffer: 1 << 26 });
    return '';
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    const text = `${stdout ?? ''}${stderr ?? ''}`.trim();
    if (!text) throw err;
    return text;
  }
}

/** Map tsc's `file(line,col): error …` lines to page lines; keep any other line as it is. */
function parseErrors(output: string, dir: string, placed: Placement): SnippetError[] {
  const errors: SnippetError[] = [];
  for (const line of output.split('\n')) {
    const m = /^(.+?)\((\d+),(\d+)\): (error .*)$/.exec(line.trim());
    if (!m) {
      const last = errors.at(-1);
      if (line.startsWith(' ') && last) errors[errors.length - 1] = { ...last, message: `${last.message}\n${line}` };
      else if (line.trim()) errors.push({ where: 'tsc', message: line.trim() });
      continue;
    }
    const [, file = '', row = '0', col = '0', message = ''] = m;
    const entry = placed.get(relative(dir, join(dir, file)));
    const where = entry
      ? `${entry.snippet.page}:${entry.snippet.line + Number(row) - 1 - entry.offset}:${col}`
      : `${relative(dir, join(dir, file))}:${row}:${col}`;
    errors.push({ where, message });
  }
  return errors;
}

async function main(): Promise<void> {
  const pages = defaultPages().map((name) => ({ name, markdown: readFileSync(join(ROOT, name), 'utf8') }));
  const { errors, checked, skipped } = await checkSnippets(pages);
  for (const e of errors) console.error(`${e.where} ${e.message}`);
  for (const s of skipped) console.log(`skipped ${s.page}:${s.line}: ${s.skip}`);
  console.log(`check:docs: ${checked} blocks checked, ${skipped.length} skipped, ${errors.length} errors`);
  if (errors.length > 0) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
