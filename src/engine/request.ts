import type { QueryBuilder } from '@mikro-orm/sql';
import { suggestion } from '../bind/suggest.ts';
import { invalidParameter } from '../errors.ts';
import type { ParsedQuery } from '../syntax/ast.ts';
import { withFieldsText } from '../syntax/fields-object.ts';
import { isListParameterName, KNOWN_PARAMETERS, type ListParameters, type QueryValues } from '../syntax/parameters.ts';
import { checkBracketNames, parseHTTP } from '../syntax/parse-http.ts';
import { fromQueryString } from '../syntax/query-string.ts';
import type { EngineSettings } from './config.ts';
import { maskedRequest, maskRequest, noteMasked } from './request-mask.ts';
import { noteRequest, rememberedRequest, requestText } from './request-text.ts';

export type { ListParameters };

/** A request's query: an object of list parameters, what fromQueryString() returns, URLSearchParams, or a raw query string. */
export type QueryInput = ListParameters | URLSearchParams | string;

/**
 * What from() takes besides a QueryBuilder: nothing when its entity is the policy's (any entity when the policy is
 * untyped), else a property no QueryBuilder has, whose name says why it does not compile.
 */
export type SameEntity<Q, E> =
  // Every argument inferred: `any` in place of a builder's own `never` hint would not match.
  Q extends QueryBuilder<infer T, infer _Alias, infer _Hint, infer _Context, infer _Raw, infer _Fields, infer _CTE>
    ? [T] extends [E]
      ? unknown
      : { readonly "from(): the QueryBuilder must select the entity of the engine's policy": E }
    : unknown;

/**
 * Parse a request for the engine: the request's own parameters (a query string, URLSearchParams, what
 * fromQueryString returns) follow `unknownParameters`; an object literal written in code (a plain object) is the
 * object form, whose every key must be a list parameter whatever that setting says (a misspelt key is a bug).
 */
export function parseRequest(query: QueryInput, settings: EngineSettings<any>): ParsedQuery {
  const objectForm = isObjectForm(query);
  // The same parameters again: the ParsedQuery of the first time (request-text.ts), whose stages are remembered.
  const text = requestText(query, objectForm);
  const known = text === undefined ? undefined : rememberedRequest(settings, text);
  if (known) return known;
  // The same parameters but for the filter's literals: the template's, the literals re-resolved (request-mask.ts).
  const masked = maskRequest(settings, query, objectForm);
  const template = masked && maskedRequest(settings, masked);
  if (template) return template;
  const parsed = parseUnremembered(query, settings, objectForm);
  if (text !== undefined) noteRequest(settings, text, parsed);
  if (masked) noteMasked(settings, masked, parsed);
  return parsed;
}

function parseUnremembered(query: QueryInput, settings: EngineSettings<any>, objectForm: boolean): ParsedQuery {
  // A ListParameters is QueryValues whose absent keys may be written `undefined`, which parseHTTP skips.
  const values =
    typeof query === 'string' || query instanceof URLSearchParams ? fromQueryString(query) : (query as QueryValues);
  // `filter[name]=x` first: its message says what to write instead.
  checkBracketNames(values);
  if (settings.unknownParameters === 'reject' || objectForm) rejectUnknownParameters(values);
  // The object form's `fields: ['id', { author: ['name'] }]` becomes its text, for the one parser of fields.
  const written = objectForm ? withFieldsText(values, settings.limits.maxQueryBytes) : values;
  return parseHTTP(written, { limits: settings.limits });
}

/**
 * Refuse the first parameter the endpoint does not read, naming it and the closest name it reads; `known` tells the
 * names it reads: by default the list parameters and the path-named ones of nested lists (`reviews.limit`), whose
 * paths are checked against `fields` when the request is bound.
 */
export function rejectUnknownParameters(
  query: QueryValues,
  known: (name: string) => boolean = isListParameterName,
  names: readonly string[] = KNOWN_PARAMETERS,
): void {
  for (const name of Object.keys(query)) {
    if (known(name)) continue;
    const value = query[name];
    const near = suggestion(name, names);
    const message = `unknown parameter '${name}'${near || `: this endpoint reads ${names.join(', ')}`}`;
    throw invalidParameter(name, message, typeof value === 'string' ? value : (value?.[0] ?? ''), 0);
  }
}

/** Tell an object literal (or any plain object) apart from request values, which fromQueryString builds without a prototype. */
function isObjectForm(query: QueryInput): boolean {
  return (
    typeof query === 'object' &&
    !(query instanceof URLSearchParams) &&
    Object.getPrototypeOf(query) === Object.prototype
  );
}
