/**
 * What the playground computes in the browser, without the server: syntax errors (listql's own parser, bundled),
 * where an error's UTF-8 byte position falls in the text, and completions from the endpoint's `describe()`.
 * Schema errors (unknown field, operator not allowed, …) come from the server, through `/explain`: the rules stay
 * in one place.
 */

import { isListError } from '../../../src/errors.ts';
import type { EngineDescription, FieldDescription, ListErrorJSON, SchemaDescription } from '../../../src/index.ts';
import { parseFacets } from '../../../src/syntax/facets.ts';
import { parseFields } from '../../../src/syntax/fields.ts';
import { parseFilter, parseSort } from '../../../src/syntax/index.ts';

/** An error to underline: its message and the characters it covers, as string indices `[start, end)`. */
export interface Located {
  readonly message: string;
  readonly start: number;
  readonly end: number;
}

/** Turn a UTF-8 byte offset into `text` into a string (UTF-16) index. */
export function indexOfByte(text: string, offset: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length && bytes < offset) {
    const code = text.codePointAt(i)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    i += code >= 0x10000 ? 2 : 1;
  }
  return i;
}

/**
 * Locate a ListError in the text of its parameter: from its byte position to the end of the word (or the one
 * character) found there; at the very end of the text the range is empty, and the page marks the end instead.
 */
export function locate(text: string, error: ListErrorJSON): Located | undefined {
  if (!error.position) return undefined;
  const start = indexOfByte(text, error.position.offset);
  const word = /^[\p{L}\p{N}_]+/u.exec(text.slice(start));
  const end = word ? start + word[0].length : Math.min(start + 1, text.length);
  return { message: error.message, start, end };
}

/** A parameter the page parses in the browser. */
export type Parsed = 'filter' | 'sort' | 'fields' | 'facets';

/**
 * Check the syntax of a `filter`, `sort`, `fields` or `facets` value as the server parses it (with the endpoint's
 * limits: `maxFacets`, `maxFacetValues`, …); undefined when it parses. Whether a name exists is the server's answer.
 */
export function syntaxError(parameter: Parsed, text: string, limits: EngineDescription['limits']): Located | undefined {
  if (text.trim() === '') return undefined;
  try {
    if (parameter === 'filter') parseFilter(text, limits);
    else if (parameter === 'sort') parseSort(text, limits);
    else if (parameter === 'facets') parseFacets(text, limits);
    else parseFields(text, limits);
    return undefined;
  } catch (err) {
    if (!isListError(err)) throw err;
    return locate(text, err.toJSON());
  }
}

/** What can be typed at the caret: the text range a choice replaces, and the choices. */
export interface Completion {
  readonly start: number;
  readonly end: number;
  readonly options: readonly string[];
}

/**
 * Suggest, for the word at the caret, field paths (through to-one relations, `r/any(` and the allowed aggregates such
 * as `r/count()` for to-many ones, and paths from the variables of enclosing `any`/`all`) or, right after a field path
 * or an aggregate, its operators; in
 * `fields`, the names selectable at the caret's level and `relation(` for each selectable relation there, inside
 * `author(…)` the author's; in `facets`, the facet names not yet listed (none after a `:`).
 */
export function complete(parameter: Parsed, text: string, caret: number, description: EngineDescription): Completion {
  const before = text.slice(0, caret);
  if (parameter === 'facets') return completeFacet(text, caret, description);
  const word = /[\p{L}\p{N}_/-]*$/u.exec(before)![0].replace(/^-/, '');
  const start = caret - word.length;
  const end = caret + /^[\p{L}\p{N}_/]*/u.exec(text.slice(caret))![0].length;
  const prefixed = (options: readonly string[]) => ({
    start,
    end,
    options: options.filter((o) => o.startsWith(word) && o !== word),
  });
  if (parameter === 'sort') return prefixed(paths(description, '', 'sort'));
  if (parameter === 'fields') return prefixed(selectionOptions(fieldsLevel(before.slice(0, start), description)));
  const variables = variablesAt(before.slice(0, start), description);
  const previous = /(\S+)\s+$/u.exec(before.slice(0, start))?.[1];
  const field = previous === undefined ? undefined : fieldAt(previous, description, variables);
  if (field) return prefixed(operatorsOf(field));
  const options = paths(description, '', 'filter');
  // After an aggregate, its comparisons: those of a number, and the NULL tests but on count() (never NULL).
  if (previous !== undefined && /\/\w+\(\S*\)$/u.test(previous) && options.includes(previous))
    return prefixed([...COMPARISONS, ...(previous.endsWith('/count()') ? [] : ['is null', 'is not null'])]);
  for (const [name, schema] of variables) options.push(...paths(schema, `${name}/`, 'filter'));
  return prefixed(options);
}

/** The facet names `describe()` lists that the value does not name yet, for the name at the caret. */
function completeFacet(text: string, caret: number, description: EngineDescription): Completion {
  const word = /[\p{L}\p{N}_]*$/u.exec(text.slice(0, caret))![0];
  const start = caret - word.length;
  const end = caret + /^[\p{L}\p{N}_]*/u.exec(text.slice(caret))![0].length;
  // After `year:`, a count is being written: nothing to offer.
  if (text[start - 1] === ':') return { start, end, options: [] };
  const others = text.slice(0, start) + text.slice(end);
  const named = new Set(others.split(',').map((term) => term.split(':')[0]!.trim()));
  const options = description.facets
    .map((f) => f.name)
    .filter((n) => !named.has(n) && n.startsWith(word) && n !== word);
  return { start, end, options };
}

/** What a selection at `level` may name: its fields and keys, then `name(` for each relation selectable there. */
function selectionOptions(level: SchemaDescription | undefined): string[] {
  if (!level) return [];
  const nested = level.relations.filter((r) => r.select !== undefined).map((r) => `${r.name}(`);
  return [...(level.selectable ?? []), ...nested];
}

/**
 * The level of `fields` the text before the caret leaves open: the root, or the selectable relation whose
 * parentheses are still open (`title,author(na` is in the author's); undefined inside a name that selects nothing.
 */
function fieldsLevel(before: string, root: SchemaDescription): SchemaDescription | undefined {
  const open: (SchemaDescription | undefined)[] = [root];
  for (const m of before.matchAll(/([\p{L}\p{N}_]+)\s*\(|\)/gu)) {
    if (m[0] === ')') {
      if (open.length > 1) open.pop();
      continue;
    }
    const relation = open.at(-1)?.relations.find((r) => r.name === m[1] && r.select !== undefined);
    open.push(relation?.schema);
  }
  return open.at(-1);
}

/** What compares an aggregate with a value in `filter`. */
const COMPARISONS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'not in'];

function operatorsOf(field: FieldDescription): string[] {
  return field.operators.flatMap((op) =>
    op === 'nin' ? ['not in'] : op === 'null' ? ['is null', 'is not null'] : [op],
  );
}

/**
 * Every path a client can write from `schema`: fields (filterable or sortable), to-one paths, to-many `any(`/`all(`
 * (in `filter`) and the aggregates allowed over a to-many relation (`reviews/count()`, in `filter` and `sort`).
 */
function paths(schema: SchemaDescription, prefix: string, parameter: 'filter' | 'sort'): string[] {
  const out: string[] = [];
  for (const f of schema.fields) if (parameter === 'sort' ? f.sortable : f.filterable) out.push(prefix + f.name);
  for (const r of schema.relations)
    if (r.cardinality === 'one') out.push(...paths(r.schema, `${prefix}${r.name}/`, parameter));
    else {
      if (parameter === 'filter') out.push(`${prefix}${r.name}/any(`, `${prefix}${r.name}/all(`);
      // The aggregates the policy allows over it, as describe() writes them (`reviews/count()`, `reviews/avg(stars)`).
      for (const call of r.aggregates ?? []) out.push(prefix + call);
    }
  return out;
}

/** The variables of the `any(`/`all(` still open before the caret, with the schema each ranges over. */
function variablesAt(before: string, root: SchemaDescription): Map<string, SchemaDescription> {
  const variables = new Map<string, SchemaDescription>();
  for (const m of before.matchAll(/([\p{L}\p{N}_/]+)\/(?:any|all)\(\s*([\p{L}_][\p{L}\p{N}_]*)\s*:/gu)) {
    const target = relationAt(m[1]!, root, variables);
    if (target) variables.set(m[2]!, target);
  }
  return variables;
}

function relationAt(
  path: string,
  root: SchemaDescription,
  variables: Map<string, SchemaDescription>,
): SchemaDescription | undefined {
  const segments = path.split('/');
  let schema = variables.get(segments[0]!) ?? root;
  if (variables.has(segments[0]!)) segments.shift();
  for (const name of segments) {
    const relation = schema.relations.find((r) => r.name === name);
    if (!relation) return undefined;
    schema = relation.schema;
  }
  return schema;
}

function fieldAt(
  path: string,
  root: SchemaDescription,
  variables: Map<string, SchemaDescription>,
): FieldDescription | undefined {
  const segments = path.split('/');
  const name = segments.pop()!;
  const schema = segments.length ? relationAt(segments.join('/'), root, variables) : root;
  return schema?.fields.find((f) => f.name === name);
}
