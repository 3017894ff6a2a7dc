/**
 * The reference's facets (docs/facets.md): for a generated request and a facet of the library's books, the filter
 * without the facet's own top-level conjuncts, the visible matching books, and each value's number of books, most
 * frequent first, then by value, NULL last, cut to the facet's limit. Written over the reference's own filter tree
 * and rows, never over the library's resolved tree.
 */
import { Policy, type PolicyEntry } from '../../src/policy/index.ts';
import { facetable } from '../../src/policy/options.ts';
import { evaluate, follow } from './evaluate.ts';
import type { GenFilter } from './filter.ts';
import { type EntitySpec, type FieldSpec, type RelationSpec, type Row, type Visibility, visible } from './model.ts';

/** A facet the property tests ask for: a root field, or a relation counted by its target's `id`. */
export type FacetSpec =
  | { readonly kind: 'field'; readonly name: string; readonly field: FieldSpec }
  | { readonly kind: 'relation'; readonly name: string; readonly relation: RelationSpec };

/** The facets of the library endpoint: `price` (nullable integer) and the relations whose target key is `id`. */
export function facetSpecs(root: EntitySpec, names: readonly string[]): FacetSpec[] {
  return names.map((name): FacetSpec => {
    const field = root.fields.find((f) => f.name === name);
    if (field) return { kind: 'field', name, field };
    const relation = root.relations.find((r) => r.name === name);
    if (!relation) throw new Error(`oracle: no facet ${name}`);
    return { kind: 'relation', name, relation };
  });
}

/** The policy with those facets opened: the same declarations, `facetable()` or `{ facet: true }` added. */
export function withFacets(policy: Policy, names: readonly string[]): Policy {
  const entries = policy.entries.map((entry): PolicyEntry => {
    if (!names.includes(entry.publicName)) return entry;
    return entry.kind === 'field' ? { ...entry, options: [...entry.options, facetable()] } : { ...entry, facet: {} };
  });
  return new Policy(policy.entity, entries);
}

/** The filter a facet counts under: the top-level `and` chain without the facet's own conjuncts. */
export function facetFilter(filter: GenFilter | undefined, facet: FacetSpec): GenFilter | undefined {
  if (filter === undefined) return undefined;
  const kept = conjuncts(filter).filter((c) => !ownConjunct(c, facet));
  return kept.length === 0 ? undefined : kept.reduce((left, right) => ({ kind: 'and', left, right }));
}

function conjuncts(filter: GenFilter): GenFilter[] {
  return filter.kind === 'and' ? [...conjuncts(filter.left), ...conjuncts(filter.right)] : [filter];
}

function ownConjunct(node: GenFilter, facet: FacetSpec): boolean {
  switch (node.kind) {
    case 'cmp':
    case 'in':
    case 'null':
      if (node.path.variable !== undefined) return false;
      return facet.kind === 'field'
        ? node.path.hops.length === 0 && node.path.field.name === facet.field.name
        : node.path.hops[0]?.name === facet.relation.name;
    case 'relNull':
      return facet.kind === 'relation' && node.variable === undefined && node.hops[0]?.name === facet.relation.name;
    case 'quant':
    case 'count':
      return facet.kind === 'relation' && node.from === undefined && node.hops[0]?.name === facet.relation.name;
    default:
      return false;
  }
}

/** One facet's expected buckets: `[value, count]`, most frequent first, then by value, NULL last; the top `limit`. */
export function expectedFacet(
  root: EntitySpec,
  rows: readonly Row[],
  filter: GenFilter | undefined,
  facet: FacetSpec,
  limit: number,
  visibility: Visibility,
): [number | null, number][] {
  const own = facetFilter(filter, facet);
  const ctx = { root, visibility, variables: new Map() };
  const counts = new Map<number | null, number>();
  const add = (value: number | null) => counts.set(value, (counts.get(value) ?? 0) + 1);
  for (const row of rows) {
    if (!visible(root, row, visibility) || (own && evaluate(own, row, ctx) !== true)) continue;
    if (facet.kind === 'field') add((row[facet.field.property] ?? null) as number | null);
    else if (facet.relation.cardinality === 'one') {
      const end = follow({ entity: root, row }, [facet.relation], visibility);
      add(end ? (end.row['id'] as number) : null);
    } else {
      const target = facet.relation.target();
      const related = (row[facet.relation.property] ?? []) as readonly Row[];
      // Each root row once per value, however often it holds it.
      const keys = new Set(related.filter((r) => visible(target, r, visibility)).map((r) => r['id'] as number));
      for (const key of keys) add(key);
    }
  }
  const order = (a: [number | null, number], b: [number | null, number]) =>
    b[1] - a[1] || (a[0] === null ? 1 : b[0] === null ? -1 : a[0] - b[0]);
  return [...counts].sort(order).slice(0, limit);
}
