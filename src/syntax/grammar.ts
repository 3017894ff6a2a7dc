import * as ohm from 'ohm-js';
import { grammarRecipe } from './grammar-source.ts';

/** `makeRecipe` is exported by ohm-js at run time but missing from its type declarations. */
const { makeRecipe } = ohm as typeof ohm & { makeRecipe(recipe: unknown): ohm.Grammar };

let compiled: ohm.Grammar | undefined;

/**
 * Get the compiled REST grammar v1 (grammar.ohm), built on first use from the ahead-of-time recipe that ships inside
 * the JavaScript: importing listql reads no file and compiles no grammar, and valid filters, which the fast parser
 * takes, never build it at all.
 */
export function filterGrammar(): ohm.Grammar {
  compiled ??= makeRecipe(grammarRecipe());
  return compiled;
}

/** The start rule for the `filter` parameter. */
export const FILTER_RULE = 'filter';
