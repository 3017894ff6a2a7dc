import { KEYWORDS } from '../syntax/keywords.ts';

/** The filter language's keywords (docs/language.md, Keywords): exact, lower case, never usable as public names. */
export const RESERVED_WORDS: ReadonlySet<string> = KEYWORDS;

/** Public names must be identifiers of the grammar, or clients could never write them in a path. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
