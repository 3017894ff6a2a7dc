import type { GraphQLFieldConfig, GraphQLScalarType } from 'graphql';
import { GraphQLBoolean, GraphQLFloat, GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { EngineDescription, FieldDescription } from '../engine/describe/endpoint.ts';
import type { ItemPropertyDescription } from '../engine/describe/item.ts';

/** A list item as the engine returns it. */
type Item = Record<string, unknown>;

/** How the node fields of an endpoint are fetched: per node field, the `fields=` name that reads it. */
export interface NodeSources {
  readonly sources: ReadonlyMap<string, string>;
  /** The primary key's name: what `fields` holds when no node field is selected. */
  readonly keyName: string | undefined;
}

/** One field of a node type: its GraphQL name, the `fields=` name that fetches it, the item key that holds it. */
interface NodeField {
  readonly name: string;
  readonly source: string;
  readonly itemKey: string;
  readonly scalar: GraphQLScalarType;
  readonly nullable: boolean;
}

/**
 * Build the node type of an endpoint: one field per name `fields=` accepts (the primary key, then every selectable
 * field), typed honestly from the metadata: 64-bit integers and decimals are strings (GraphQL's Int is 32-bit and
 * Float is binary), dates and datetimes are ISO 8601 strings. A to-one relation whose key items carry is the field
 * `<relation>Id` holding that key (the relation's own name stays free for an object field).
 */
export function nodeType(typeName: string, description: EngineDescription): GraphQLObjectType {
  const fields: Record<string, GraphQLFieldConfig<Item, unknown>> = {};
  for (const { name, itemKey, scalar, nullable } of nodeFields(typeName, description))
    fields[name] = {
      type: nullable ? scalar : new GraphQLNonNull(scalar),
      resolve: scalar === GraphQLString ? (item) => asString(item[itemKey]) : (item) => item[itemKey] ?? null,
    };
  return new GraphQLObjectType<Item>({ name: typeName, fields });
}

/** Tell which `fields=` name fetches each node field of an endpoint. */
export function nodeSources(typeName: string, description: EngineDescription): NodeSources {
  const sources = new Map(nodeFields(typeName, description).map((f) => [f.name, f.source] as const));
  return { sources, keyName: description.selectable[0] };
}

function nodeFields(typeName: string, description: EngineDescription): NodeField[] {
  const keyed = new Map(description.relations.flatMap((r) => (r.itemKey === undefined ? [] : [[r.name, r.itemKey]])));
  const out: NodeField[] = [];
  for (const name of description.selectable) {
    if (keyed.has(name)) continue;
    if (name.startsWith('__'))
      throw new TypeError(`graphqlSchema: ${typeName}.${name}: names starting with '__' are reserved by GraphQL`);
    const field = description.fields.find((f) => f.name === name);
    const property = description.item.properties.find((p) => p.name === name);
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
    const property = description.item.properties.find((p) => p.name === itemKey);
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

/** A primary key that is not exposed, or a relation's key: judged by the JSON shape items give it. */
function scalarOfProperty(property: ItemPropertyDescription | undefined): GraphQLScalarType {
  if (property?.type === 'integer' && property.format === undefined) return GraphQLInt;
  if (property?.type === 'number') return GraphQLFloat;
  if (property?.type === 'boolean') return GraphQLBoolean;
  return GraphQLString;
}

/** Write a value as the string a String field carries: dates in ISO 8601, bigints and decimals in full. */
function asString(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
