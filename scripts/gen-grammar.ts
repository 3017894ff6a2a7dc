/**
 * `npm run gen:grammar` (also the first step of `npm run build`): write src/syntax/grammar-source.ts from
 * grammar.ohm, so the grammar ships inside the JavaScript and nothing reads a file at run time (bundles work).
 *
 * The module holds the text of grammar.ohm byte for byte and Ohm's ahead-of-time recipe of it: building the
 * grammar from the recipe skips compiling the grammar text, which is most of what Ohm costs the first time.
 * grammar.ohm stays the single source of truth; test/syntax/grammar-source.test.ts fails when the two disagree.
 *
 * `--check` writes nothing and exits non-zero when the committed module is stale (CI runs it before the build).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as ohm from 'ohm-js';

/** The grammar file, relative to the repository root. */
export const GRAMMAR_FILE = 'grammar.ohm';
/** The generated module, relative to the repository root. */
export const MODULE_FILE = 'src/syntax/grammar-source.ts';

/** Render the generated module for the text of grammar.ohm. */
export function grammarModule(source: string): string {
  return `// GENERATED from ${GRAMMAR_FILE} by \`npm run gen:grammar\` (scripts/gen-grammar.ts); \`npm run build\` runs it too.
// Do not edit: edit ${GRAMMAR_FILE}, then regenerate. test/syntax/grammar-source.test.ts checks that they agree.

/** The text of ${GRAMMAR_FILE}, byte for byte: the normative filter grammar (REST grammar v1). */
export const GRAMMAR_SOURCE: string = \`${templateText(source)}\`;

/** Return Ohm's ahead-of-time recipe of that grammar (ohm-js ${ohm.version}), for \`makeRecipe\`. */
export function grammarRecipe(): unknown {
  return ${recipeText(source)};
}
`;
}

/** Escape text for a template literal; carriage returns too, which a template literal would turn into newlines. */
function templateText(text: string): string {
  return text.replace(/[\\`]|\$\{/g, (m) => `\\${m}`).replace(/\r/g, '\\r');
}

/**
 * Print Ohm's recipe one grammar rule a line, so a grammar change shows as a readable diff. The recipe is JSON (and
 * so a JavaScript expression); its shape belongs to the ohm-js version, which package.json pins exactly.
 */
function recipeText(source: string): string {
  const grammar = ohm.grammar(source) as ohm.Grammar & { toRecipe(): string };
  const recipe = JSON.parse(grammar.toRecipe()) as unknown[];
  const rules = recipe.at(-1) as Record<string, unknown>;
  const ruleLines = Object.entries(rules).map(
    ([name, rule]) => `      ${JSON.stringify(name)}: ${JSON.stringify(rule)},`,
  );
  const head = recipe.slice(0, -1).map((part) => `    ${JSON.stringify(part)},`);
  return ['[', ...head, '    {', ...ruleLines, '    },', '  ]'].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const expected = grammarModule(readFileSync(`${root}${GRAMMAR_FILE}`, 'utf8'));
  let current: string | undefined;
  try {
    current = readFileSync(`${root}${MODULE_FILE}`, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === expected) {
    console.log(`${MODULE_FILE} is up to date with ${GRAMMAR_FILE}`);
  } else if (process.argv.includes('--check')) {
    console.error(`${MODULE_FILE} is stale: run \`npm run gen:grammar\` and commit it with ${GRAMMAR_FILE}`);
    process.exit(1);
  } else {
    writeFileSync(`${root}${MODULE_FILE}`, expected);
    console.log(`wrote ${MODULE_FILE} from ${GRAMMAR_FILE}`);
  }
}
