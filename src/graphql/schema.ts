import type { FilterOptions } from '@mikro-orm/core';
import { type GraphQLFieldConfig, GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { EngineDescription } from '../engine/describe/endpoint.ts';
import { edgesListerOf } from '../engine/page/edges.ts';
import type { AnyQueryBuilder } from '../plan/plan-query.ts';
import { executionSignals, withSignals } from './abort.ts';
import { type ConnectionArgs, connectionValue, listRequest, pagesBackward } from './arguments.ts';
import { type DocumentBudget, documentBudget, type GraphQLLimits, priceExtension } from './budget.ts';
import { type ConnectionValue, connectionArgs, connectionType } from './connection.ts';
import { toGraphQLError } from './errors.ts';
import { nodeSources, nodeType } from './node-type.ts';
import { connectionSelection } from './selection.ts';

/** One request's base scope (tenant, authorization), MikroORM filter options, and the context for `search`. */
export interface GraphQLListScope {
  readonly base: AnyQueryBuilder;
  readonly filters?: FilterOptions;
  /**
   * Passed to the engine and its search callback; `{}` when absent. The execution's abort signal (the context's
   * `signal`, its `request.signal`, graphql-js 17's `abortSignal`) is added as `signal`, beside any of its own.
   */
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
  /** Bounds on one document's listql fields together (docs/graphql.md, Cost and limits). */
  readonly limits?: GraphQLLimits;
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
  // A document is one request: every listql field of it asks this one budget before it runs anything.
  const budget = documentBudget(
    options.limits,
    options.endpoints.map((e) => e.engine),
  );
  for (const endpoint of options.endpoints) {
    if (fields[endpoint.field]) throw new TypeError(`graphqlSchema: the field ${endpoint.field} appears twice`);
    fields[endpoint.field] = connectionField(endpoint, onInternalError, budget);
  }
  if (Object.keys(fields).length === 0) throw new TypeError('graphqlSchema: give at least one endpoint');
  return new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields }) });
}

function connectionField<Context>(
  endpoint: GraphQLEndpoint<Context>,
  onInternalError: (err: unknown) => void,
  budget: DocumentBudget,
): GraphQLFieldConfig<unknown, Context, ConnectionArgs> {
  const description = endpoint.engine.describe();
  const node = nodeType(endpoint.type, description);
  const sources = nodeSources(endpoint.type, description);
  const allowCount = description.capabilities.count;
  return {
    // Nullable: a client error on one root field nulls that field only, and its siblings keep their data.
    type: connectionType(endpoint.type, node, allowCount),
    args: connectionArgs(description),
    ...(endpoint.description === undefined ? {} : { description: endpoint.description }),
    // The document budget prices this field with the very request its resolver sends.
    extensions: priceExtension(
      endpoint.engine,
      (args: ConnectionArgs, info) => listRequest(args, connectionSelection(info), sources, allowCount).query,
    ),
    async resolve(_source, args, context, info): Promise<ConnectionValue | null> {
      const signals = executionSignals(context, info);
      try {
        // Over the document's budget: the first field reports it, every other resolves to null; nothing runs.
        if (!budget.admit(info)) return null;
        const { query, backward } = listRequest(args, connectionSelection(info), sources, allowCount);
        const scope = await endpoint.scope(context);
        const scoped = endpoint.engine.from(scope.base, scope.filters === undefined ? {} : { filters: scope.filters });
        const list = edgesListerOf<Record<string, string>, object>(scoped);
        if (!list) throw new TypeError('graphqlSchema: the engine is not a listql engine');
        const result = await list(query, withSignals(scope.ctx, signals), { backward });
        return connectionValue(result, args, backward);
      } catch (err) {
        // A client that went away is not a server fault: its aborted statement is not logged.
        const report = signals.some((s) => s.aborted) ? () => {} : onInternalError;
        throw toGraphQLError(err, report, pagesBackward(args));
      }
    },
  };
}

function logInternalError(err: unknown): void {
  console.error('listql: internal error while resolving a GraphQL list', err);
}
