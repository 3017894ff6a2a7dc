/** The list parameters listql reads; every other query parameter is ignored. Names are case-sensitive. */
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
