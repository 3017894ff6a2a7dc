/**
 * Fuzz inputs for nested selections against a real engine: valid tree requests (tree-arbitraries.ts) and their
 * mutations — `fields` edited with the fixture's own names and punctuation, path-named parameters added with real
 * and made-up keys and any value (valid and broken filters, sorts, cursors, numbers, `estimated`), list values pushed
 * past their bounds, too-deep selections, and real nested cursors moved to another list, sort or parent.
 */
import fc from 'fast-check';
import { cursorArb, sortArb as fuzzSortArb, mutationArb, scalarArb } from './fuzz.ts';
import type { TreeRequest } from './tree-arbitraries.ts';
import { treeValues } from './tree-arbitraries.ts';

/** Names of the library's tree policy, aliases and traps, for edits of `fields` and nested parameter names. */
const KEYS = [
  'reviews',
  'tags',
  'author',
  'books',
  'profile',
  'publisher',
  'country',
  'category',
  'parent',
  'children',
  'best',
  'x',
  'count',
  'sort',
  'id',
  'title',
  'stars',
  'label',
  'name',
  '__proto__',
  'constructor',
  'hidden',
];
const PARAMETERS = ['filter', 'sort', 'limit', 'offset', 'cursor', 'count', 'fields', 'search', 'x', 'Limit'];
const FIELD_TOKENS = [...KEYS, '(', ')', ',', ':', ' ', '', '.', '/', '((', '))', 'a(b)', '\n', '-', 'é'];

/** Selections that cross a bound: deeper than the tree policy, a to-many named bare, a to-one taking a list. */
const EDGE_FIELDS = [
  'author(books(tags(books(title))))',
  'author(books(tags(books(author(name)))))',
  'reviews',
  'tags',
  'author(books)',
  'id,author(name),author(name)',
  'best:author(name),best:reviews(stars)',
  'id:reviews(stars)',
  'author(profile(author(books(title))))',
  'category(children(children(name)))',
  'tags(books(tags(label)))',
];

/** Values a nested parameter may get, valid for some parameter or for none. */
function valueArb(validFilters: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    validFilters,
    mutationArb(validFilters),
    fuzzSortArb,
    cursorArb,
    scalarArb,
    fc.constantFrom('true', 'false', 'estimated', '0', '1', '30', '31', '51', '100001', '-stars', 'stars', 'label'),
  );
}

/** Edit `fields`: delete, insert or replace a piece with a name or punctuation of the fixture. */
const fieldsEdit = fc.array(fc.tuple(fc.nat(), fc.nat(3), fc.constantFrom(...FIELD_TOKENS)), {
  minLength: 1,
  maxLength: 3,
});

function edit(text: string, edits: readonly (readonly [number, number, string])[]): string {
  return edits.reduce((t, [at, cut, token]) => {
    const i = at % (t.length + 1);
    return t.slice(0, i) + token + t.slice(Math.min(t.length, i + cut));
  }, text);
}

/** A nested parameter's name: a path of one to three keys (real, aliases, traps) and a parameter name. */
const nameArb = fc
  .tuple(fc.array(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 3 }), fc.constantFrom(...PARAMETERS))
  .map(([keys, parameter]) => `${keys.join('.')}.${parameter}`);

/**
 * Fuzzed requests as decoded query values: a valid tree, then none or some of the edits above. `cursors` are real
 * nested cursors read from the database (of other lists, sorts and parents); `filters` valid filters of a nested
 * entity.
 */
export function nestedFuzzArb(
  trees: fc.Arbitrary<TreeRequest>,
  filters: fc.Arbitrary<string>,
  cursors: readonly string[],
): fc.Arbitrary<Record<string, string>> {
  const values = valueArb(filters);
  const cursorValue = cursors.length ? fc.oneof(fc.constantFrom(...cursors), values) : values;
  const extra = fc.array(fc.tuple(nameArb, fc.oneof(values, cursorValue)), { maxLength: 4 });
  return fc
    .tuple(
      trees,
      fc.constantFrom('none', 'fields', 'edge', 'extra', 'replace', 'cursor'),
      fieldsEdit,
      fc.constantFrom(...EDGE_FIELDS),
      extra,
      fc.nat(),
      cursorValue,
    )
    .map(([t, how, edits, edge, params, pick, cursor]) => {
      const base = treeValues(t);
      const nested = Object.keys(base).filter((k) => k.includes('.'));
      switch (how) {
        case 'none':
          return base;
        case 'fields':
          return { ...base, fields: edit(base['fields'] ?? '', edits) };
        case 'edge':
          return { ...base, fields: edge };
        case 'extra':
          return { ...base, ...Object.fromEntries(params) };
        case 'replace': {
          // A nested parameter the request has, given another value.
          const name = nested[pick % Math.max(nested.length, 1)];
          const [, value] = params[0] ?? ['', '999999'];
          return name === undefined ? { ...base, 'reviews.limit': value } : { ...base, [name]: value };
        }
        default: {
          // A cursor under a list of the request (or a made-up one): another list's, sort's or parent's.
          const lists = [...new Set(nested.map((k) => k.slice(0, k.lastIndexOf('.'))))];
          const path = lists[pick % Math.max(lists.length, 1)] ?? 'reviews';
          return { ...base, [`${path}.cursor`]: cursor };
        }
      }
    });
}
