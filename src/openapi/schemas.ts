import type { FieldKind } from '../bind/types.ts';
import type { EngineDescription, FieldDescription } from '../engine/describe/endpoint.ts';
import type { ItemDescription, ItemPropertyDescription } from '../engine/describe/item.ts';
import { ERROR_STATUS } from '../errors.ts';

/** A JSON value, as an OpenAPI document holds them. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object: a schema, an operation, a document. */
export type JsonObject = { [key: string]: Json };

/** Point at a schema of `components.schemas`. */
export function ref(name: string): JsonObject {
  return { $ref: `#/components/schemas/${name}` };
}

/** Build the schema of one item: from the item description when present, else from the exposed fields. */
export function itemSchema(description: EngineDescription): JsonObject {
  const properties: JsonObject = {};
  const item = (description as { item?: ItemDescription }).item;
  if (item) for (const prop of item.properties) properties[prop.name] = itemPropertySchema(prop);
  else for (const field of description.fields) properties[field.name] = fieldSchema(field);
  return { type: 'object', properties };
}

/** Build the 200 body of an endpoint: `{ items, page }`, items pointing at the item schema `itemRef`. */
export function pageSchema(description: EngineDescription, itemRef: JsonObject): JsonObject {
  const page = pageProperties(
    'Send as `cursor` to get the page before this one: present on non-empty pages after an offset or a cursor (on a page read with a prevCursor, whenever hasMore is true).',
  );
  if (description.capabilities.count) page.count = { type: 'integer', description: 'Present when count=true.' };
  if (description.capabilities.estimatedCount)
    page.estimatedCount = {
      type: 'integer',
      description: "Present when count=estimated: the database planner's estimate of the number of matching rows.",
    };
  return itemsAndPage(itemRef, page);
}

/**
 * Build the page a nested to-many selection gives each parent: the top level's shape, its cursors sent back as
 * `<path>.cursor`, and `count` when the relation allows it.
 */
export function nestedPageSchema(itemRef: JsonObject, relation: string, count: boolean): JsonObject {
  const page = pageProperties(
    `Send as \`<path>.cursor\` (e.g. \`${relation}.cursor\`) to get the page before this one of the same parent.`,
  );
  page.nextCursor = {
    type: 'string',
    description:
      'Continues after the last item, present whenever hasMore is true: send it as `<path>.cursor` ' +
      `(e.g. \`${relation}.cursor\`), with the top level narrowed to this parent.`,
  };
  if (count) page.count = { type: 'integer', description: `Present when \`${relation}.count=true\`.` };
  return {
    ...itemsAndPage(itemRef, page),
    description: `One parent's page of ${relation}: the first items of its list, as \`fields\` and the \`${relation}.*\` parameters ask.`,
  };
}

function pageProperties(prevCursor: string): JsonObject {
  return {
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    hasMore: {
      type: 'boolean',
      description: 'More rows follow this page; on a page read with a prevCursor, more rows precede it.',
    },
    nextCursor: {
      type: 'string',
      description:
        'Continues after the last item: present whenever hasMore is true, and on every non-empty page read with a prevCursor.',
    },
    prevCursor: { type: 'string', description: prevCursor },
  };
}

function itemsAndPage(itemRef: JsonObject, page: JsonObject): JsonObject {
  return {
    type: 'object',
    required: ['items', 'page'],
    properties: {
      items: { type: 'array', items: itemRef },
      page: { type: 'object', required: ['limit', 'offset', 'hasMore'], properties: page },
    },
  };
}

const FORMATTED: Readonly<Record<NonNullable<ItemPropertyDescription['format']>, JsonObject>> = {
  'date-time': { type: 'string', format: 'date-time' },
  date: { type: 'string', format: 'date' },
  uuid: { type: 'string', format: 'uuid' },
  int64: { type: 'string', format: 'int64', pattern: '^-?[0-9]+$' },
  uint64: { type: 'string', format: 'uint64', pattern: '^[0-9]+$' },
  decimal: { type: 'string', format: 'decimal', pattern: '^-?[0-9]+(\\.[0-9]+)?$' },
};

/** One serialized property of an item, as a JSON schema. */
export function itemPropertySchema(prop: ItemPropertyDescription): JsonObject {
  let schema: JsonObject;
  if (prop.values) schema = { enum: [...prop.values] };
  else if (prop.format) schema = { ...FORMATTED[prop.format] };
  else schema = prop.type === 'unknown' ? {} : { type: prop.type };
  if (prop.reference) schema.description = 'The primary key of the related row.';
  return prop.nullable ? nullable(schema) : schema;
}

const FIELD_SCHEMA: Readonly<Record<FieldKind, JsonObject>> = {
  string: { type: 'string' },
  enum: {},
  uuid: { type: 'string', format: 'uuid' },
  integer: { type: 'integer' },
  bigint: { type: ['integer', 'string'] },
  decimal: { type: ['string', 'number'] },
  float: { type: 'number' },
  boolean: { type: 'boolean' },
  datetime: { type: 'string', format: 'date-time' },
  date: { type: 'string', format: 'date' },
};

/** An exposed field's value, for descriptions made before items were described. */
function fieldSchema(field: FieldDescription): JsonObject {
  const schema: JsonObject =
    field.kind === 'enum' ? { enum: [...(field.values ?? [])] } : { ...FIELD_SCHEMA[field.kind] };
  return field.nullable ? nullable(schema) : schema;
}

function nullable(schema: JsonObject): JsonObject {
  if (Array.isArray(schema.enum)) return { ...schema, enum: [...schema.enum, null] };
  const type = schema.type;
  if (type === undefined) return schema; // any value, null included
  return { ...schema, type: [...(Array.isArray(type) ? type : [type as string]), 'null'] };
}

/** Build the ListError body schema; `code` lists every code listql answers with, then the application's `extra`. */
export function listErrorSchema(extra: readonly string[] = []): JsonObject {
  return {
    type: 'object',
    required: ['code', 'message'],
    properties: {
      code: { type: 'string', enum: [...Object.keys(ERROR_STATUS), ...extra], description: 'Stable error code.' },
      message: { type: 'string' },
      parameter: { type: 'string' },
      position: {
        type: 'object',
        description: 'Where in the decoded parameter value: UTF-8 byte offset, 1-based line and byte column.',
        required: ['offset', 'line', 'column'],
        properties: { offset: { type: 'integer' }, line: { type: 'integer' }, column: { type: 'integer' } },
      },
    },
  };
}

/** Build the body schema of a 500 that discloses nothing. */
export function internalErrorSchema(): JsonObject {
  return {
    type: 'object',
    required: ['code', 'message'],
    properties: { code: { const: 'internal_error' }, message: { type: 'string' } },
  };
}
