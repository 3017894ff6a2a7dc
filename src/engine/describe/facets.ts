import { facetableNames } from '../../bind/resolve-facets.ts';
import type { BoundSchema } from '../../bind/types.ts';
import type { Dialect } from '../../dialect/index.ts';
import { describeValue, type ItemPropertyDescription } from './item.ts';

/** A name `facets=` accepts (docs/facets.md): what it counts, and the JSON shape of its values (and labels). */
export interface FacetDescription {
  readonly name: string;
  /** `field`: a root field's values; `one` / `many`: the keys of a to-one / to-many relation's related rows. */
  readonly of: 'field' | 'one' | 'many';
  /** A value as the answer writes it (a relation facet: the related row's key); nullable where a NULL bucket occurs. */
  readonly value: ItemPropertyDescription;
  /** Relation facets with a label: the nested field returned beside each key, and its JSON shape. */
  readonly label?: ItemPropertyDescription;
}

/** Describe the facets of a root policy, in policy order (facetable fields, then relations opened to facets). */
export function describeFacets(bound: BoundSchema, dialect: Dialect): FacetDescription[] {
  const platform = bound.platform;
  return facetableNames(bound).map((name): FacetDescription => {
    const field = bound.fields.get(name);
    if (field?.facetable)
      return { name, of: 'field', value: describeValue(name, field.prop, platform, dialect, field.nullable) };
    const relation = bound.relations.get(name)!;
    const facet = relation.facet!;
    const target = relation.target.meta;
    const key = target.properties[facet.keyProperty]!;
    // A to-one relation's missing (or filtered-out) row is the NULL bucket; a to-many one has none.
    const nullable = relation.cardinality === 'one';
    const label = facet.label;
    return {
      name,
      of: relation.cardinality,
      value: describeValue(name, key, platform, dialect, nullable),
      ...(label ? { label: describeValue(label.publicName, label.prop, platform, dialect, true) } : {}),
    };
  });
}
