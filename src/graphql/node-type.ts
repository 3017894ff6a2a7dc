import type { GraphQLFieldConfig, GraphQLScalarType } from 'graphql';
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import type { FieldDescription } from '../engine/describe/endpoint.ts';
import type { ItemPropertyDescription } from '../engine/describe/item.ts';
import { itemValueResolver } from './item-value.ts';
import { type LevelDescription, levelExtension, type NodeTypes, nodeLevel, sourceExtension } from './node-source.ts';
import { relationFields } from './relation-fields.ts';
import { globalIdOf } from './relay-id.ts';

/** A list item as the engine returns it. */
type Item = Record<string, unknown>;

/** One value field of a node type: its GraphQL name, the `fields=` name that fetches it, the item key that holds it. */
interface NodeField {
  readonly name: string;
  readonly source: string;
  readonly itemKey: string;
  readonly scalar: GraphQLScalarType;
  readonly nullable: boolean;
}

/**
 * Build a node type: one field per name `fields=` accepts at this level (the primary key, then every selectable
 * field), typed honestly from the metadata: 64-bit integers and decimals are strings (GraphQL's Int is 32-bit and
 * Float is binary), dates and datetimes are ISO 8601 strings. A to-one relation whose key items carry is the field
 * `<relation>Id` holding that key; a selectable relation is, under its own name, an object (to-one) or a connection
 * (to-many) of a nested node type named `<Type><Relation>`. An endpoint's type (`root`) implements Relay's `Node`
 * when the schema has it.
 */
export function nodeType(
  typeName: string,
  level: LevelDescription,
  types: NodeTypes,
  root: boolean,
): GraphQLObjectType {
  const fields: Record<string, GraphQLFieldConfig<Item, unknown>> = {};
  if (types.relay) {
    const key = level.key;
    fields.id = {
      type: new GraphQLNonNull(GraphQLID),
      description: root
        ? 'A global id: opaque and unique across the schema; `node(id:)` reads the object again.'
        : 'A global id: opaque and unique across the schema.',
      resolve: (item, _args, _context, info) =>
        globalIdOf(
          info.parentType.name,
          key.map((k) => item[k]),
        ),
      extensions: sourceExtension({ kind: 'globalId' }),
    };
  }
  for (const { name, source, itemKey, scalar, nullable } of nodeFields(typeName, level)) {
    const shown = types.relay && name === 'id' ? 'rowId' : name;
    if (fields[shown]) throw new TypeError(`graphqlSchema: ${typeName}.${shown} is both a field and the renamed id`);
    fields[shown] = {
      type: nullable ? scalar : new GraphQLNonNull(scalar),
      resolve: itemValueResolver(itemKey, scalar === GraphQLString),
      extensions: sourceExtension({ kind: 'value', source, itemKey }),
    };
  }
  for (const [name, field] of Object.entries(relationFields(typeName, level, types, nodeType))) {
    if (fields[name]) throw new TypeError(`graphqlSchema: ${typeName}.${name} is both a field and a relation`);
    fields[name] = field;
  }
  const interfaces = root && types.relay ? [types.relay.node] : [];
  return new GraphQLObjectType<Item>({
    name: typeName,
    fields,
    interfaces,
    extensions: levelExtension(nodeLevel(level)),
  });
}

function nodeFields(typeName: string, level: LevelDescription): NodeField[] {
  const keyed = new Map(level.relations.flatMap((r) => (r.itemKey === undefined ? [] : [[r.name, r.itemKey]])));
  const out: NodeField[] = [];
  for (const name of level.selectable) {
    if (keyed.has(name)) continue;
    if (name.startsWith('__'))
      throw new TypeError(`graphqlSchema: ${typeName}.${name}: names starting with '__' are reserved by GraphQL`);
    const field = level.fields.find((f) => f.name === name);
    const property = level.item.properties.find((p) => p.name === name);
    const scalar = field ? scalarOfField(field, property) : scalarOfProperty(property);
    out.push({
      name,
      source: name,
      itemKey: name,
      scalar,
      nullable: field ? field.nullable : (property?.nullable ?? false),
    });
  }
  for (const [relation, itemKey] of keyed) {
    const name = `${relation}Id`;
    if (relation.startsWith('__'))
      throw new TypeError(`graphqlSchema: ${typeName}.${name}: names starting with '__' are reserved by GraphQL`);
    // A field of that name (say a scalar `authorId` beside the relation `author`) keeps it: it holds the same key.
    if (out.some((f) => f.name === name)) continue;
    const property = level.item.properties.find((p) => p.name === itemKey);
    const nullable = property?.nullable ?? true;
    out.push({ name, source: relation, itemKey, scalar: scalarOfProperty(property), nullable });
  }
  return out;
}

function scalarOfField(field: FieldDescription, property: ItemPropertyDescription | undefined): GraphQLScalarType {
  switch (field.kind) {
    case 'integer':
      return GraphQLInt;
    case 'float':
      return GraphQLFloat;
    case 'boolean':
      return GraphQLBoolean;
    case 'enum':
      return property?.type === 'integer' ? GraphQLInt : GraphQLString;
    default:
      // string, uuid, bigint, decimal, date, datetime
      return GraphQLString;
  }
}

/** A primary key that is not exposed, or a relation's key (or a facet's value): judged by the JSON shape items give it. */
export function scalarOfProperty(property: ItemPropertyDescription | undefined): GraphQLScalarType {
  if (property?.type === 'integer' && property.format === undefined) return GraphQLInt;
  if (property?.type === 'number') return GraphQLFloat;
  if (property?.type === 'boolean') return GraphQLBoolean;
  return GraphQLString;
}
