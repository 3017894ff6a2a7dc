// The layering of src/, checked by `npm run lint` (`npm run lint:deps`). docs/architecture.md explains the layers.
// Arrows point down: a module may import its own layer and the layers below it, never a layer above.
// Known violations still being removed are listed in .dependency-cruiser-known-violations.json (--ignore-known);
// that list only shrinks: `npm run lint:deps:baseline` drops fixed entries and never adds one (shrink-only).

/** The layers from the top (front doors) to the bottom (errors, limits, dialects), each a list of path patterns. */
const LAYERS = [
  { name: 'front-door', paths: ['^src/index[.]ts$', '^src/(http|nestjs|graphql|openapi|client)/'] },
  { name: 'engine', paths: ['^src/engine/'] },
  { name: 'plan', paths: ['^src/(plan|keyset)/'] },
  { name: 'bind', paths: ['^src/bind/'] },
  { name: 'policy', paths: ['^src/policy/'] },
  { name: 'syntax', paths: ['^src/syntax/'] },
  { name: 'base', paths: ['^src/(errors|limits|bounded-map)[.]ts$', '^src/errors/', '^src/dialect/'] },
];
/** MikroORM internals live behind one door, used by the engine, plan and bind layers only. */
const ORM = '^src/orm/';
const ORM_USERS = ['^src/(engine|plan|keyset|bind)/', ORM];

const KNOWN = [...LAYERS.flatMap((layer) => layer.paths), ORM];

/** One rule per layer: nothing in it imports a layer above it. */
const layerRules = LAYERS.slice(1).map((layer, index) => ({
  name: `${layer.name}-imports-down`,
  severity: 'error',
  comment: `The ${layer.name} layer imports only itself and the layers below it.`,
  from: { path: layer.paths },
  to: { path: LAYERS.slice(0, index + 1).flatMap((above) => above.paths) },
}));

/**
 * Folder cycles known today, as [folder, next folder on the cycle]. `--ignore-known` softens module violations only
 * (dependency-cruiser 18 does not apply the baseline to folder-scope rules), so they are listed here instead. Every
 * one is also an upward import that the baseline lists; remove the pair when that import goes.
 */
const KNOWN_FOLDER_CYCLES = [];

const FOLDER = '^src/[^/]+$';
const exact = (folder) => `^${folder}$`;
const knownFrom = [...new Set(KNOWN_FOLDER_CYCLES.map(([from]) => from))];

/** No folder of src/ reaches itself through the imports of its modules (src/ itself holds both ends of the stack). */
const folderCycleRules = [
  { from: { path: FOLDER, pathNot: knownFrom.map(exact) }, to: { path: FOLDER, circular: true } },
  ...knownFrom.map((from) => ({
    from: { path: exact(from) },
    to: {
      path: FOLDER,
      pathNot: KNOWN_FOLDER_CYCLES.filter(([known]) => known === from).map(([, next]) => exact(next)),
      circular: true,
    },
  })),
].map((rule) => ({
  name: 'no-folder-cycle',
  severity: 'error',
  scope: 'folder',
  comment: 'No folder of src/ reaches itself through the imports of its modules.',
  ...rule,
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No module reaches itself through its imports (type-only imports included).',
      from: {},
      to: { circular: true },
    },
    ...folderCycleRules,
    ...layerRules,
    {
      name: 'orm-below-engine',
      severity: 'error',
      comment: 'src/orm/ (MikroORM internals) is used by the engine, plan and bind layers only.',
      from: { pathNot: ORM_USERS },
      to: { path: ORM },
    },
    {
      name: 'orm-imports-base',
      severity: 'error',
      comment: 'src/orm/ imports only the base layer (errors, limits, dialects).',
      from: { path: ORM },
      to: { path: LAYERS.slice(0, -1).flatMap((layer) => layer.paths) },
    },
    {
      name: 'every-module-has-a-layer',
      severity: 'error',
      comment: 'A new folder of src/ gets a place in LAYERS (.dependency-cruiser.cjs) and in docs/architecture.md.',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: KNOWN },
    },
    {
      name: 'client-imports-types-only',
      severity: 'error',
      comment:
        'src/client/ runs in browsers: from the rest of listql it imports types only (`import type`), never code.',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/client/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'src-stays-in-src',
      severity: 'error',
      comment: 'The library imports nothing from tests, scripts, examples or benchmarks.',
      from: { path: '^src/' },
      to: { path: '^(test|scripts|examples|bench)/' },
    },
  ],
  options: {
    includeOnly: '^src/',
    // Type-only imports are arrows too: a type from a layer above is a dependency on it.
    tsPreCompilationDeps: true,
    moduleSystems: ['es6'],
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
