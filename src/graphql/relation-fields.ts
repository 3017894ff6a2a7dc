import {
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  GraphQLInt,
  GraphQLNonNull,
  type GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import type { RelationDescription, RelationSelectDescription } from '../engine/describe/endpoint.ts';
import { type ConnectionArgs, nestedConnectionValue } from './arguments.ts';
import { connectionType, SORT_HELP } from './connection.ts';
import { type LevelDescription, type NodeTypes, nestedValue, sourceExtension } from './node-source.ts';
import { nestedTypeName } from './type-names.ts';

/** A list item as the engine returns it. */
type Item = Record<string, unknown>;

/**
 * Build the fields of a level's selectable relations: a to-one relation is a nullable object field of its nested
 * node type, a to-many relation a connection field with the list arguments of each parent's page. Their resolvers
 * only read what the root request fetched under their response key.
 */
export function relationFields(
  typeName: string,
  level: LevelDescription,
  types: NodeTypes,
  nodeType: (typeName: string, level: LevelDescription, types: NodeTypes, root: boolean) => GraphQLObjectType,
): Record<string, GraphQLFieldConfig<Item, unknown>> {
  const fields: Record<string, GraphQLFieldConfig<Item, unknown>> = {};
  for (const relation of level.relations) {
    const nested = selectableLevel(relation);
    if (!relation.select || !nested) continue;
    if (relation.name.startsWith('__'))
      throw new TypeError(
        `graphqlSchema: ${typeName}.${relation.name}: names starting with '__' are reserved by GraphQL`,
      );
    const name = nestedTypeName(typeName, relation.name);
    const node = nodeType(types.names.claim(name, `${typeName}.${relation.name}`), nested, types, false);
    const shape = { relation: relation.name };
    if (relation.cardinality === 'one') {
      fields[relation.name] = {
        type: node,
        resolve: (item, _args, _context, info) => nestedValue(item, info.path.key as string) ?? null,
        extensions: sourceExtension({ kind: 'one', ...shape }),
      };
      continue;
    }
    const allowCount = relation.select.count;
    for (const suffix of ['Connection', 'Edge']) types.names.claim(name + suffix, `${typeName}.${relation.name}`);
    fields[relation.name] = {
      type: new GraphQLNonNull(connectionType(name, node, allowCount)),
      args: nestedArgs(relation.select),
      resolve: (item, args: ConnectionArgs, _context, info) =>
        nestedConnectionValue(nestedValue(item, info.path.key as string), args),
      extensions: sourceExtension({ kind: 'many', ...shape, allowCount }),
    };
  }
  return fields;
}

/** A relation's schema as a level, when describe() gives it one (a selectable relation's). */
function selectableLevel(relation: RelationDescription): LevelDescription | undefined {
  const { schema } = relation;
  if (!schema.selectable || !schema.key || !schema.item) return undefined;
  return { ...schema, selectable: schema.selectable, key: schema.key, item: schema.item };
}

/** The arguments of a nested connection field: each parent's page, within the relation's own bounds. */
function nestedArgs(select: RelationSelectDescription): GraphQLFieldConfigArgumentMap {
  const bounds = `0 to ${select.maxLimit ?? 0}; default ${select.defaultLimit ?? 0}`;
  return {
    filter: { type: GraphQLString, description: "Filter of each parent's items, in the `filter` language." },
    sort: {
      type: GraphQLString,
      description: `${SORT_HELP}${select.defaultSort === undefined ? '' : ` Default: \`${select.defaultSort}\`.`}`,
    },
    first: { type: GraphQLInt, description: `Items per parent, ${bounds}.` },
    after: { type: GraphQLString, description: "A cursor of this parent's list: read the items after it." },
    last: { type: GraphQLInt, description: `Items per parent when paging backward, ${bounds}; not with \`first\`.` },
    before: {
      type: GraphQLString,
      description: "A cursor of this parent's list: read the items before it; with `last`.",
    },
    offset: { type: GraphQLInt, description: 'Items to skip per parent; not with `after`, `last` or `before`.' },
  };
}
