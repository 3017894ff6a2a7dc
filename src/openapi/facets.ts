import type { EngineDescription } from '../engine/describe/endpoint.ts';
import type { FacetDescription } from '../engine/describe/facets.ts';
import { itemPropertySchema, type JsonObject } from './schemas.ts';

/** The `facets` query parameter of an endpoint with facets: its names, bounds and syntax; undefined without any. */
export function facetsParameter(description: EngineDescription): JsonObject | undefined {
  const limits = description.limits;
  const facets = description.facets ?? [];
  if (facets.length === 0) return undefined;
  const name = `(${facets.map((f) => f.name).join('|')})`;
  const term = `${name}(:[1-9][0-9]*)?`;
  return {
    name: 'facets',
    in: 'query',
    required: false,
    description:
      `Comma-separated facets to count beside the page, each at most once: ${facets.map((f) => f.name).join(', ')}. ` +
      `\`name:N\` returns its N most frequent values (at most ${limits.maxFacetValues}; without it ` +
      `${Math.min(10, limits.maxFacetValues)}). At most ${limits.maxFacets} facets. Each facet counts the rows under ` +
      "the filter without the facet's own clauses, and is charged to the cost budget like a count.",
    schema: { type: 'string', pattern: `^${term}(,${term})*$` },
  };
}

/** Add the `facets` member to a page's body schema when the endpoint has facets. */
export function withFacets(body: JsonObject, description: EngineDescription): JsonObject {
  // A description made before facets existed has no `facets` list.
  const facets = description.facets ?? [];
  if (facets.length === 0) return body;
  return { ...body, properties: { ...(body.properties as JsonObject), facets: facetsSchema(facets) } };
}

/** The `facets` member of a page's body: per facet name, its values (and labels) with their counts. */
function facetsSchema(facets: readonly FacetDescription[]): JsonObject {
  const properties: JsonObject = {};
  for (const facet of facets) {
    const bucket: JsonObject = {
      value: itemPropertySchema(facet.value),
      ...(facet.label ? { label: itemPropertySchema(facet.label) } : {}),
      count: { type: 'integer', minimum: 1 },
    };
    properties[facet.name] = {
      type: 'array',
      items: { type: 'object', required: ['value', 'count'], properties: bucket },
    };
  }
  return {
    type: 'object',
    description: 'Present when facets= is sent: the facets asked for, each most frequent value first.',
    properties,
  };
}
