import type { BoundSchema } from '../../bind/types.ts';
import { getRenewed, mapFor, setBounded } from '../../bounded-map.ts';
import type { CursorValue } from '../../keyset/cursor-codec.ts';
import type { CursorKey } from '../../keyset/cursor-plan.ts';
import type { SqlFragment } from '../../plan/fragment.ts';
import { type CompiledPage, compilePage, positionKey } from './compiled-page.ts';

/**
 * Page templates: the data statement of a listing shape with a hole where the filter goes. Two requests of one
 * listing shape (same base, sort, paging, fields, MikroORM filters and cursor position) whose filters differ in shape
 * get statements that differ only by the filter's SQL and its values, as long as nothing planned after the filter
 * depends on it (a sort through a relation joins under aliases drawn after the filter's: such listings have no
 * template). So a listing shape is planned once more with a marker in place of the filter's SQL; the statement of a
 * new filter shape is then that text with the filter's SQL put in the hole and the filter's values in the parameter
 * slots there, without planning or rendering anything.
 *
 * A template is kept only if it gives back, for the filter it was made with, exactly the statement that filter was
 * compiled to (text and parameter slots); otherwise the listing shape is remembered as having none.
 */

/** Stands for the filter's SQL while a template is planned (U+0000 never appears in SQL listql builds). */
export const FILTER_SQL = '\u0000lqfilter\u0000';

type Slots = CompiledPage['slots'];

/** A listing shape's statement around the filter's SQL, and the parameter slots before and after it. */
export interface PageTemplate {
  readonly before: string;
  readonly after: string;
  readonly head: Slots;
  readonly tail: Slots;
  readonly keys: readonly CursorKey[];
}

/** Templates kept per bound schema, least recently used dropped first: one per listing shape and cursor position. */
const MAX_TEMPLATES = 128;

const templates = new WeakMap<BoundSchema, Map<string, PageTemplate | null>>();

/** The key of a listing shape's template at one cursor position (which values are NULL) and direction. */
export function templateKey(shape: string, at: readonly CursorValue[] | undefined, backward: boolean): string {
  return `${shape}\u0001${positionKey(at, backward)}`;
}

let templatesOn = true;

/**
 * Turn templates on or off, returning the previous setting: off, every new statement is planned (tests compare the
 * two ways).
 */
export function useTemplates(on: boolean): boolean {
  const was = templatesOn;
  templatesOn = on;
  return was;
}

/** The template under `key` (most recently used last); undefined: not made yet; null: the shape has none. */
export function pageTemplate(bound: BoundSchema, key: string): PageTemplate | null | undefined {
  if (!templatesOn) return null;
  const cache = templates.get(bound);
  return cache === undefined ? undefined : getRenewed(cache, key);
}

/** Remember a template, or that a listing shape has none (null). */
export function rememberTemplate(bound: BoundSchema, key: string, template: PageTemplate | null): void {
  setBounded(mapFor(templates, bound), key, template, MAX_TEMPLATES);
}

/** How many templates a bound schema's cache holds, null entries included (for tests). */
export function pageTemplates(bound: BoundSchema): number {
  let count = 0;
  for (const template of templates.get(bound)?.values() ?? []) if (template) count++;
  return count;
}

/**
 * Make a template from a statement planned with FILTER_SQL for the filter's SQL (and no filter values), its keys
 * and cursor position. Null when the marker is not there exactly once, when the statement does not compile without
 * it (compilePage), or when its `?` placeholders do not match its parameters one for one.
 */
export function compileTemplate(
  query: { readonly sql: string; readonly params: readonly unknown[] },
  keys: readonly CursorKey[],
  at: readonly CursorValue[] | undefined,
): PageTemplate | null {
  const hole = query.sql.indexOf(FILTER_SQL);
  if (hole < 0 || query.sql.includes(FILTER_SQL, hole + 1)) return null;
  const before = query.sql.slice(0, hole);
  const after = query.sql.slice(hole + FILTER_SQL.length);
  const page = compilePage({ sql: before + after, params: query.params }, keys, 0, at);
  if (!page) return null;
  const split = placeholders(before);
  if (split + placeholders(after) !== page.slots.length) return null;
  return { before, after, head: page.slots.slice(0, split), tail: page.slots.slice(split), keys };
}

/** The compiled statement of a filter in a template; null when the filter's `?` do not match its values. */
export function fillTemplate(template: PageTemplate, filter: SqlFragment): CompiledPage | null {
  const count = filter.params.length;
  if (placeholders(filter.sql) !== count || filter.sql.includes('\u0000')) return null;
  const slots: CompiledPage['slots'][number][] = [...template.head];
  for (let index = 0; index < count; index++) slots.push({ kind: 'filter', index });
  slots.push(...template.tail);
  return { sql: template.before + filter.sql + template.after, slots, keys: template.keys };
}

/** Whether two compiled statements send the same text with the same parameter slots. */
export function samePage(a: CompiledPage, b: CompiledPage): boolean {
  if (a.sql !== b.sql || a.slots.length !== b.slots.length) return false;
  return a.slots.every((slot, i) => {
    const other = b.slots[i]!;
    if (slot.kind !== other.kind) return false;
    if (slot.kind !== 'const') return slot.index === (other as { index: number }).index;
    const value = (other as { value: unknown }).value;
    return slot.value instanceof Date && value instanceof Date
      ? slot.value.getTime() === value.getTime()
      : Object.is(slot.value, value);
  });
}

/** How many `?` placeholders a text holds (compiled SQL carries no client text, so each `?` is one). */
function placeholders(sql: string): number {
  let count = 0;
  for (let i = sql.indexOf('?'); i >= 0; i = sql.indexOf('?', i + 1)) count++;
  return count;
}
