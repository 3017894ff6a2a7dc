/**
 * `npm run lint:sizes` (part of `npm run lint`): keep the house readable. A file of `src/` over 250 lines, or a
 * function (declaration, method, arrow or function expression) over 60 lines, fails unless a comment starting with
 * `size:` says why: at the top of the file for a file, on the line above the function (or its JSDoc) for a function.
 * Generated files (`src/syntax/grammar-source.ts`) are left out. Reads TypeScript with the classic compiler API of
 * the TypeScript that API Extractor bundles (TypeScript 7 ships none); compiles nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const apiExtractor = createRequire(require.resolve('@microsoft/api-extractor/package.json'));
const ts = apiExtractor('typescript') as TypeScriptApi;

/** The few members of TypeScript's classic compiler API this check reads (typed here: TypeScript 7 has none). */
interface TsNode {
  readonly parent?: TsNode;
  readonly body?: unknown;
  readonly name?: { getText(source: TsNode): string };
  getStart(source?: TsNode): number;
  getEnd(): number;
  getFullStart(): number;
}
interface TypeScriptApi {
  readonly ScriptTarget: { readonly Latest: number };
  createSourceFile(name: string, text: string, target: number, parents: boolean): TsNode & SourceFile;
  forEachChild(node: TsNode, visit: (child: TsNode) => void): void;
  getLeadingCommentRanges(text: string, position: number): { pos: number; end: number }[] | undefined;
  isSourceFile(node: TsNode): boolean;
  isBlock(node: TsNode): boolean;
  isFunctionDeclaration(node: TsNode): boolean;
  isMethodDeclaration(node: TsNode): boolean;
  isArrowFunction(node: TsNode): boolean;
  isFunctionExpression(node: TsNode): boolean;
  isConstructorDeclaration(node: TsNode): boolean;
  isGetAccessorDeclaration(node: TsNode): boolean;
  isSetAccessorDeclaration(node: TsNode): boolean;
}
interface SourceFile {
  getLineAndCharacterOfPosition(position: number): { line: number };
}

const root = fileURLToPath(new URL('..', import.meta.url));
const MAX_FILE_LINES = 250;
const MAX_FUNCTION_LINES = 60;
const GENERATED = new Set(['src/syntax/grammar-source.ts']);
const REASON = /\/\/\s*size:|\/\*+\s*size:|^\s*\*\s*size:/m;

/** List every `.ts` file below `dir`, depth first. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Tell whether a node is a function body worth measuring. */
function isFunction(node: TsNode): boolean {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** The comment text right before a node (its JSDoc and line comments), where a `size:` reason is written. */
function leadingComments(text: string, node: TsNode): string {
  // An arrow or function expression is described by the statement that holds it (`const f = () => …`).
  let holder: TsNode = node;
  while (holder.parent && !ts.isSourceFile(holder.parent) && !ts.isBlock(holder.parent) && !isFunction(holder))
    holder = holder.parent;
  if (holder !== node && isFunction(holder)) holder = node;
  const ranges = ts.getLeadingCommentRanges(text, holder.getFullStart()) ?? [];
  return ranges.map((r) => text.slice(r.pos, r.end)).join('\n');
}

const problems: string[] = [];
for (const file of sources(join(root, 'src'))) {
  const name = relative(root, file).split('\\').join('/');
  if (GENERATED.has(name)) continue;
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const header = text.slice(0, 2000);
  if (lines > MAX_FILE_LINES && !REASON.test(header))
    problems.push(`${name}: ${lines} lines (over ${MAX_FILE_LINES}; say why in a 'size:' comment at the top)`);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: TsNode): void => {
    if (isFunction(node) && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const length = end - start + 1;
      if (length > MAX_FUNCTION_LINES && !REASON.test(leadingComments(text, node))) {
        const label = node.name ? node.name.getText(source) : `function at line ${start + 1}`;
        problems.push(`${name}:${start + 1}: ${label} has ${length} lines (over ${MAX_FUNCTION_LINES}; say why)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

if (problems.length > 0) {
  console.error(`check-sizes: ${problems.length} over the size rule:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exitCode = 1;
} else console.log('check-sizes: every file of src/ within 250 lines and every function within 60, or says why');
