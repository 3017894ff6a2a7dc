import {
  type GraphQLFieldConfig,
  GraphQLID,
  GraphQLInterfaceType,
  GraphQLNonNull,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
} from 'graphql';
import type { EngineDescription } from '../engine/describe/endpoint.ts';
import { requestWorkOf } from '../engine/request-work.ts';
import { invalidParameter } from '../errors.ts';
import { type DocumentBudget, dynamicPriceExtension } from './budget.ts';
import { fieldCollector } from './document-walk.ts';
import { decodeGlobalId } from './relay-id.ts';
import { objectRequest, type TreeRequest } from './selection.ts';

/** A list item as the engine returns it. */
type Item = Record<string, unknown>;

/** One endpoint's type as `node(id:)` reads it: the type, and how to list one of its objects by key. */
export interface RelayEndpoint {
  readonly type: GraphQLObjectType;
  readonly engine: object;
  /** Read one item of the endpoint (the request's filter, limit and fields given); null when there is none. */
  readonly read: (request: TreeRequest, context: unknown, info: GraphQLResolveInfo) => Promise<Item | null>;
  /** The filter that picks the object with these key values (as text), or undefined when they cannot be keys. */
  readonly filterOf: (key: readonly string[]) => string | undefined;
  readonly keySize: number;
}

/** The Relay `Node` interface of a schema, and the types of the objects its `node` field returned. */
export interface RelaySchema {
  readonly node: GraphQLInterfaceType;
  /** Remember which type an object `node(id:)` returns is of. */
  readonly typed: WeakMap<object, string>;
}

/** Build the `Node` interface: `id: ID!`, the type of each object known from the `node` field that returned it. */
export function relaySchema(): RelaySchema {
  const typed = new WeakMap<object, string>();
  const node = new GraphQLInterfaceType({
    name: 'Node',
    description: 'An object with a global id, which `node(id:)` reads again.',
    fields: { id: { type: new GraphQLNonNull(GraphQLID) } },
    resolveType: (value) => typed.get(value as object),
  });
  return { node, typed };
}

/**
 * Build the filter of `node(id:)` for an endpoint: its key fields must be filterable with `eq` (the lookup goes
 * through the policy, as any client filter does); a TypeError says which is not.
 */
export function keyFilter(typeName: string, description: EngineDescription): RelayEndpoint['filterOf'] {
  const terms = description.key.map((name) => {
    const field = description.fields.find((f) => f.name === name);
    if (!field?.operators.includes('eq'))
      throw new TypeError(
        `graphqlSchema: relay: ${typeName}'s key ${name} must be exposed and filterable with eq, for node(id:) to read it`,
      );
    const property = description.item.properties.find((p) => p.name === name);
    const numeric = ['integer', 'bigint', 'decimal', 'float'].includes(field.kind) || property?.type === 'integer';
    return { name, numeric, boolean: field.kind === 'boolean' };
  });
  return (key) => {
    const parts: string[] = [];
    for (const [i, term] of terms.entries()) {
      const text = key[i]!;
      if (term.numeric && !/^-?\d{1,40}(\.\d{1,40})?$/.test(text)) return undefined;
      if (term.boolean && text !== 'true' && text !== 'false') return undefined;
      const literal = term.numeric || term.boolean ? text : `'${text.replaceAll("'", "''")}'`;
      parts.push(`${term.name} eq ${literal}`);
    }
    return parts.join(' and ');
  };
}

/**
 * Build `node(id: ID!): Node`: the id names the endpoint type and the key; the object is read through that
 * endpoint's engine (its scope, policy and filters), with the selection under `node` as one request, as a root
 * field is. An id that is not one is `invalid_parameter` (parameter `id`); an id of no endpoint type, or of an object
 * the scope does not see, gives null.
 */
export function nodeField(
  relay: RelaySchema,
  endpoints: readonly RelayEndpoint[],
  budget: DocumentBudget,
  fail: (err: unknown, request: TreeRequest | undefined, context: unknown, info: GraphQLResolveInfo) => Error,
): GraphQLFieldConfig<unknown, unknown, { id: string }> {
  const byName = new Map(endpoints.map((e) => [e.type.name, e] as const));
  const requestOf = (id: string, info: GraphQLResolveInfo) => {
    const decoded = decodeGlobalId(id, (name) => byName.get(name)?.keySize);
    if (!decoded) throw invalidParameter('id', 'id is not a global id of this schema');
    const endpoint = byName.get(decoded.typeName);
    if (!endpoint) return undefined;
    const filter = endpoint.filterOf(decoded.key);
    if (filter === undefined) throw invalidParameter('id', 'id is not a global id of this schema');
    const request = objectRequest(fieldCollector(info), info.variableValues, info.fieldNodes, endpoint.type);
    Object.assign(request.query, { filter, limit: '1' });
    return { endpoint, request };
  };
  return {
    type: relay.node,
    description: 'The object with this global id, or null when there is none the request may see.',
    args: { id: { type: new GraphQLNonNull(GraphQLID) } },
    extensions: dynamicPriceExtension((args, info) => {
      const found = requestOf(args.id as string, info);
      if (!found) return { subqueries: 0, statements: 0, rows: 0 };
      return requestWorkOf(found.endpoint.engine)!(found.request.query);
    }),
    async resolve(_source, args, context, info) {
      let request: TreeRequest | undefined;
      try {
        if (!budget.admit(info)) return null;
        const found = requestOf(args.id, info);
        if (!found) return null;
        const sent = found.request;
        request = sent;
        const item = await budget.run(info, context, () => found.endpoint.read(sent, context, info));
        if (item) relay.typed.set(item, found.endpoint.type.name);
        return item;
      } catch (err) {
        throw fail(err, request, context, info);
      }
    },
  };
}
