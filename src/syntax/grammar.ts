import { readFileSync } from 'node:fs';
import * as ohm from 'ohm-js';

/**
 * The compiled REST grammar v1, loaded once at module load. The same relative path resolves from `src/syntax/`
 * and from the built `dist/syntax/`, and `grammar.ohm` ships in the package.
 */
export const filterGrammar: ohm.Grammar = ohm.grammar(
  readFileSync(new URL('../../grammar.ohm', import.meta.url), 'utf8'),
);

/** The start rule for the `filter` parameter. */
export const FILTER_RULE = 'filter';
