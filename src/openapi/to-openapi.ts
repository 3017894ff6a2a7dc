import type { EngineDescription } from '../engine/describe.ts';
import { listOperation, wordsOf } from './operation.ts';
import { internalErrorSchema, itemSchema, type JsonObject, listErrorSchema } from './schemas.ts';

/** The document's `info`. */
export interface OpenAPIInfo {
  readonly title: string;
  readonly version: string;
  /** Shown under the title by documentation tools. */
  readonly description?: string;
}

/** Where the one endpoint of a single-endpoint document lives and how the document names it. */
export interface OpenAPIOptions extends OpenAPIInfo {
  /** The collection path, e.g. `/books`. */
  readonly path: string;
  /** Operation summary; defaults to `List <path>`. */
  readonly summary?: string;
  /** The operationId; defaults to one derived from the path (`/books`: `listBooks`). */
  readonly operationId?: string;
}

/** One list endpoint of a document: its path and its engine (or that engine's `describe()`). */
export type OpenAPIEndpoint = {
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
  readonly paths: { readonly [path: string]: { readonly get: JsonObject } };
  readonly components: { readonly schemas: { readonly [name: string]: JsonObject } };
}

/**
 * Describe list endpoints as one OpenAPI 3.1 document: each endpoint's query parameters with their bounds, the
 * page it returns with its item schema, and the error bodies. It reads only the engines' public descriptions, so it
 * names nothing clients cannot already see.
 *
 * @example
 * toOpenAPI([{ path: '/books', engine: books }, { path: '/authors', engine: authors }], { title: 'Bookstore', version: '1.0.0' })
 * toOpenAPI(books.describe(), { path: '/books', title: 'Books', version: '1.0.0' }) // one endpoint
 */
export function toOpenAPI(endpoints: readonly OpenAPIEndpoint[], info: OpenAPIInfo): OpenAPIDocument;
export function toOpenAPI(description: EngineDescription, options: OpenAPIOptions): OpenAPIDocument;
export function toOpenAPI(
  input: readonly OpenAPIEndpoint[] | EngineDescription,
  options: OpenAPIInfo | OpenAPIOptions,
): OpenAPIDocument {
  const endpoints: readonly OpenAPIEndpoint[] = Array.isArray(input)
    ? input
    : [{ ...(options as OpenAPIOptions), description: input as EngineDescription }];
  const paths: { [path: string]: { get: JsonObject } } = {};
  const schemas: { [name: string]: JsonObject } = {};
  const operationIds = new Set<string>();
  for (const endpoint of endpoints) {
    const { path } = endpoint;
    if (typeof path !== 'string' || !path.startsWith('/')) throw new TypeError(`toOpenAPI: path must start with '/'`);
    if (paths[path]) throw new TypeError(`toOpenAPI: the path ${path} appears twice`);
    const operationId = endpoint.operationId ?? `list${wordsOf(path)}`;
    if (operationIds.has(operationId)) throw new TypeError(`toOpenAPI: the operationId ${operationId} appears twice`);
    operationIds.add(operationId);
    const description = endpoint.engine ? endpoint.engine.describe() : endpoint.description;
    // The item schema is named after the operation: `listBooks` → `BooksItem`, a custom `getShelf` → `GetShelfItem`.
    const base = operationId.startsWith('list') && operationId.length > 4 ? operationId.slice(4) : operationId;
    const itemName = `${base[0]!.toUpperCase()}${base.slice(1)}Item`;
    if (schemas[itemName]) throw new TypeError(`toOpenAPI: two endpoints would share the schema name ${itemName}`);
    schemas[itemName] = itemSchema(description);
    paths[path] = {
      get: listOperation(description, {
        operationId,
        summary: endpoint.summary ?? `List ${path}`,
        itemSchema: itemName,
      }),
    };
  }
  const info: OpenAPIInfo = {
    title: options.title,
    version: options.version,
    ...(options.description === undefined ? {} : { description: options.description }),
  };
  return {
    openapi: '3.1.0',
    info,
    paths,
    components: { schemas: { ...schemas, ListError: listErrorSchema(), InternalError: internalErrorSchema() } },
  };
}
