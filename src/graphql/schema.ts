import type { FilterOptions } from '@mikro-orm/core';
import { type GraphQLFieldConfig, GraphQLNonNull, GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { EngineDescription } from '../engine/describe.ts';
import { edgesListerOf } from '../engine/edges.ts';
import type { AnyQueryBuilder } from '../plan/apply-resolved.ts';
import { type ConnectionValue, connectionArgs, connectionType } from './connection.ts';
import { toGraphQLError } from './errors.ts';
import { nodeType } from './node-type.ts';
import { connectionSelection } from './selection.ts';

/** One request's base scope (tenant, authorization), MikroORM filter options, and the context for `search`. */
export interface GraphQLListScope {
  readonly base: AnyQueryBuilder;
  readonly filters?: FilterOptions;
  /** Passed to the engine and its search callback; `{}` when absent. */
  readonly ctx?: object;
}

/** What the schema needs from an engine: its description and a scoped engine per request. */
export interface GraphQLEngine {
  describe(): EngineDescription;
  from(base: AnyQueryBuilder, options?: { filters?: FilterOptions }): object;
}

/** One list endpoint of the schema: a connection field on `Query`. */
export interface GraphQLEndpoint<Context> {
  /** The field on `Query`, e.g. `books`. */
  readonly field: string;
  /** The node type's name, e.g. `Book` (which also names `BookConnection` and `BookEdge`). */
  readonly type: string;
  readonly engine: GraphQLEngine;
  /**
   * Build the request's scope from the GraphQL context (the tenant comes from there). A GraphQLError thrown here
   * reaches the client as it is; any other error becomes `internal_error`.
   */
  readonly scope: (context: Context) => GraphQLListScope | Promise<GraphQLListScope>;
  /** The field's description in the schema. */
  readonly description?: string;
}

/** Options of graphqlSchema(). */
export interface GraphQLSchemaOptions<Context> {
  readonly endpoints: readonly GraphQLEndpoint<Context>[];
  /** Called with the original error of every `internal_error`; defaults to `console.error`. */
  readonly onInternalError?: (err: unknown) => void;
}

/** The arguments of a connection field as graphql-js passes them. */
interface ConnectionArgs {
  readonly filter?: string | null;
  readonly sort?: string | null;
  readonly first?: number | null;
  readonly after?: string | null;
  readonly offset?: number | null;
  readonly search?: string | null;
}

/**
 * Build a GraphQL schema from list engines: per endpoint a Relay connection field on `Query`, whose `filter` and
 * `sort` arguments speak the same language as the query parameters, whose node type follows the policy (primary key
 * and selectable fields), and whose selection narrows the SQL as `fields=` does. Each request runs through the
 * engine exactly as a REST request would; nothing is planned here.
 *
 * @example
 * const schema = graphqlSchema({ endpoints: [{ field: 'books', type: 'Book', engine: books,
 *   scope: (ctx) => ({ base: ctx.em.createQueryBuilder(Book, 'b').where({ tenant: ctx.tenant }) }) }] });
 * // { books(filter: "price gt 10", first: 2) { nodes { id title } pageInfo { endCursor } } }
 */
export function graphqlSchema<Context = unknown>(options: GraphQLSchemaOptions<Context>): GraphQLSchema {
  const onInternalError = options.onInternalError ?? logInternalError;
  const fields: Record<string, GraphQLFieldConfig<unknown, Context>> = {};
  for (const endpoint of options.endpoints) {
    if (fields[endpoint.field]) throw new TypeError(`graphqlSchema: the field ${endpoint.field} appears twice`);
    fields[endpoint.field] = connectionField(endpoint, onInternalError);
  }
  if (Object.keys(fields).length === 0) throw new TypeError('graphqlSchema: give at least one endpoint');
  return new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields }) });
}

function connectionField<Context>(
  endpoint: GraphQLEndpoint<Context>,
  onInternalError: (err: unknown) => void,
): GraphQLFieldConfig<unknown, Context, ConnectionArgs> {
  const description = endpoint.engine.describe();
  const node = nodeType(endpoint.type, description);
  const allowCount = description.capabilities.count;
  // A selection with no node field still needs one name for `fields`: the primary key's, which every item carries.
  const keyName = description.selectable[0];
  return {
    type: new GraphQLNonNull(connectionType(endpoint.type, node, allowCount)),
    args: connectionArgs(description),
    ...(endpoint.description === undefined ? {} : { description: endpoint.description }),
    async resolve(_source, args, context, info): Promise<ConnectionValue> {
      try {
        const selection = connectionSelection(info);
        const query: Record<string, string> = {};
        if (args.filter != null) query.filter = args.filter;
        if (args.sort != null) query.sort = args.sort;
        if (args.first != null) query.limit = String(args.first);
        if (args.after != null) query.cursor = args.after;
        if (args.offset != null) query.offset = String(args.offset);
        if (args.search != null) query.search = args.search;
        const picked = [...selection.nodeFields];
        if (picked.length > 0 || keyName !== undefined) query.fields = picked.length > 0 ? picked.join(',') : keyName!;
        if (selection.totalCount && allowCount) query.count = 'true';
        const scope = await endpoint.scope(context);
        const scoped = endpoint.engine.from(scope.base, scope.filters === undefined ? {} : { filters: scope.filters });
        const list = edgesListerOf<Record<string, string>, object>(scoped);
        if (!list) throw new TypeError('graphqlSchema: the engine is not a listql engine');
        const result = await list(query, scope.ctx ?? {});
        return { result, hasPrevious: args.after != null || (args.offset ?? 0) > 0 };
      } catch (err) {
        throw toGraphQLError(err, onInternalError);
      }
    },
  };
}

function logInternalError(err: unknown): void {
  console.error('listql: internal error while resolving a GraphQL list', err);
}
