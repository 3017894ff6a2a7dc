/** The filter language's keywords (DESIGN §2): exact, lower case, and never usable as public names. */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'and',
  'or',
  'not',
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'startswith',
  'endswith',
  'in',
  'is',
  'null',
  'any',
  'all',
  'true',
  'false',
  'asc',
  'desc',
]);

/** Public names must be identifiers of the grammar, or clients could never write them in a path. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
