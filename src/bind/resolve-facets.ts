import { errorAtPosition } from '../errors.ts';
import { DEFAULT_FACET_VALUES } from '../limits.ts';
import type { FacetTerm } from '../syntax/ast.ts';
import { shown } from './resolve-path.ts';
import { suggestion } from './suggest.ts';
import type { BoundSchema, FacetTarget, ResolvedFacet } from './types.ts';

/**
 * Resolve the names of `facets` against the root policy: each must be a field exposed with `facetable()` or a relation
 * exposed with `{ facet }`; `unknown_field` (with a suggestion among the facetable names) or `field_not_facetable` at
 * the name otherwise. A facet without `:N` returns the default number of values, at most `maxFacetValues`.
 *
 * @example resolveFacets(bound, parseFacets('author,year:5')) // [author (top 10), year (top 5)]
 */
export function resolveFacets(
  bound: BoundSchema,
  terms: readonly FacetTerm[],
  maxFacetValues: number,
): readonly ResolvedFacet[] {
  const fallback = Math.min(DEFAULT_FACET_VALUES, maxFacetValues);
  return terms.map((term) => {
    const { name, span } = term.name;
    const target = facetTarget(bound, name, span);
    return { name, limit: term.limit ?? fallback, target, span };
  });
}

function facetTarget(bound: BoundSchema, name: string, span: FacetTerm['span']): FacetTarget {
  const field = bound.fields.get(name);
  if (field?.facetable) return { kind: 'field', field };
  const relation = bound.relations.get(name);
  if (relation?.facet) return { kind: 'relation', relation, facet: relation.facet };
  if (field || relation)
    throw errorAtPosition('field_not_facetable', `${shown(name)} is not open to facets`, 'facets', span);
  const usable = facetableNames(bound);
  throw errorAtPosition('unknown_field', `unknown field ${shown(name)}${suggestion(name, usable)}`, 'facets', span);
}

/** The public names `facets` accepts: facetable fields, then relations opened to facets, in policy order. */
export function facetableNames(bound: BoundSchema): string[] {
  const names: string[] = [];
  for (const f of bound.fields.values()) if (f.facetable) names.push(f.publicName);
  for (const r of bound.relations.values()) if (r.facet) names.push(r.publicName);
  return names;
}
