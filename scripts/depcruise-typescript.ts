/**
 * Preloaded by `npm run lint:deps` (`node --import ./scripts/depcruise-typescript.ts …`): dependency-cruiser parses
 * TypeScript with the classic compiler API (`import('typescript')`, versions 2 to 6), which TypeScript 7 no longer
 * ships. This hook hands dependency-cruiser the TypeScript 6 that API Extractor bundles instead, so it reads every
 * import, type-only ones included (`tsPreCompilationDeps`). The project itself still compiles with TypeScript 7.
 */
import { createRequire, registerHooks } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
/** API Extractor's own `typescript` (its exact dependency, wherever npm placed it). */
const apiExtractor = createRequire(require.resolve('@microsoft/api-extractor/package.json'));
const TYPESCRIPT = pathToFileURL(apiExtractor.resolve('typescript')).href;
const TYPESCRIPT_MANIFEST = apiExtractor.resolve('typescript/package.json');

registerHooks({
  resolve(specifier, context, nextResolve) {
    const fromCruiser = context.parentURL?.includes('/dependency-cruiser/') ?? false;
    if (fromCruiser && specifier === 'typescript') return { url: TYPESCRIPT, shortCircuit: true };
    if (fromCruiser && specifier === 'typescript/package.json') {
      return { url: pathToFileURL(TYPESCRIPT_MANIFEST).href, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
