import type { FieldsObject } from './fields-object.ts';
import { isIdentPart, isIdentStart } from './keywords.ts';

/** The list parameters listql reads; others are ignored unless the engine rejects them (`unknownParameters`). Names are case-sensitive. */
export const KNOWN_PARAMETERS = [
  'filter',
  'sort',
  'limit',
  'offset',
  'cursor',
  'count',
  'search',
  'fields',
  'facets',
] as const;

/** One of the list parameters. */
export type KnownParameter = (typeof KNOWN_PARAMETERS)[number];

const KNOWN: ReadonlySet<string> = new Set(KNOWN_PARAMETERS);

/** Tell whether a query parameter name is one listql reads. */
export function isKnownParameter(name: string): name is KnownParameter {
  return KNOWN.has(name);
}

/** The list parameters a nested to-many selection takes, written `<path>.<parameter>` (`reviews.limit`). */
export const NESTED_PARAMETERS = ['filter', 'sort', 'limit', 'offset', 'cursor', 'count'] as const;

/** One of the list parameters of a nested selection. */
export type NestedParameter = (typeof NESTED_PARAMETERS)[number];

/** A path-named parameter split at its last dot: `reviews.comments.limit` is path `reviews.comments`, `limit`. */
export interface NestedName {
  readonly path: string;
  readonly parameter: KnownParameter;
}

/**
 * Split a name of the form `<key>(.<key>)*.<parameter>` whose keys are names (`[A-Za-z_][A-Za-z0-9_]*`) and whose
 * parameter is a list parameter (also `fields`, `search` and `facets`, which parseHTTP refuses with a hint); undefined for any
 * other name, which is not listql's.
 *
 * @example nestedName('best.comments.sort') // { path: 'best.comments', parameter: 'sort' }
 */
export function nestedName(name: string): NestedName | undefined {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const parameter = name.slice(dot + 1);
  if (!isKnownParameter(parameter)) return undefined;
  let atStart = true;
  for (let i = 0; i < dot; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x2e && !atStart) atStart = true;
    else if (atStart ? isIdentStart(c) : isIdentPart(c)) atStart = false;
    else return undefined;
  }
  return atStart ? undefined : { path: name.slice(0, dot), parameter };
}

/** Tell whether a parameter name is listql's: a list parameter, or one of a nested list (`reviews.limit`). */
export function isListParameterName(name: string): boolean {
  return KNOWN.has(name) || (name.includes('.') && nestedName(name) !== undefined);
}

/** Query values after percent-decoding: one string per parameter, or every value when it was repeated. */
export type QueryValues = Readonly<Record<string, string | readonly string[]>>;

/**
 * A query written in code, the object form: list parameters only, so a misspelt key (`{ fitler: … }`) does not
 * compile, and is refused at run time too. What fromQueryString returns (any parameter name) is accepted as well.
 */
export interface ListParameters {
  readonly filter?: string | readonly string[] | undefined;
  readonly sort?: string | readonly string[] | undefined;
  readonly limit?: string | readonly string[] | undefined;
  readonly offset?: string | readonly string[] | undefined;
  readonly cursor?: string | readonly string[] | undefined;
  readonly count?: string | readonly string[] | undefined;
  readonly search?: string | readonly string[] | undefined;
  /** A list of names, or the object form `['id', { author: ['name'] }]` (docs/selection.md, In code). */
  readonly fields?: string | FieldsObject | undefined;
  /** Facets to count beside the page: `'author,year:5,tags'` (docs/facets.md). */
  readonly facets?: string | readonly string[] | undefined;
  /** The parameters of nested lists, named by their path in `fields` (`reviews.limit`, `best.sort`). */
  readonly [nested: `${string}.${NestedParameter}`]: string | readonly string[] | undefined;
}
