import {
  type FieldNode,
  type GraphQLFieldConfig,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLResolveInfo,
  GraphQLString,
  getArgumentValues,
  getNamedType,
  type SelectionSetNode,
} from 'graphql';
import type { EngineDescription } from '../engine/describe/endpoint.ts';
import type { FacetBucket, Facets } from '../engine/facets/values.ts';
import type { FieldCollector } from './document-walk.ts';
import { asString } from './item-value.ts';
import { scalarOfProperty } from './node-type.ts';
import { nestedTypeName, type TypeNames } from './type-names.ts';

/** The default number of values of a facet field without `limit` (the `facets` parameter's default). */
export function defaultFacetLimit(description: EngineDescription): number {
  return Math.min(10, description.limits.maxFacetValues);
}

/**
 * Build the `<Type>Facets` type of an endpoint with facets (undefined without any): one field per facet name, taking
 * `limit`, listing `<Type><Name>Facet` values (`value`, `label` for a relation facet with one, `count`), each value
 * typed as items type the field (docs/graphql.md, Facets).
 */
export function facetsType(
  typeName: string,
  description: EngineDescription,
  names: TypeNames,
): GraphQLObjectType<Facets> | undefined {
  const facets = description.facets ?? [];
  if (facets.length === 0) return undefined;
  const origin = `the facets of ${typeName}`;
  const fallback = defaultFacetLimit(description);
  const fields: Record<string, GraphQLFieldConfig<Facets, unknown, { limit?: number | null }>> = {};
  for (const facet of facets) {
    const scalar = scalarOfProperty(facet.value);
    const write = scalar === GraphQLString ? asString : (v: unknown) => v ?? null;
    const bucketFields: Record<string, GraphQLFieldConfig<FacetBucket, unknown>> = {
      value: { type: scalar, resolve: (b) => write(b.value) },
      count: { type: new GraphQLNonNull(GraphQLInt), resolve: (b) => b.count },
    };
    if (facet.label) {
      const labelScalar = scalarOfProperty(facet.label);
      const writeLabel = labelScalar === GraphQLString ? asString : (v: unknown) => v ?? null;
      bucketFields.label = { type: labelScalar, resolve: (b) => writeLabel(b.label) };
    }
    const bucket = new GraphQLObjectType<FacetBucket>({
      name: names.claim(`${nestedTypeName(typeName, facet.name)}Facet`, origin),
      fields: bucketFields,
    });
    fields[facet.name] = {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(bucket))),
      description: `The most frequent values of ${facet.name}, under the filter without its own clauses.`,
      args: {
        limit: {
          type: GraphQLInt,
          description: `How many values, 1 to ${description.limits.maxFacetValues}; default ${fallback}.`,
        },
      },
      resolve: (all, args) => (all[facet.name] ?? []).slice(0, args.limit ?? fallback),
    };
  }
  return new GraphQLObjectType<Facets>({ name: names.claim(`${typeName}Facets`, origin), fields });
}

/**
 * The `facets` parameter a connection's `facets { … }` selections (`sets`) ask for: each facet field selected (through
 * fragments and directives), once, with the largest `limit` any of its selections gives (`fallback` for one without);
 * each field then answers its own. Undefined when none is selected.
 */
export function facetsParameter(
  collect: FieldCollector,
  variables: GraphQLResolveInfo['variableValues'],
  connection: GraphQLObjectType,
  sets: readonly (SelectionSetNode | undefined)[],
  fallback: number,
): string | undefined {
  const facets = connection.getFields().facets;
  if (sets.length === 0 || !facets) return undefined;
  const type = getNamedType(facets.type) as GraphQLObjectType;
  const limits = new Map<string, number>();
  const fields = type.getFields();
  for (const nodes of collect(type, sets).values()) {
    const name = nodes[0]!.name.value;
    const field = fields[name];
    if (!field) continue;
    for (const node of nodes as readonly FieldNode[]) {
      const { limit } = getArgumentValues(field, node, variables) as { limit?: number | null };
      limits.set(name, Math.max(limits.get(name) ?? 0, limit ?? fallback));
    }
  }
  if (limits.size === 0) return undefined;
  return [...limits].map(([name, limit]) => `${name}:${limit}`).join(',');
}
