/**
 * grammar.ohm is the single source of truth; src/syntax/grammar-source.ts carries it inside the JavaScript (its text
 * and Ohm's ahead-of-time recipe). These fail when one is edited without regenerating the other
 * (`npm run gen:grammar`), and check that the grammar built from the recipe behaves as the one compiled from the
 * text. No database is involved: nothing here varies by dialect.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ohm from 'ohm-js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GRAMMAR_FILE, grammarModule, MODULE_FILE } from '../../scripts/gen-grammar.ts';
import { FILTER_RULE, filterGrammar } from '../../src/syntax/grammar.ts';
import { GRAMMAR_SOURCE } from '../../src/syntax/grammar-source.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const grammarText = readFileSync(join(ROOT, GRAMMAR_FILE), 'utf8');

test('the generated module is exactly what grammar.ohm generates', () => {
  const committed = readFileSync(join(ROOT, MODULE_FILE), 'utf8');
  assert.ok(committed === grammarModule(grammarText), `${MODULE_FILE} is stale: run npm run gen:grammar`);
});

test('the module carries grammar.ohm byte for byte', () => {
  assert.is(Buffer.compare(Buffer.from(GRAMMAR_SOURCE), Buffer.from(grammarText)), 0);
});

test('the generator escapes what a template literal would change', () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal `${` is one of the things the generator escapes
  const tricky = 'G {\r\n  start = "`" "${x}" "\\\\" "\\x00"\r\n}\n';
  const module = grammarModule(tricky);
  const literal = /export const GRAMMAR_SOURCE: string = (`[\s\S]*?`);\n/.exec(module)?.[1];
  assert.is(new Function(`return ${literal}`)(), tricky);
});

/** Valid and invalid filters: the recipe's grammar must accept, reject and locate exactly as the compiled text. */
const INPUTS = [
  "name eq 'x'",
  "tags/any(t: t/name eq 'sale') and not (price gt 10)",
  'price in (1, 2.5, -3e2)',
  'a is not null or b eq true',
  'price gt',
  'price gt(10)',
  'a /b eq 1',
  "name eq 'unterminated",
  'a eq null',
  'and eq 1',
  '',
];

test('the grammar built from the recipe matches like the grammar compiled from grammar.ohm', () => {
  const compiled = ohm.grammar(grammarText);
  for (const input of INPUTS) {
    const a = filterGrammar().match(input, FILTER_RULE);
    const b = compiled.match(input, FILTER_RULE);
    assert.is(a.succeeded(), b.succeeded(), input);
    if (a.failed() && b.failed()) {
      assert.is(a.getRightmostFailurePosition(), b.getRightmostFailurePosition(), input);
      assert.is(a.shortMessage, b.shortMessage, input);
    }
  }
});

test.run();
