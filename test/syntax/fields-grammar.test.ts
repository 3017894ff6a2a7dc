/**
 * The hand-written `fields` scanner (src/syntax/fields.ts) against the normative grammar (grammar.ohm, rule `fields`),
 * on the hand-picked values of fields.test.ts, generated selections (nested, aliased, spaced), their mutations and
 * random token soup. For each input, under limits loose enough that depth never refuses:
 * - Ohm matches ⇔ parseFields accepts, except that parseFields also refuses an output key given twice at one level
 *   (which no context-free rule can say), at the repeat, before anything Ohm would refuse later;
 * - a syntax refusal is at Ohm's rightmost failure: the end of the longest prefix that still fits the grammar.
 * No database: nothing varies by dialect.
 */
import fc from 'fast-check';
import * as ohm from 'ohm-js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isListError, type ListError, positionAt } from '../../src/errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../../src/limits.ts';
import { parseFields } from '../../src/syntax/fields.ts';
import { filterGrammar } from '../../src/syntax/grammar.ts';
import { GRAMMAR_SOURCE } from '../../src/syntax/grammar-source.ts';
import { budget, SEED } from '../oracle/budget.ts';
import { accepted, mutatedArb, refused, soupArb, validArb } from './fields-cases.ts';

const FIELDS_RULE = 'fields';
const LOOSE: Limits = { ...DEFAULT_LIMITS, maxSelectionDepth: 1000 };
const seen = { accepted: 0, rejected: 0, duplicates: 0 };

/** What parseFields throws for `text` under loose limits, or undefined when it accepts. */
function refusal(text: string): ListError | undefined {
  try {
    parseFields(text, LOOSE);
    return undefined;
  } catch (error) {
    if (!isListError(error)) throw error;
    return error;
  }
}

/** Assert that the grammar and the scanner agree on one input (see the header). */
function agree(text: string): void {
  const match = filterGrammar().match(text, FIELDS_RULE);
  const error = refusal(text);
  const duplicate = error !== undefined && / appears twice in /.test(error.message);
  if (duplicate) seen.duplicates++;
  if (!match.failed()) {
    seen.accepted++;
    if (error !== undefined && !duplicate) {
      assert.unreachable(`Ohm accepts ${JSON.stringify(text)}; parseFields says ${error.code}: ${error.message}`);
    }
    return;
  }
  seen.rejected++;
  if (error === undefined) {
    assert.unreachable(`parseFields accepts ${JSON.stringify(text)}, which Ohm refuses`);
    return;
  }
  assert.is(error.code, 'invalid_parameter', error.message);
  const rightmost = positionAt(text, match.getRightmostFailurePosition()).offset;
  const offset = error.position?.offset ?? -1;
  if (duplicate) {
    assert.ok(offset < rightmost, `${JSON.stringify(text)}: a repeat at ${offset}, Ohm fails at ${rightmost}`);
  } else assert.is(offset, rightmost, `position of ${JSON.stringify(text)}: ${error.message}`);
}

function family<T>(name: string, arb: fc.Arbitrary<T>, runs: number, toText: (value: T) => string): void {
  test(`${budget(runs)} × ${name}`, () => {
    const before = seen.accepted + seen.rejected;
    fc.assert(
      fc.property(arb, (v) => agree(toText(v))),
      { seed: SEED, numRuns: budget(runs) },
    );
    assert.ok(seen.accepted + seen.rejected > before);
  });
}

test('the grammar built from the recipe has the fields rule of grammar.ohm', () => {
  const compiled = ohm.grammar(GRAMMAR_SOURCE);
  for (const text of ['a,b(c)', 'x:a(b)', 'x:a', 'a()', '']) {
    const a = filterGrammar().match(text, FIELDS_RULE);
    const b = compiled.match(text, FIELDS_RULE);
    assert.is(a.succeeded(), b.succeeded(), text);
  }
});

test('hand-picked values: the accepted, refused and limit rows of fields.test.ts', () => {
  for (const [input] of accepted) agree(input);
  for (const { input, code } of refused) if (code === undefined) agree(input);
  for (const input of ['x:a(b)', 'a(b(c(d(e(f(g))))))', 'desc:in(and,or)', 'a\t(\nb\r)', 'a ( b ) , c']) agree(input);
});

family('generated valid selections (nested, aliased, spaced)', validArb, 3000, (t) => t);
family('mutations of valid selections', mutatedArb, 6000, (t) => t);
family('token soup', soupArb, 4000, (t) => t);
family('any short Unicode text', fc.string({ unit: 'binary', maxLength: 12 }), 1000, (t) => t);

test('every family reached both sides, and the duplicate exception', () => {
  assert.ok(seen.accepted > 500, `${seen.accepted} accepted`);
  assert.ok(seen.rejected > 2000, `${seen.rejected} refused`);
  assert.ok(seen.duplicates > 50, `${seen.duplicates} duplicates`);
});

test.run();
