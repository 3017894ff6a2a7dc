import { invalidSchema, isListError } from '../errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../limits.ts';
import type { SortTerm } from '../syntax/ast.ts';
import { parseSort, sortModifiers, sortTermText } from '../syntax/sort.ts';
import type { BoundRelation, BoundSchema, BoundSelection, FieldRef, ResolvedSortTerm } from './bound-schema.ts';
import type { RelationSelectOptions } from './options.ts';

/** A to-many relation's list options when the policy gives none (docs/policy.md, Selecting related objects). */
export const SELECT_DEFAULTS = Object.freeze({ maxLimit: 50, defaultLimit: 10, allowCount: false });

const LIST_OPTIONS: readonly (keyof RelationSelectOptions)[] = [
  'maxLimit',
  'defaultLimit',
  'defaultSort',
  'allowCount',
];

/** The bounds a policy's own defaultSort is parsed within at bind: the request limits, with room for long sorts. */
const POLICY_SORT_LIMITS: Limits = Object.freeze({ ...DEFAULT_LIMITS, maxSortTerms: 32, maxPathDepth: 32 });

/** What a to-one selection is: one object per parent, no list options. */
const TO_ONE: BoundSelection = Object.freeze({ maxLimit: 1, defaultLimit: 1, allowCount: false });

/**
 * Check a relation's `select` options and fill in their defaults; undefined when the relation is not selectable.
 * A to-one relation takes no list options; a to-many relation's limits are positive integers with defaultLimit ≤
 * maxLimit, and its `defaultSort` is a sort value of the nested policy (sortable fields, through to-one relations).
 * Throws `invalid_schema` naming `label` (Entity.property).
 */
export function bindSelection(
  label: string,
  select: RelationSelectOptions | undefined,
  many: boolean,
  target: BoundSchema,
): BoundSelection | undefined {
  if (select === undefined) return undefined;
  if (typeof select !== 'object' || select === null)
    throw invalidSchema(`${label}: select must be true or an object of list options`);
  for (const key of Object.keys(select))
    if (!(LIST_OPTIONS as readonly string[]).includes(key))
      throw invalidSchema(`${label}: unknown select option '${key}' (known: ${LIST_OPTIONS.join(', ')})`);
  if (!many) {
    const given = LIST_OPTIONS.find((key) => select[key] !== undefined);
    if (given !== undefined)
      throw invalidSchema(
        `${label}: ${given} applies to to-many relations only (a to-one relation gives one object per parent, not a list)`,
      );
    return TO_ONE;
  }
  const maxLimit = positive(label, 'maxLimit', select.maxLimit) ?? SELECT_DEFAULTS.maxLimit;
  const defaultLimit =
    positive(label, 'defaultLimit', select.defaultLimit) ?? Math.min(SELECT_DEFAULTS.defaultLimit, maxLimit);
  if (defaultLimit > maxLimit)
    throw invalidSchema(`${label}: defaultLimit (${defaultLimit}) must not exceed maxLimit (${maxLimit})`);
  if (select.allowCount !== undefined && typeof select.allowCount !== 'boolean')
    throw invalidSchema(`${label}: allowCount must be true or false`);
  // Parsed within generous bounds here: createEngine checks it again within the engine's own limits (config.ts).
  const sort =
    select.defaultSort === undefined ? undefined : defaultSortOf(label, select.defaultSort, target, POLICY_SORT_LIMITS);
  return Object.freeze({
    maxLimit,
    defaultLimit,
    allowCount: select.allowCount === true,
    ...(sort === undefined ? {} : { defaultSort: sort.terms, defaultSortText: sort.text }),
  });
}

function positive(label: string, name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw invalidSchema(`${label}: ${name} must be a positive integer`);
  return value;
}

/**
 * Parse a relation's `defaultSort` with the request grammar (within `limits`) and resolve it against the nested
 * policy; returns its canonical text and terms, or throws `invalid_schema` saying what does not fit and where.
 */
export function defaultSortOf(
  label: string,
  text: string,
  target: BoundSchema,
  limits: Limits = DEFAULT_LIMITS,
): { readonly text: string; readonly terms: readonly ResolvedSortTerm[] } {
  if (typeof text !== 'string') throw invalidSchema(`${label}: defaultSort must be a sort value such as '-createdAt'`);
  let parsed: readonly SortTerm[];
  try {
    parsed = parseSort(text, limits);
  } catch (error) {
    if (!isListError(error)) throw error;
    const at = error.position === undefined ? '' : ` at byte ${error.position.offset}`;
    throw invalidSchema(`${label}: defaultSort '${text}' is not a valid sort${at}: ${error.message}`, error);
  }
  const terms = parsed.map((term): ResolvedSortTerm => {
    const field = sortTarget(label, text, term, target);
    if (term.caseInsensitive && !field.field.sortCaseInsensitive)
      throw invalidSchema(
        `${label}: defaultSort '${text}' does not fit the nested policy: '${field.field.publicName}' cannot be sorted case-insensitively`,
      );
    return { target: field, direction: term.direction, ...sortModifiers(term) };
  });
  const canonical = parsed.map(sortTermText).join(',');
  return Object.freeze({ text: canonical, terms: Object.freeze(terms) });
}

/** A default sort key's field: through to-one relations of the nested policy, ending on a sortable field. */
function sortTarget(label: string, text: string, term: SortTerm, target: BoundSchema): FieldRef {
  const refuse = (why: string) =>
    invalidSchema(`${label}: defaultSort '${text}' does not fit the nested policy: ${why}`);
  // A nested list's order is a window over each parent's rows: an aggregate key is not planned there.
  if (term.aggregate) throw refuse('an aggregate cannot order a nested list');
  const hops: BoundRelation[] = [];
  let schema = target;
  const segments = term.path.segments;
  for (const segment of segments.slice(0, -1)) {
    const relation = schema.relations.get(segment.name);
    if (!relation) throw refuse(`'${segment.name}' is not a relation it exposes`);
    if (relation.cardinality === 'many') throw refuse(`'${segment.name}' is a to-many relation`);
    hops.push(relation);
    schema = relation.target;
  }
  const last = segments[segments.length - 1]!;
  const field = schema.fields.get(last.name);
  if (!field) throw refuse(`'${last.name}' is not a field it exposes`);
  if (!field.sortable) throw refuse(`'${last.name}' is not sortable`);
  return { relations: hops, field, span: term.path.span };
}
