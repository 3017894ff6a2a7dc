import type { EngineDescription, FieldDescription, SchemaDescription } from '../engine/describe/endpoint.ts';
import { facetsParameter, withFacets } from './facets.ts';
import { fieldsHelp, fieldsPattern, nestedParameters, selectablePaths } from './nested.ts';
import { type JsonObject, pageSchema, ref } from './schemas.ts';

/** Names an operation carries in the document. */
export interface OperationNames {
  readonly operationId: string;
  readonly summary: string;
  /** The `components.schemas` entry its items point at. */
  readonly itemSchema: string;
  /** The collection path, for the operation's description. */
  readonly path: string;
  /** Its default tag. */
  readonly tag: string;
}

/**
 * Build the GET operation of one list endpoint: its query parameters with their bounds and its responses.
 *
 * size: one object per parameter, in the order the document lists them.
 */
export function listOperation(description: EngineDescription, names: OperationNames): JsonObject {
  const { limits, capabilities } = description;
  const paths = selectablePaths(description, limits.maxSelectionDepth);
  const parameters: JsonObject[] = [
    param('filter', `Filter expression (REST grammar v1). ${filterHelp(description)} ${budgetHelp(limits)}`, {
      type: 'string',
      maxLength: limits.maxFilterBytes,
    }),
    param('sort', `Comma-separated sort keys; ${SORT_SYNTAX} ${sortHelp(description)}`, {
      type: 'string',
      // The order used without `sort`; OpenAPI's `default` says exactly that (the primary key still follows).
      ...(description.defaultSort === undefined ? {} : { default: description.defaultSort }),
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
    param('cursor', 'A `page.nextCursor` or `page.prevCursor`, sent unchanged, with the same sort.', {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]+$',
      maxLength: limits.maxCursorBytes,
    }),
    param('fields', fieldsHelp(description, paths), {
      type: 'string',
      pattern: fieldsPattern(Math.max(0, ...paths.map((p) => p.depth))),
    }),
  ];
  if (capabilities.search)
    parameters.push(
      param('search', 'Search term.', { type: 'string', minLength: 1, maxLength: limits.maxSearchBytes }),
    );
  if (capabilities.count || capabilities.estimatedCount) parameters.push(countParameter(capabilities));
  const facets = facetsParameter(description);
  if (facets) parameters.push(facets);
  // `reviews.filter`, `reviews.limit`, …: the lists of nested to-many selections, each parent's page on its own.
  parameters.push(...nestedParameters(description, paths, { filter: filterHelp, sort: sortableHelp }));

  const json = (schema: JsonObject): JsonObject => ({ 'application/json': { schema } });
  return {
    operationId: names.operationId,
    summary: names.summary,
    description:
      `One page of ${names.path}, filtered, sorted and paged by the query parameters below; ` +
      'errors answer with a `ListError` body whose `code` says what went wrong.',
    tags: [names.tag],
    parameters,
    responses: {
      '200': {
        description: 'One page of items.',
        content: json(withFacets(pageSchema(description, ref(names.itemSchema)), description)),
      },
      '400': { description: 'The request is malformed or not allowed.', content: json(ref('ListError')) },
      '503': { description: unavailable(limits), content: json(ref('ListError')) },
      '500': { description: 'Internal error; no detail is disclosed.', content: json(ref('InternalError')) },
    },
  };
}

/** Derive `listBooks` (operation) and `Books` (schema prefix) from `/books`. */
export function wordsOf(path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

function param(name: string, description: string, schema: JsonObject): JsonObject {
  return { name, in: 'query', required: false, description, schema };
}

/** The cost budget a filter must fit (see docs/security.md). */
function budgetHelp(limits: EngineDescription['limits']): string {
  return (
    `Cost budget: at most ${limits.maxSubqueries} relationship sub-queries' worth of work (each to-one path step is one, ` +
    `each any/all 1.5; pattern tests and comparisons inside quantifiers weigh fractions of one; with count=true the ` +
    `filter counts twice; a sort through a relation and an offset add their own), nested at most ` +
    `${limits.maxSubqueryDepth} deep, and ${limits.maxInValuesTotal} ` +
    'values in all in lists together.'
  );
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
  for (const relation of description.relations) {
    if (relation.nullCheck) lines.push(`${relation.name}: is null`);
    if (relation.cardinality === 'many') lines.push(`${relation.name}/any(v: …), ${relation.name}/all(v: …)`);
    // Aggregates take eq ne gt gte lt lte, in, not in (and is null but for count), an inner filter last: `(v: …)`.
    if (relation.aggregates?.length) lines.push(`${relation.aggregates.join(', ')}: compared, optionally (v: …)`);
  }
  return lines.length ? `Filterable: ${lines.join('; ')}.` : 'No field is filterable.';
}

/** How a sort key is written, for the `sort` parameters' descriptions. */
export const SORT_SYNTAX =
  'a leading `-` sorts descending; NULLs sort last, `:nullsfirst` after a key puts them first; `:ci` sorts a key ' +
  'marked [:ci] case-insensitively.';

function sortHelp(description: EngineDescription): string {
  const fallback =
    description.defaultSort === undefined ? 'the primary key' : `${description.defaultSort}, then the primary key`;
  return `${sortableHelp(description)} Without sort: ${fallback}. At most ${description.limits.maxSortJoins} relations may be sorted through.`;
}

/**
 * `Sortable: a, b/c, d[:ci].`: the keys a list of `schema` may be sorted by, through its to-one relations too,
 * `[:ci]` after those that may also be sorted case-insensitively.
 */
function sortableHelp(schema: SchemaDescription): string {
  const keys: string[] = [];
  walk(schema, '', (prefix, field) => {
    if (field.sortable) keys.push(`${prefix}${field.name}${field.sortCaseInsensitive ? '[:ci]' : ''}`);
  });
  for (const relation of schema.relations) keys.push(...(relation.aggregates ?? []));
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

/** `count`: a boolean with allowCount alone; with an estimated count, the string enum that adds `estimated`. */
function countParameter(capabilities: EngineDescription['capabilities']): JsonObject {
  if (!capabilities.estimatedCount)
    return param('count', 'Also return the exact number of matching rows.', { type: 'boolean' });
  const values = [...(capabilities.count ? ['true'] : []), 'false', 'estimated'];
  const help = [
    ...(capabilities.count ? ['`true`: also return the exact number of matching rows (page.count).'] : []),
    "`estimated`: also return the database planner's estimate of the number of matching rows (page.estimatedCount), without counting them.",
  ].join(' ');
  return param('count', help, { type: 'string', enum: values });
}

/** What a 503 of this endpoint means: the server is busy (`overloaded`), or a time bound stopped the request. */
function unavailable(limits: EngineDescription['limits']): string {
  const times = [
    limits.statementTimeout === undefined ? '' : `a query ran longer than ${limits.statementTimeout} ms`,
    limits.requestTimeout === undefined
      ? ''
      : `the request's queries ran longer than ${limits.requestTimeout} ms together`,
  ].filter(Boolean);
  const timeout = times.length
    ? ` Code \`query_timeout\`: ${times.join(', or ')}, and it was stopped; try a cheaper request.`
    : '';
  return `Code \`overloaded\`: too many expensive requests run at once; retry after the \`Retry-After\` header's seconds.${timeout}`;
}
