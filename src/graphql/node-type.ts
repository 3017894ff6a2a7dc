import type { GraphQLFieldConfig, GraphQLScalarType } from 'graphql';
import { GraphQLBoolean, GraphQLFloat, GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { EngineDescription, FieldDescription } from '../engine/describe.ts';
import type { ItemPropertyDescription } from '../engine/describe-item.ts';

/** A list item as the engine returns it. */
type Item = Record<string, unknown>;

/**
 * Build the node type of an endpoint: one field per name `fields=` accepts (the primary key, then every selectable
 * field), typed honestly from the metadata: 64-bit integers and decimals are strings (GraphQL's Int is 32-bit and
 * Float is binary), dates and datetimes are ISO 8601 strings. Relations are not fields of the node.
 */
export function nodeType(typeName: string, description: EngineDescription): GraphQLObjectType {
  const fields: Record<string, GraphQLFieldConfig<Item, unknown>> = {};
  for (const name of description.selectable) {
    if (name.startsWith('__'))
      throw new TypeError(`graphqlSchema: ${typeName}.${name}: names starting with '__' are reserved by GraphQL`);
    const field = description.fields.find((f) => f.name === name);
    const property = description.item.properties.find((p) => p.name === name);
    const scalar = field ? scalarOfField(field, property) : scalarOfProperty(property);
    const nullable = field ? field.nullable : (property?.nullable ?? false);
    fields[name] = {
      type: nullable ? scalar : new GraphQLNonNull(scalar),
      resolve: scalar === GraphQLString ? (item) => asString(item[name]) : (item) => item[name] ?? null,
    };
  }
  return new GraphQLObjectType<Item>({ name: typeName, fields });
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

/** A primary key that is not exposed: judged by the JSON shape items give it. */
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
