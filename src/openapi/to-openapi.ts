import type { FieldKind } from '../bind/types.ts';
import type { EngineDescription, FieldDescription, SchemaDescription } from '../engine/describe.ts';

/** Where the endpoint lives and how the document names it. */
export interface OpenAPIOptions {
  /** The collection path, e.g. `/books`. */
  readonly path: string;
  readonly title: string;
  readonly version: string;
  /** Operation summary; defaults to `List <path>`. */
  readonly summary?: string;
  /** The operationId; defaults to one derived from the path. */
  readonly operationId?: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/**
 * Describe a list endpoint as an OpenAPI 3.1 document: its query parameters with their bounds, the page it returns
 * and the error body. It reads only `engine.describe()`, so it names nothing clients cannot already see.
 *
 * @example toOpenAPI(books.describe(), { path: '/books', title: 'Books', version: '1.0.0' })
 */
export function toOpenAPI(description: EngineDescription, options: OpenAPIOptions): JsonObject {
  const { limits, capabilities } = description;
  const parameters: JsonObject[] = [
    param('filter', 'Filter expression (REST grammar v1). ' + filterHelp(description), {
      type: 'string',
      maxLength: limits.maxFilterBytes,
    }),
    param('sort', `Comma-separated sort keys; a leading \`-\` sorts descending. ${sortHelp(description)}`, {
      type: 'string',
    }),
    param('limit', 'Page size.', {
      type: 'integer',
      minimum: 0,
      maximum: limits.maxLimit,
      default: limits.defaultLimit,
    }),
    param('offset', 'Rows to skip. Must be omitted when `cursor` is sent.', {
      type: 'integer',
      minimum: 0,
      maximum: limits.maxOffset,
    }),
    param('cursor', 'The `page.nextCursor` of the previous page, sent unchanged, with the same sort.', {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]+$',
      maxLength: limits.maxCursorBytes,
    }),
  ];
  if (capabilities.search)
    parameters.push(
      param('search', 'Search term.', { type: 'string', minLength: 1, maxLength: limits.maxSearchBytes }),
    );
  if (capabilities.count)
    parameters.push(param('count', 'Also return the exact number of matching rows.', { type: 'boolean' }));

  const json = (schema: JsonObject): JsonObject => ({ 'application/json': { schema } });
  return {
    openapi: '3.1.0',
    info: { title: options.title, version: options.version },
    paths: {
      [options.path]: {
        get: {
          operationId: options.operationId ?? operationIdOf(options.path),
          summary: options.summary ?? `List ${options.path}`,
          parameters,
          responses: {
            '200': { description: 'One page of items.', content: json(pageSchema(description)) },
            '400': { description: 'The request is malformed or not allowed.', content: json(ref('ListError')) },
            '500': { description: 'Internal error; no detail is disclosed.', content: json(ref('InternalError')) },
          },
        },
      },
    },
    components: { schemas: { ListError: listErrorSchema(), InternalError: internalErrorSchema() } },
  };
}

function param(name: string, description: string, schema: JsonObject): JsonObject {
  return { name, in: 'query', required: false, description, schema };
}

function ref(name: string): JsonObject {
  return { $ref: `#/components/schemas/${name}` };
}

function operationIdOf(path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return `list${words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`;
}

/** `name: eq, in; other/any(…)` lines, so a client can see what the filter accepts. */
function filterHelp(description: SchemaDescription): string {
  const lines: string[] = [];
  walk(description, '', (prefix, field) => {
    if (field.filterable)
      lines.push(
        `${prefix}${field.name}: ${field.operators.map((op) => (op === 'nin' ? 'not in' : op === 'null' ? 'is null' : op)).join(', ')}`,
      );
  });
  for (const relation of description.relations)
    if (relation.cardinality === 'many') lines.push(`${relation.name}/any(v: …), ${relation.name}/all(v: …)`);
  return lines.length ? `Filterable: ${lines.join('; ')}.` : 'No field is filterable.';
}

function sortHelp(description: SchemaDescription): string {
  const keys: string[] = [];
  walk(description, '', (prefix, field) => {
    if (field.sortable) keys.push(prefix + field.name);
  });
  return keys.length ? `Sortable: ${keys.join(', ')}.` : 'No field is sortable.';
}

/** Visit every field reachable through to-one relations, with its path prefix. */
function walk(
  schema: SchemaDescription,
  prefix: string,
  visit: (prefix: string, field: FieldDescription) => void,
): void {
  for (const field of schema.fields) visit(prefix, field);
  for (const relation of schema.relations)
    if (relation.cardinality === 'one') walk(relation.schema, `${prefix}${relation.name}/`, visit);
}

function pageSchema(description: EngineDescription): JsonObject {
  const properties: JsonObject = {};
  for (const field of description.fields) properties[field.name] = valueSchema(field);
  const page: JsonObject = {
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    hasMore: { type: 'boolean' },
    nextCursor: { type: 'string', description: 'Present whenever hasMore is true.' },
  };
  if (description.capabilities.count) page.count = { type: 'integer', description: 'Present when count=true.' };
  return {
    type: 'object',
    required: ['items', 'page'],
    properties: {
      // Items carry every serialized property of the entity; the exposed fields are the ones listed here.
      items: { type: 'array', items: { type: 'object', properties, additionalProperties: true } },
      page: { type: 'object', required: ['limit', 'offset', 'hasMore'], properties: page },
    },
  };
}

const VALUE_SCHEMA: Readonly<Record<FieldKind, JsonObject>> = {
  string: { type: 'string' },
  enum: {},
  uuid: { type: 'string', format: 'uuid' },
  integer: { type: 'integer' },
  // Serialized as a string where JSON numbers would lose precision.
  bigint: { type: ['integer', 'string'] },
  decimal: { type: ['string', 'number'] },
  float: { type: 'number' },
  boolean: { type: 'boolean' },
  datetime: { type: 'string', format: 'date-time' },
  date: { type: 'string', format: 'date' },
};

function valueSchema(field: FieldDescription): JsonObject {
  const schema: JsonObject =
    field.kind === 'enum' ? { enum: [...(field.values ?? [])] } : { ...VALUE_SCHEMA[field.kind] };
  if (!field.nullable) return schema;
  if (schema.enum) return { enum: [...(schema.enum as Json[]), null] };
  const type = schema.type;
  return { ...schema, type: [...(Array.isArray(type) ? type : [type as string]), 'null'] };
}

function listErrorSchema(): JsonObject {
  return {
    type: 'object',
    required: ['code', 'message'],
    properties: {
      code: { type: 'string', description: 'Stable error code, e.g. invalid_syntax, unknown_field, invalid_cursor.' },
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

function internalErrorSchema(): JsonObject {
  return {
    type: 'object',
    required: ['code', 'message'],
    properties: { code: { const: 'internal_error' }, message: { type: 'string' } },
  };
}
