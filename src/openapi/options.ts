import type { Json, JsonObject } from './schemas.ts';

/** The API's license, as OpenAPI writes it: a name and an SPDX `identifier` or a `url`. */
export interface OpenAPILicense {
  readonly name: string;
  /** An SPDX expression, e.g. `MIT` or `Apache-2.0`. */
  readonly identifier?: string;
  readonly url?: string;
}

/** Who to contact about the API. */
export interface OpenAPIContact {
  readonly name?: string;
  readonly url?: string;
  readonly email?: string;
}

/** The document's `info`. */
export interface OpenAPIInfo {
  readonly title: string;
  readonly version: string;
  /** Shown under the title by documentation tools. */
  readonly description?: string;
  readonly license?: OpenAPILicense;
  readonly contact?: OpenAPIContact;
}

/** A server the API is reached at; `url` may be relative to where the document is served. */
export interface OpenAPIServer {
  readonly url: string;
  readonly description?: string;
  readonly variables?: { readonly [name: string]: JsonObject };
}

/** A parameter the application reads besides listql's query parameters, e.g. a tenant or API-version header. */
export interface OpenAPIParameter {
  readonly name: string;
  readonly in: 'header' | 'query' | 'cookie' | 'path';
  readonly description?: string;
  /** Path parameters must say `true`. */
  readonly required?: boolean;
  readonly deprecated?: boolean;
  /** A JSON Schema of the value; defaults to `{ type: 'string' }`. */
  readonly schema?: JsonObject;
  readonly example?: Json;
}

/** An error the application answers with in listql's error body (`{ code, message }`), e.g. a bad tenant header. */
export interface OpenAPIError {
  /** The HTTP status, 400–599 but not 500 (500 answers disclose nothing). */
  readonly status: number;
  /** When the application answers with it, for the response's description. */
  readonly description: string;
}

/** A response of the application's own, e.g. `401` with its body; keyed by status in `responses`. */
export interface OpenAPIResponse {
  readonly description: string;
  readonly headers?: JsonObject;
  readonly content?: JsonObject;
}

/** A security requirement: scheme names of `securitySchemes`, each with its scopes (`[]` when it has none). */
export type OpenAPISecurityRequirement = { readonly [scheme: string]: readonly string[] };

/** What the application adds to an operation: shared by the document options and each endpoint entry. */
export interface OpenAPIOperationExtras {
  /** Parameters read besides listql's (the names `filter`, `sort`, … are listql's and are refused). */
  readonly parameters?: readonly OpenAPIParameter[];
  /** Error codes answered in listql's error body, by code: added to `ListError.code` and to the responses. */
  readonly errors?: { readonly [code: string]: OpenAPIError };
  /** Other responses, by status; a status listql already writes (200, 400, 500, and 503 with a timeout) is refused. */
  readonly responses?: { readonly [status: string]: OpenAPIResponse };
  /** Who may call the operation; replaces the document's `security`. `[]`: no credentials needed. */
  readonly security?: readonly OpenAPISecurityRequirement[];
  /** The operation's tags; default: one tag named after the endpoint (`/books`: `Books`). */
  readonly tags?: readonly string[];
}

/** Options of the whole document besides `info`. */
export interface OpenAPIDocumentOptions extends OpenAPIInfo, Omit<OpenAPIOperationExtras, 'tags'> {
  /** Where the API is reached; default `[{ url: '/' }]`: the host that serves the document. */
  readonly servers?: readonly OpenAPIServer[];
  /** `components.securitySchemes`: the schemes `security` may name. */
  readonly securitySchemes?: { readonly [name: string]: JsonObject };
  /** Descriptions of tags, by name, for documentation tools' section headings. */
  readonly tagDescriptions?: { readonly [name: string]: string };
}

/** Throw a TypeError for options no valid document can come from: a mistake of the calling code. */
export function checkDocumentOptions(options: OpenAPIDocumentOptions): void {
  if (options.servers !== undefined && options.servers.length === 0)
    throw new TypeError('toOpenAPI: servers must not be empty (leave it out for the default)');
  for (const server of options.servers ?? [])
    if (typeof server.url !== 'string' || server.url === '') throw new TypeError('toOpenAPI: a server needs a url');
}

/** Throw a TypeError when a security requirement names a scheme that `securitySchemes` does not define. */
export function checkSecurity(
  requirements: readonly OpenAPISecurityRequirement[] | undefined,
  schemes: OpenAPIDocumentOptions['securitySchemes'],
): void {
  for (const requirement of requirements ?? [])
    for (const name of Object.keys(requirement))
      if (!schemes || !Object.hasOwn(schemes, name))
        throw new TypeError(`toOpenAPI: security names the scheme ${name}, which securitySchemes does not define`);
}
