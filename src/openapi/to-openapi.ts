import type { EngineDescription } from '../engine/describe/endpoint.ts';
import { addExtras, extraCodes } from './extras.ts';
import { listOperation, wordsOf } from './operation.ts';
import {
  checkDocumentOptions,
  checkSecurity,
  type OpenAPIDocumentOptions,
  type OpenAPIInfo,
  type OpenAPIOperationExtras,
} from './options.ts';
import { internalErrorSchema, itemSchema, type JsonObject, listErrorSchema } from './schemas.ts';
import { addSelections, type ClaimSchema } from './selections.ts';

export type {
  OpenAPIContact,
  OpenAPIDocumentOptions,
  OpenAPIError,
  OpenAPIInfo,
  OpenAPILicense,
  OpenAPIOperationExtras,
  OpenAPIParameter,
  OpenAPIResponse,
  OpenAPISecurityRequirement,
  OpenAPIServer,
} from './options.ts';

/** Where the one endpoint of a single-endpoint document lives and how the document names it. */
export interface OpenAPIOptions extends OpenAPIDocumentOptions {
  /** The collection path, e.g. `/books`. */
  readonly path: string;
  /** Operation summary; defaults to `List <path>`. */
  readonly summary?: string;
  /** The operationId; defaults to one derived from the path (`/books`: `listBooks`). */
  readonly operationId?: string;
  /** The operation's tags; default: one tag named after the endpoint (`/books`: `Books`). */
  readonly tags?: readonly string[];
}

/** One list endpoint of a document: its path and its engine (or that engine's `describe()`), and what it adds. */
export type OpenAPIEndpoint = OpenAPIOperationExtras & {
  /** The collection path, e.g. `/books`. Each path appears once. */
  readonly path: string;
  /** Operation summary; defaults to `List <path>`. */
  readonly summary?: string;
  /** The operationId; defaults to one derived from the path (`/books`: `listBooks`). Each appears once. */
  readonly operationId?: string;
} & (
    | { readonly engine: { describe(): EngineDescription }; readonly description?: undefined }
    | { readonly description: EngineDescription; readonly engine?: undefined }
  );

/** An OpenAPI 3.1 document as toOpenAPI() builds it: plain JSON data. */
export interface OpenAPIDocument {
  readonly openapi: '3.1.0';
  readonly info: OpenAPIInfo;
  readonly servers: readonly JsonObject[];
  /** The default security requirement of every operation; `[]`: none unless the options say otherwise. */
  readonly security: readonly JsonObject[];
  readonly tags: readonly JsonObject[];
  readonly paths: { readonly [path: string]: { readonly get: JsonObject } };
  readonly components: {
    readonly schemas: { readonly [name: string]: JsonObject };
    readonly securitySchemes?: { readonly [name: string]: JsonObject };
  };
}

/**
 * Describe list endpoints as one OpenAPI 3.1 document: each endpoint's query parameters with their bounds, the
 * page it returns with its item schema, and the error bodies, plus what the options add (servers, security,
 * the application's own parameters, error codes and responses). It reads only the engines' public descriptions, so
 * it names nothing clients cannot already see.
 *
 * @example
 * toOpenAPI([{ path: '/books', engine: books }, { path: '/authors', engine: authors }], { title: 'Bookstore', version: '1.0.0' })
 * toOpenAPI(books.describe(), { path: '/books', title: 'Books', version: '1.0.0' }) // one endpoint
 */
export function toOpenAPI(endpoints: readonly OpenAPIEndpoint[], options: OpenAPIDocumentOptions): OpenAPIDocument;
export function toOpenAPI(description: EngineDescription, options: OpenAPIOptions): OpenAPIDocument;
export function toOpenAPI(
  input: readonly OpenAPIEndpoint[] | EngineDescription,
  options: OpenAPIDocumentOptions | OpenAPIOptions,
): OpenAPIDocument {
  const endpoints: readonly OpenAPIEndpoint[] = Array.isArray(input)
    ? input
    : [singleEndpoint(input as EngineDescription, options as OpenAPIOptions)];
  checkDocumentOptions(options);
  checkSecurity(options.security, options.securitySchemes);
  const paths: { [path: string]: { get: JsonObject } } = {};
  const schemas: { [name: string]: JsonObject } = {};
  const operationIds = new Set<string>();
  // Tag → description; a default tag describes its endpoint, a tag of the options only what tagDescriptions says.
  const tags = new Map<string, string | undefined>();
  for (const endpoint of endpoints) {
    const { path } = endpoint;
    if (typeof path !== 'string' || !path.startsWith('/')) throw new TypeError(`toOpenAPI: path must start with '/'`);
    if (paths[path]) throw new TypeError(`toOpenAPI: the path ${path} appears twice`);
    const operationId = endpoint.operationId ?? `list${wordsOf(path)}`;
    if (operationIds.has(operationId)) throw new TypeError(`toOpenAPI: the operationId ${operationId} appears twice`);
    operationIds.add(operationId);
    checkSecurity(endpoint.security, options.securitySchemes);
    const description = endpoint.engine ? endpoint.engine.describe() : endpoint.description;
    // The item schema is named after the operation: `listBooks` → `BooksItem`, a custom `getShelf` → `GetShelfItem`.
    const base = operationId.startsWith('list') && operationId.length > 4 ? operationId.slice(4) : operationId;
    const name = `${base[0]!.toUpperCase()}${base.slice(1)}`;
    addItemSchemas(schemas, description, name);
    const operation = listOperation(description, {
      operationId,
      summary: endpoint.summary ?? `List ${path}`,
      itemSchema: `${name}Item`,
      path,
      tag: name,
    });
    addExtras(operation, options, endpoint);
    for (const tag of operation.tags as string[])
      if (!tags.get(tag)) tags.set(tag, endpoint.tags === undefined ? `The list endpoint \`${path}\`.` : undefined);
    paths[path] = { get: operation };
  }
  return {
    openapi: '3.1.0',
    info: infoOf(options),
    servers: (options.servers ?? [{ url: '/' }]).map((s) => ({ ...s }) as JsonObject),
    security: (options.security ?? []).map((r) => ({ ...r }) as JsonObject),
    tags: [...tags].map(([tag, fallback]) => tagObject(tag, options.tagDescriptions, fallback)),
    paths,
    components: {
      schemas: {
        ...schemas,
        ListError: listErrorSchema(extraCodes([options.errors, ...endpoints.map((e) => e.errors)])),
        InternalError: internalErrorSchema(),
      },
      ...(options.securitySchemes === undefined ? {} : { securitySchemes: { ...options.securitySchemes } }),
    },
  };
}

/**
 * Add an endpoint's item schema, `<name>Item`, and the schemas of the objects and pages a nested selection
 * (`fields=author(name),reviews(stars)`) puts into its items; throws a TypeError when a name is taken.
 */
function addItemSchemas(schemas: { [name: string]: JsonObject }, description: EngineDescription, name: string): void {
  const claim: ClaimSchema = (schemaName, schema) => {
    if (schemas[schemaName]) throw new TypeError(`toOpenAPI: two schemas would share the name ${schemaName}`);
    schemas[schemaName] = schema;
  };
  const item = itemSchema(description);
  claim(`${name}Item`, item);
  addSelections(item.properties as JsonObject, description, name, description.limits.maxSelectionDepth, claim);
}

/** The single form's one endpoint: the endpoint fields of the options; the rest applies to the document. */
function singleEndpoint(description: EngineDescription, options: OpenAPIOptions): OpenAPIEndpoint {
  const { path, summary, operationId, tags } = options;
  return {
    path,
    description,
    ...(summary === undefined ? {} : { summary }),
    ...(operationId === undefined ? {} : { operationId }),
    ...(tags === undefined ? {} : { tags }),
  };
}

const DEFAULT_DESCRIPTION =
  'List endpoints: each reads one page of items, chosen by its `filter`, `sort`, `fields`, `limit`, `offset` and ' +
  '`cursor` query parameters.';

function infoOf(options: OpenAPIInfo): OpenAPIInfo {
  const { title, version, description = DEFAULT_DESCRIPTION, license, contact } = options;
  return {
    title,
    version,
    description,
    ...(license === undefined ? {} : { license: { ...license } }),
    ...(contact === undefined ? {} : { contact: { ...contact } }),
  };
}

function tagObject(name: string, given: OpenAPIDocumentOptions['tagDescriptions'], fallback?: string): JsonObject {
  const description = given && Object.hasOwn(given, name) ? given[name] : fallback;
  return description === undefined ? { name } : { name, description };
}
