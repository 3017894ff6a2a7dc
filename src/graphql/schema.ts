import type { FilterOptions } from '@mikro-orm/core';
import { type GraphQLFieldConfig, GraphQLObjectType, type GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import type { EngineDescription } from '../engine/describe/endpoint.ts';
import { type EdgesOptions, type EdgesPage, edgesListerOf } from '../engine/page/edges.ts';
import type { AnyQueryBuilder } from '../plan/plan-query.ts';
import { executionSignals, withSignals } from './abort.ts';
import { attachAliases } from './aliases.ts';
import { type ConnectionArgs, connectionValue, pagesBackward } from './arguments.ts';
import { type DocumentBudget, documentBudget, type GraphQLLimits, priceExtension } from './budget.ts';
import { type ConnectionValue, connectionArgs, connectionType } from './connection.ts';
import { fieldCollector } from './document-walk.ts';
import { toGraphQLError } from './errors.ts';
import { defaultFacetLimit, facetsType } from './facets.ts';
import type { NodeTypes } from './node-source.ts';
import { nodeType } from './node-type.ts';
import { keyFilter, nodeField, type RelayEndpoint, relaySchema } from './relay.ts';
import { acrossExecutions } from './request-cache.ts';
import { ResolvedRoot, rootConnectionExtension } from './resolved-root.ts';
import { connectionRequest, type TreeRequest } from './selection.ts';
import { typeNames } from './type-names.ts';

/**
 * How a root field asks for its page: EdgesOptions, and `cursors: 'ends'` when no edge's cursor is selected, so that
 * an engine that knows it encodes only the first item's and the last item's cursors (all `pageInfo` can show); an
 * engine that does not encodes every item's, which serves `pageInfo` as well.
 */
type EdgeRequestOptions = { -readonly [K in keyof EdgesOptions]: EdgesOptions[K] } & { cursors?: 'all' | 'ends' };

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
  /**
   * The node type's name, e.g. `Book` (which also names `BookConnection` and `BookEdge`, and the types of its
   * selectable relations: `BookAuthor`, `BookReviewsConnection`, …).
   */
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
  /**
   * Relay's object identification: a `Node` interface that every endpoint's type implements, a global `id: ID!` on
   * every node type (a field named `id` is then `rowId`), and `node(id: ID!): Node` on `Query` (docs/graphql.md).
   */
  readonly relay?: boolean;
}

/**
 * Build a GraphQL schema from list engines: per endpoint a Relay connection field on `Query`, whose `filter` and
 * `sort` arguments speak the same language as the query parameters, whose node type follows the policy (primary key,
 * selectable fields, and selectable relations as nested objects and connections), and whose selection narrows the
 * SQL as `fields=` does. Each root field is one engine request, its whole selection included, planned and priced
 * before any SQL, exactly as a REST request would be.
 *
 * @example
 * const schema = graphqlSchema({ endpoints: [{ field: 'books', type: 'Book', engine: books,
 *   scope: (ctx) => ({ base: ctx.em.createQueryBuilder(Book, 'b').where({ tenant: ctx.tenant }) }) }] });
 * // { books(filter: "price gt 10", first: 2) { nodes { id title author { name } } pageInfo { endCursor } } }
 */
export function graphqlSchema<Context = unknown>(options: GraphQLSchemaOptions<Context>): GraphQLSchema {
  const onInternalError = options.onInternalError ?? logInternalError;
  const fields: Record<string, GraphQLFieldConfig<unknown, Context>> = {};
  // A document is one request: every listql field of it asks this one budget before it runs anything.
  const budget = documentBudget(
    options.limits,
    options.endpoints.map((e) => e.engine),
  );
  const relay = options.relay ? relaySchema() : undefined;
  const types: NodeTypes = { names: typeNames(relay !== undefined), ...(relay ? { relay: { node: relay.node } } : {}) };
  const relayEndpoints: RelayEndpoint[] = [];
  for (const endpoint of options.endpoints) {
    if (fields[endpoint.field] || (relay && endpoint.field === 'node'))
      throw new TypeError(`graphqlSchema: the field ${endpoint.field} appears twice`);
    const root = rootField(endpoint, onInternalError, budget, types);
    fields[endpoint.field] = root.field;
    if (relay) relayEndpoints.push(root.relay());
  }
  if (Object.keys(fields).length === 0) throw new TypeError('graphqlSchema: give at least one endpoint');
  if (relay) {
    const fail = (err: unknown, request: TreeRequest | undefined, context: unknown, info: GraphQLResolveInfo) =>
      failure(err, executionSignals(context, info), onInternalError, false, request);
    fields.node = nodeField(relay, relayEndpoints, budget, fail) as GraphQLFieldConfig<unknown, Context>;
  }
  return new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields }) });
}

/**
 * The connection field of an endpoint, and (for `relay`) how `node(id:)` reads one of its objects.
 *
 * size: the field config and its resolver share the endpoint's types, request translation and list call.
 */
function rootField<Context>(
  endpoint: GraphQLEndpoint<Context>,
  onInternalError: (err: unknown) => void,
  budget: DocumentBudget,
  types: NodeTypes,
): { field: GraphQLFieldConfig<unknown, Context, ConnectionArgs>; relay: () => RelayEndpoint } {
  const description = endpoint.engine.describe();
  const origin = `the endpoint ${endpoint.field}`;
  const node = nodeType(types.names.claim(endpoint.type, origin), description, types, true);
  for (const suffix of ['Connection', 'Edge']) types.names.claim(endpoint.type + suffix, origin);
  const allowCount = description.capabilities.count;
  const facetLimit = defaultFacetLimit(description);
  const requestOf = translations((args: ConnectionArgs, info: GraphQLResolveInfo) =>
    connectionRequest(
      fieldCollector(info),
      info.variableValues,
      info.fieldNodes,
      info.returnType,
      args,
      allowCount,
      facetLimit,
    ),
  );
  const list = async (request: TreeRequest, context: Context, signals: readonly AbortSignal[], start: number) => {
    const scope = await endpoint.scope(context);
    const scoped = endpoint.engine.from(scope.base, scope.filters === undefined ? {} : { filters: scope.filters });
    const lister = edgesListerOf<Record<string, string>, object>(scoped);
    if (!lister) throw new TypeError('graphqlSchema: the engine is not a listql engine');
    const { backward, backwardLists } = request;
    const options: EdgeRequestOptions = backwardLists.length === 0 ? { backward } : { backward, backwardLists };
    if (!request.edgeCursors) options.cursors = 'ends';
    // Nested pages carry the cursors the document can show: one per item for edges, else pageInfo's, else none.
    if (request.nestedCursors !== 'all') options.nestedCursors = request.nestedCursors;
    // The document's fields share one request deadline, counted from its first field's start.
    const ctx = { ...withSignals(scope.ctx, signals), requestStart: start };
    const result: EdgesPage = await lister(request.query, ctx, options);
    if (request.aliases) attachAliases(result.page.items, request.aliases);
    return result;
  };
  const field: GraphQLFieldConfig<unknown, Context, ConnectionArgs> = {
    // Nullable: a client error on one root field nulls that field only, and its siblings keep their data.
    type: connectionType(endpoint.type, node, allowCount, facetsType(endpoint.type, description, types.names)),
    args: connectionArgs(description),
    ...(endpoint.description === undefined ? {} : { description: endpoint.description }),
    // The document budget prices this field with the very request its resolver sends.
    extensions: {
      ...priceExtension(endpoint.engine, (args: ConnectionArgs, info) => requestOf(args, info).query),
      ...rootConnectionExtension(),
    },
    async resolve(source, args, context, info): Promise<ConnectionValue | null> {
      // Resolved already by the compiled path (compiled-execute.ts), which left the answer's completion to graphql-js.
      const resolved = source instanceof ResolvedRoot ? source.take(info.path.key) : undefined;
      if (resolved) return resolved as Promise<ConnectionValue | null>;
      const signals = executionSignals(context, info);
      let request: TreeRequest | undefined;
      try {
        // Over the document's budget: the first field reports it, every other resolves to null; nothing runs.
        if (!budget.admit(info)) return null;
        const sent = requestOf(args, info);
        request = sent;
        // The document's list fields run in one turn of the engines' admission; refused, only the first reports it.
        const start = budget.started(info);
        const listed = await budget.run(info, context, () => list(sent, context, signals, start));
        return listed && connectionValue(listed, args, sent.backward);
      } catch (err) {
        throw failure(err, signals, onInternalError, pagesBackward(args), request);
      }
    },
  };
  const relay = (): RelayEndpoint => ({
    type: node,
    engine: endpoint.engine,
    keySize: description.key.length,
    filterOf: keyFilter(endpoint.type, description),
    read: async (request, context, info) =>
      (await list(request, context as Context, executionSignals(context, info), budget.started(info))).page.items[0] ??
      null,
  });
  return { field, relay };
}

/**
 * Remember a root field's translation: the document budget translates it to price it, then its resolver sends it,
 * and a later execution of the same document nodes with the same variable values sends it again (acrossExecutions).
 * Keyed on the field's first node and its merged nodes, which with the variables fix the arguments and the selection.
 */
function translations<A>(
  translate: (args: A, info: GraphQLResolveInfo) => TreeRequest,
): (args: A, info: GraphQLResolveInfo) => TreeRequest {
  return acrossExecutions(
    translate,
    (info) => info.fieldNodes[0] ?? info.operation,
    (info) => info.fieldNodes,
  );
}

/** The GraphQL error of a failed root field; a client that went away is not a server fault, and is not logged. */
function failure(
  err: unknown,
  signals: readonly AbortSignal[],
  onInternalError: (err: unknown) => void,
  backward: boolean,
  request: TreeRequest | undefined,
): Error {
  const report = signals.some((s) => s.aborted) ? () => {} : onInternalError;
  return toGraphQLError(err, report, backward, request?.lists);
}

function logInternalError(err: unknown): void {
  console.error('listql: internal error while resolving a GraphQL list', err);
}
