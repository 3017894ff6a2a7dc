import type * as ohm from 'ohm-js';
import { grammarRecipe } from './grammar-source.ts';
import { ohmModule } from './ohm-module.ts';

let compiled: ohm.Grammar | undefined;

/**
 * Get the compiled REST grammar v1 (grammar.ohm), built on first use from the ahead-of-time recipe that ships inside
 * the JavaScript: importing listql reads no file, starts no ohm-js and compiles no grammar, and valid filters, which
 * the fast parser takes, never build it at all.
 */
export function filterGrammar(): ohm.Grammar {
  compiled ??= ohmModule().makeRecipe(grammarRecipe());
  return compiled;
}

/** The start rule for the `filter` parameter. */
export const FILTER_RULE = 'filter';
