/**
 * `fields` with nested selections (`id,author(name),best:reviews(stars)`) and the path-named list parameters of
 * nested lists (`reviews.limit=3`), resolved against the policy level by level: which relations clients may select,
 * what each level's items carry, and each to-many level's page (filter, sort, limit, offset, cursor, count).
 */
import { ERROR_STATUS, errorAtPosition, invalidParameter, isListError, limitExceeded } from '../errors.ts';
import { publicNameOf } from '../policy/bind-field.ts';
import type { FieldSelection, NestedParameters, SortTerm } from '../syntax/ast.ts';
import { resolveFilter, resolveSortTerm } from './resolve.ts';
import { relationItemKey, resolveFields } from './resolve-fields.ts';
import { shown } from './resolve-path.ts';
import { suggestion } from './suggest.ts';
import type {
  BoundRelation,
  BoundSchema,
  ResolvedNestedList,
  ResolvedSelection,
  ResolvedSortTerm,
  SelectedField,
} from './types.ts';

/** The engine bounds nested selections are held to. */
export interface SelectionBounds {
  /** Largest `<path>.offset` (the engine's maxOffset). */
  readonly maxOffset: number;
  /** Deepest nesting of selections (`limits.maxSelectionDepth`). */
  readonly maxSelectionDepth: number;
}

/** One level's items: the flat fields they carry (implied relation keys included) and the nested selections. */
export interface ResolvedLevel {
  readonly fields: readonly SelectedField[];
  readonly selections: readonly ResolvedSelection[];
}

/** The parameters of a nested list, in the order an error names the first one given. */
const LIST_PARAMETERS = ['filter', 'sort', 'limit', 'offset', 'cursor', 'count'] as const;

interface Walk {
  readonly bounds: SelectionBounds;
  readonly nested: Readonly<Record<string, NestedParameters>>;
  /** The nested paths a to-many selection has taken. */
  readonly used: Set<string>;
}

/**
 * Resolve `fields` (names, and relations with their nested selections) and `nested` (the list parameters by
 * dotted output-key path) against a bound schema. Every nested path must name a to-many selection of `fields`;
 * throws the client's ListError (`fields` at the name's position, or the nested parameter's name) otherwise.
 *
 * @example resolveSelection(bound, parseHTTP({ fields: 'id,reviews(stars)', 'reviews.limit': '3' }), bounds)
 */
export function resolveSelection(
  bound: BoundSchema,
  fields: readonly FieldSelection[],
  nested: Readonly<Record<string, NestedParameters>> | undefined,
  bounds: SelectionBounds,
): ResolvedLevel {
  const walk: Walk = { bounds, nested: nested ?? {}, used: new Set() };
  const level = resolveLevel(walk, bound, fields, '', 1);
  for (const [path, parameters] of Object.entries(walk.nested)) {
    const first = firstParameter(parameters);
    if (first === undefined || walk.used.has(path)) continue;
    throw invalidParameter(`${path}.${first}`, `fields selects no list ${shown(path)}`);
  }
  return level;
}

/** Resolve the names of one level, in the order written, against that level's schema. */
function resolveLevel(
  walk: Walk,
  schema: BoundSchema,
  items: readonly FieldSelection[],
  prefix: string,
  depth: number,
): ResolvedLevel {
  const fields: SelectedField[] = [];
  const selections: ResolvedSelection[] = [];
  for (const item of items) {
    if (item.children === undefined) fields.push(...resolveFields(schema, [item]));
    else selections.push(resolveOne(walk, schema, item, prefix, depth));
  }
  // A to-one object held by the row (m:1, owning 1:1) is found by the key the row holds: select it, unwritten.
  for (const selection of selections) {
    const key = selection.relation.cardinality === 'one' ? relationItemKey(selection.relation) : undefined;
    if (key !== undefined && !fields.some((f) => f.property === selection.relation.property))
      fields.push({ publicName: key, property: selection.relation.property, implied: true });
  }
  checkItemKeys(schema, fields, selections, items);
  return { fields, selections };
}

/** Resolve one name written with parentheses: an exposed, selectable relation, within the depth bound. */
function resolveOne(
  walk: Walk,
  schema: BoundSchema,
  item: FieldSelection,
  prefix: string,
  depth: number,
): ResolvedSelection {
  const { maxSelectionDepth } = walk.bounds;
  if (depth > maxSelectionDepth)
    throw errorAtPosition(
      'limit_exceeded',
      `fields nests related objects more than ${maxSelectionDepth} deep (maxSelectionDepth)`,
      'fields',
      item.span,
    );
  const relation = selectableRelation(schema, item);
  const key = item.alias?.name ?? item.name;
  const path = prefix === '' ? key : `${prefix}.${key}`;
  const level = resolveLevel(walk, relation.target, item.children ?? [], path, depth + 1);
  const parameters = walk.nested[path];
  const base = { key, path, relation, fields: level.fields, children: level.selections, span: item.span };
  if (relation.cardinality === 'one') {
    const first = parameters && firstParameter(parameters);
    if (first !== undefined)
      throw invalidParameter(`${path}.${first}`, `${shown(key)} is a to-one relation: it takes no list parameters`);
    return base;
  }
  walk.used.add(path);
  return { ...base, list: resolveList(relation, path, parameters ?? {}, walk.bounds) };
}

/** The relation a name with parentheses selects, or the client's error: not a relation, unknown, not selectable. */
function selectableRelation(schema: BoundSchema, item: FieldSelection): BoundRelation {
  const relation = schema.relations.get(item.name);
  if (relation?.selection) return relation;
  const at = (code: 'invalid_relationship' | 'field_not_selectable', message: string) =>
    errorAtPosition(code, message, 'fields', item.span);
  if (relation)
    throw at(
      'field_not_selectable',
      `relation ${shown(item.name)} is not selectable: the policy does not let fields select its objects`,
    );
  if (schema.fields.has(item.name) || keyNames(schema).has(item.name))
    throw at('invalid_relationship', `${shown(item.name)} is a field, not a relation: name it without parentheses`);
  // As in filter paths, an undisclosed relation reads like one that does not exist; suggest selectable ones only.
  const usable = [...schema.relations.values()].filter((r) => r.selection).map((r) => r.publicName);
  throw at('invalid_relationship', `unknown relationship ${shown(item.name)}${suggestion(item.name, usable)}`);
}

/**
 * Resolve a to-many level's list parameters against its target policy and the relation's selection settings.
 * Errors of the nested filter and sort name their parameter (`reviews.filter`) with the position in its value.
 */
function resolveList(
  relation: BoundRelation,
  path: string,
  parameters: NestedParameters,
  bounds: SelectionBounds,
): ResolvedNestedList {
  const selection = relation.selection!;
  const target = relation.target;
  if (parameters.count === true && !selection.allowCount)
    throw invalidParameter(`${path}.count`, `count is not enabled for ${path}`);
  const { filter: written, sort: terms } = parameters;
  const filter = written && renamed(`${path}.filter`, () => resolveFilter(target, written));
  const sort: readonly ResolvedSortTerm[] = terms
    ? renamed(`${path}.sort`, () => terms.map((term) => nestedSortTerm(target, term)))
    : (selection.defaultSort ?? []);
  const limit = parameters.limit ?? selection.defaultLimit;
  if (limit > selection.maxLimit)
    throw limitExceeded(`${path}.limit must be at most ${selection.maxLimit}`, `${path}.limit`);
  const offset = parameters.offset ?? 0;
  if (offset > bounds.maxOffset)
    throw limitExceeded(`${path}.offset must be at most ${bounds.maxOffset}`, `${path}.offset`);
  return {
    sort,
    limit,
    offset,
    count: parameters.count === true,
    ...(filter === undefined ? {} : { filter }),
    ...(parameters.cursor === undefined ? {} : { cursor: parameters.cursor }),
  };
}

/**
 * Refuse a selection whose item key would overwrite a key the items carry anyway: the primary key's, or a field's
 * item key that differs from the name written (`fields=editor` carrying `writer`). The parser refuses a key written
 * twice; these it cannot see. A to-one object may take the place of its own key (`book(title)` for a key `book`).
 */
function checkItemKeys(
  schema: BoundSchema,
  fields: readonly SelectedField[],
  selections: readonly ResolvedSelection[],
  items: readonly FieldSelection[],
): void {
  const carried = new Map(keyNames(schema));
  for (const field of fields) if (!field.implied) carried.set(field.publicName, field.property);
  for (const [index, selection] of selections.entries()) {
    const property = carried.get(selection.key);
    if (property === undefined || property === selection.relation.property) continue;
    const item = items.filter((i) => i.children !== undefined)[index]!;
    throw errorAtPosition(
      'invalid_parameter',
      `item key ${shown(selection.key)} is already taken by a field items carry: choose another alias`,
      'fields',
      item.alias?.span ?? item.span,
    );
  }
}

/** The item keys of a schema's primary-key properties (every item carries them), to their property names. */
function keyNames(schema: BoundSchema): ReadonlyMap<string, string> {
  return new Map(schema.meta.primaryKeys.map((pk) => [publicNameOf(schema.meta.properties[pk]!), String(pk)]));
}

/** The first list parameter a nested entry gives, or undefined when it gives none. */
function firstParameter(parameters: NestedParameters): (typeof LIST_PARAMETERS)[number] | undefined {
  return LIST_PARAMETERS.find((name) => parameters[name] !== undefined);
}

/** Run a resolution of a nested parameter's value so that its errors name that parameter (`reviews.filter`). */
/** A nested list's sort term: a field's (an aggregate key orders no nested list: its order is a per-parent window). */
function nestedSortTerm(target: BoundSchema, term: SortTerm): ResolvedSortTerm {
  if (term.aggregate)
    throw errorAtPosition('invalid_parameter', 'an aggregate cannot sort a nested list', 'sort', term.span);
  return resolveSortTerm(target, term);
}

function renamed<T>(parameter: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (!isListError(error) || ERROR_STATUS[error.code] >= 500) throw error;
    throw errorAtPosition(error.code, error.message, parameter, error.position);
  }
}
