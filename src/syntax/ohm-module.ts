import * as ohm from 'ohm-js';

/** ohm-js as listql uses it: `makeRecipe` is exported at run time but missing from its type declarations. */
export type OhmModule = typeof ohm & { makeRecipe(recipe: unknown): ohm.Grammar };

/**
 * ohm-js, reached only through this function. ohm-js does real work when it loads (it builds its own grammars and
 * Unicode tables), which valid filters never need, so the build (scripts/build.ts) replaces this file with a
 * CommonJS require of ohm-js inside the function: in the published package ohm-js starts on the first invalid
 * filter, not at `import('listql')`. Run from the sources, as the tests do, it is an ordinary import.
 */
export function ohmModule(): OhmModule {
  return ohm as OhmModule;
}
