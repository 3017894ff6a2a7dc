import { ERROR_STATUS } from '../errors.ts';
import type { OpenAPIError, OpenAPIOperationExtras, OpenAPIParameter, OpenAPIResponse } from './options.ts';
import { type JsonObject, ref } from './schemas.ts';

const STATUS = /^(?:[1-5](?:\d\d|XX)|default)$/;
const CODE = /^[a-z][a-z0-9_]*$/;

/**
 * Add the application's parameters, error codes, responses, security and tags to one listql operation, the
 * document's first and then the endpoint's. Throws a TypeError for what would make the document wrong: a parameter
 * that is listql's or given twice, a response listql already writes, an error code that is listql's.
 */
export function addExtras(
  operation: JsonObject,
  shared: Omit<OpenAPIOperationExtras, 'tags' | 'security'>,
  own: OpenAPIOperationExtras,
): void {
  const parameters = operation.parameters as JsonObject[];
  for (const parameter of [...(shared.parameters ?? []), ...(own.parameters ?? [])])
    parameters.push(parameterObject(parameter, parameters));
  const responses = operation.responses as { [status: string]: JsonObject };
  const written = new Set(Object.keys(responses));
  for (const [code, error] of [...Object.entries(shared.errors ?? {}), ...Object.entries(own.errors ?? {})])
    addError(responses, code, error);
  for (const [status, response] of [...Object.entries(shared.responses ?? {}), ...Object.entries(own.responses ?? {})])
    addResponse(responses, written, status, response);
  if (own.security !== undefined) operation.security = own.security.map((r) => ({ ...r }) as JsonObject);
  if (own.tags !== undefined) operation.tags = [...own.tags];
}

/** Every error code of `errors` options that is not listql's, in order of appearance, each once. */
export function extraCodes(all: readonly (OpenAPIOperationExtras['errors'] | undefined)[]): string[] {
  const codes = new Set<string>();
  for (const errors of all) for (const code of Object.keys(errors ?? {})) codes.add(code);
  return [...codes];
}

function parameterObject(parameter: OpenAPIParameter, existing: readonly JsonObject[]): JsonObject {
  const { name, in: location } = parameter;
  if (typeof name !== 'string' || name === '') throw new TypeError('toOpenAPI: a parameter needs a name');
  if (!['header', 'query', 'cookie', 'path'].includes(location))
    throw new TypeError(`toOpenAPI: parameter ${name}: \`in\` must be header, query, cookie or path`);
  // Header names are case-insensitive; the others are not.
  const key = (n: string, l: string) => `${l}:${l === 'header' ? n.toLowerCase() : n}`;
  if (existing.some((p) => key(p.name as string, p.in as string) === key(name, location)))
    throw new TypeError(`toOpenAPI: the ${location} parameter ${name} appears twice, or is one of listql's`);
  if (location === 'path' && parameter.required !== true)
    throw new TypeError(`toOpenAPI: the path parameter ${name} must be required`);
  return {
    name,
    in: location,
    required: parameter.required ?? false,
    ...(parameter.description === undefined ? {} : { description: parameter.description }),
    ...(parameter.deprecated === undefined ? {} : { deprecated: parameter.deprecated }),
    schema: { ...(parameter.schema ?? { type: 'string' }) },
    ...(parameter.example === undefined ? {} : { example: parameter.example }),
  };
}

/** Document one more error code: under its status's ListError response, made when listql writes none there. */
function addError(responses: { [status: string]: JsonObject }, code: string, error: OpenAPIError): void {
  if (!CODE.test(code)) throw new TypeError(`toOpenAPI: error code ${code} must be lower_snake_case`);
  if (Object.hasOwn(ERROR_STATUS, code)) throw new TypeError(`toOpenAPI: ${code} is listql's own error code`);
  const { status, description } = error;
  if (!Number.isInteger(status) || status < 400 || status > 599 || status === 500)
    throw new TypeError(`toOpenAPI: error ${code}: status must be 400–599 and not 500`);
  const line = `code \`${code}\`: ${description}`;
  const existing = responses[String(status)];
  if (existing === undefined) {
    responses[String(status)] = {
      description: line,
      content: { 'application/json': { schema: ref('ListError') } },
    };
    return;
  }
  existing.description = `${existing.description as string} ${line}`;
}

function addResponse(
  responses: { [status: string]: JsonObject },
  written: ReadonlySet<string>,
  status: string,
  response: OpenAPIResponse,
): void {
  if (!STATUS.test(status)) throw new TypeError(`toOpenAPI: response ${status} is not an HTTP status, 4XX or default`);
  if (written.has(status) || Object.hasOwn(responses, status))
    throw new TypeError(`toOpenAPI: the ${status} response is written already; add error codes with \`errors\``);
  if (typeof response.description !== 'string')
    throw new TypeError(`toOpenAPI: response ${status} needs a description`);
  responses[status] = { ...response } as JsonObject;
}
