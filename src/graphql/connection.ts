import {
  GraphQLBoolean,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import type { EngineDescription } from '../engine/describe/endpoint.ts';
import type { EdgesPage } from '../engine/page/edges.ts';

/** How the `sort` arguments are written (the `sort` query parameter's language). */
export const SORT_HELP =
  'Comma-separated sort keys; a leading `-` sorts descending, `:nullsfirst` after a key puts its NULLs first, ' +
  '`:ci` sorts it case-insensitively where the policy allows.';

/** A list item as the engine returns it. */
type Item = Record<string, unknown>;

/** What a connection field resolves to: the engine's page, its per-item cursors, and where the page stands. */
export interface ConnectionValue {
  readonly result: EdgesPage;
  /**
   * Forward: the request had an `after` cursor or a positive `offset`. Backward (`last`): the engine read a row
   * before the page.
   */
  readonly hasPrevious: boolean;
  /** Forward: the engine read a row after the page. Backward: the request had a `before` cursor. */
  readonly hasNext: boolean;
}

/** The Relay `PageInfo` type, shared by every connection of a schema. */
export const pageInfoType = new GraphQLObjectType<ConnectionValue>({
  name: 'PageInfo',
  description:
    'Where a page stands in the list: pass `endCursor` as `after` to read the next page, `startCursor` as `before` (with `last`) to read the one before.',
  fields: {
    hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean), resolve: (c) => c.hasNext },
    hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean), resolve: (c) => c.hasPrevious },
    startCursor: { type: GraphQLString, resolve: (c) => c.result.cursors[0] ?? null },
    endCursor: { type: GraphQLString, resolve: (c) => c.result.cursors.at(-1) ?? null },
  },
});

/**
 * Build the `<Type>Connection` type of an endpoint: edges, nodes, pageInfo, totalCount when count is allowed, and
 * `facets` when the endpoint has any (graphql/facets.ts).
 */
export function connectionType(
  typeName: string,
  node: GraphQLObjectType,
  allowCount: boolean,
  facets?: GraphQLObjectType,
): GraphQLObjectType {
  const edge = new GraphQLObjectType<{ node: Item; cursor: string }>({
    name: `${typeName}Edge`,
    fields: {
      node: { type: new GraphQLNonNull(node) },
      cursor: { type: new GraphQLNonNull(GraphQLString), description: 'Continues the list after this node.' },
    },
  });
  const fields: Record<string, GraphQLFieldConfig<ConnectionValue, unknown>> = {
    edges: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(edge))),
      resolve: (c) => c.result.page.items.map((item, i) => ({ node: item, cursor: c.result.cursors[i] })),
    },
    nodes: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(node))),
      resolve: (c) => c.result.page.items,
    },
    pageInfo: { type: new GraphQLNonNull(pageInfoType), resolve: (c) => c },
  };
  if (allowCount)
    fields.totalCount = {
      type: new GraphQLNonNull(GraphQLInt),
      description: 'The number of matching rows; counted only when selected.',
      resolve: (c) => c.result.page.page.count,
    };
  if (facets)
    fields.facets = {
      type: new GraphQLNonNull(facets),
      description: "Each selected facet's most frequent values, counted under the filter without its own clauses.",
      resolve: (c) => c.result.page.facets ?? {},
    };
  return new GraphQLObjectType<ConnectionValue>({ name: `${typeName}Connection`, fields });
}

/** The arguments of a connection field, with the endpoint's bounds in their descriptions. */
export function connectionArgs(description: EngineDescription): GraphQLFieldConfigArgumentMap {
  const { limits } = description;
  const args: GraphQLFieldConfigArgumentMap = {
    filter: {
      type: GraphQLString,
      description: 'Filter expression, in the same language as the `filter` query parameter.',
    },
    sort: {
      type: GraphQLString,
      description: `${SORT_HELP}${
        description.defaultSort === undefined ? '' : ` Default: \`${description.defaultSort}\`.`
      }`,
    },
    first: {
      type: GraphQLInt,
      description: `Page size, 0 to ${limits.maxLimit}; default ${limits.defaultLimit}.`,
    },
    after: { type: GraphQLString, description: 'An `endCursor` or edge `cursor` of the same query, sent unchanged.' },
    last: {
      type: GraphQLInt,
      description: `Page size when paging backward: the last rows (before \`before\`), 0 to ${limits.maxLimit}; not with \`first\`.`,
    },
    before: {
      type: GraphQLString,
      description: 'A `startCursor` or edge `cursor` of the same query: read the rows before it; with `last`.',
    },
    offset: {
      type: GraphQLInt,
      description: `Rows to skip, up to ${limits.maxOffset}; not with \`after\`, \`last\` or \`before\`.`,
    },
  };
  if (description.capabilities.search) args.search = { type: GraphQLString, description: 'Search term.' };
  return args;
}
