/** The list parameters listql reads; others are ignored unless the engine rejects them (`unknownParameters`). Names are case-sensitive. */
export const KNOWN_PARAMETERS = ['filter', 'sort', 'limit', 'offset', 'cursor', 'count', 'search', 'fields'] as const;

/** One of the list parameters. */
export type KnownParameter = (typeof KNOWN_PARAMETERS)[number];

const KNOWN: ReadonlySet<string> = new Set(KNOWN_PARAMETERS);

/** Tell whether a query parameter name is one listql reads. */
export function isKnownParameter(name: string): name is KnownParameter {
  return KNOWN.has(name);
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
  readonly fields?: string | readonly string[] | undefined;
}
