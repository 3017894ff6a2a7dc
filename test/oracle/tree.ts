/**
 * The reference's nested selections (`fields=id,author(name),best:reviews(stars)&best.limit=2`): its own tree of
 * what a request selects, the printer to `fields` and path-named parameters, and the answer it must get, computed
 * over the in-memory rows with the same filter, sort and visibility rules as the top level (evaluate.ts, sort.ts):
 *
 * - Every item carries its entity's primary key, then the picked fields; a to-one key named without parentheses
 *   carries the key the row holds, whether or not the related row is visible.
 * - A to-one selection is the related item, or null when there is no related row or it is hidden (soft delete,
 *   tenant, the fixture's relation-path filter): MikroORM's filters apply at every level.
 * - A to-many selection is a page per parent with the top level's shape: the visible related rows the nested filter
 *   makes TRUE, in the nested sort (else the relation's default sort) then the target's primary key, NULLS LAST;
 *   `offset`/`limit` (else the relation's default limit); hasMore; a nextCursor when rows follow a non-empty page, a
 *   prevCursor when rows precede it (after an offset or a cursor); `count` when asked. As at the top level,
 *   `limit=0` reads no rows: no items, hasMore false.
 * - A nested cursor continues one parent's list, forward (the rows after its position) or backward (the `limit`
 *   rows right before it); every other parent's list starts at its beginning.
 *
 * Cursors are opaque: the reference says where one is due, and answers are compared with every cursor masked.
 */
import { evaluate } from './evaluate.ts';
import { type GenFilter, printFilter, type Spacing } from './filter.ts';
import { type EntitySpec, fieldOf, type RelationSpec, type Row, type Visibility, visible } from './model.ts';
import { compareSortKeys, type GenSortTerm, printSort, sortKeyOf, sortRows } from './sort.ts';
import type { Value } from './values.ts';

/** A to-many selection's list parameters; left out ones take the relation's defaults. */
export interface GenList {
  readonly filter?: GenFilter;
  /** Undefined: the relation's default sort. Never empty. */
  readonly sort?: readonly GenSortTerm[];
  readonly limit?: number;
  readonly offset?: number;
  readonly count?: boolean;
  readonly cursor?: string;
}

/** One level's picks: field names (and to-one keys named bare), then nested selections. */
export interface GenLevel {
  readonly fields: readonly string[];
  readonly selections: readonly GenSelection[];
}

/** A relation selected with parentheses, under its item key (the alias when written, else the relation's name). */
export interface GenSelection extends GenLevel {
  readonly key: string;
  readonly alias?: string;
  readonly relation: RelationSpec;
  /** To-many only. */
  readonly list?: GenList;
}

/** An item as the engine returns it, reduced to JSON values. */
export type Item = Record<string, unknown>;

/** The placeholder a cursor is compared as. */
export const CURSOR = '<cursor>';

/** Where a nested cursor continues one parent's list: that parent's row and the position's sort key. */
export interface Continuation {
  readonly parent: Row;
  readonly backward: boolean;
  readonly key: readonly Value[];
}

/** What the expected answer depends on besides the rows: which rows exist, and the cursors by selection path. */
export interface TreeScope {
  readonly visibility: Visibility;
  readonly continued?: ReadonlyMap<string, Continuation>;
}

/** Print the selections of a level as `fields` writes them; `ws` goes around commas and parentheses. */
export function printFields(level: GenLevel, ws = ''): string {
  const parts = [
    ...level.fields,
    ...level.selections.map(
      (s) =>
        `${s.alias === undefined ? '' : `${s.alias}${ws}:${ws}`}${s.relation.name}${ws}(${ws}${printFields(s, ws)}${ws})`,
    ),
  ];
  return parts.join(`${ws},${ws}`);
}

/** The path-named parameters of every to-many selection (`reviews.limit`, `best.filter`, `author.books.sort`). */
export function nestedValues(level: GenLevel, spacing: Spacing = [' '], prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of level.selections) {
    const path = prefix === '' ? s.key : `${prefix}.${s.key}`;
    const list = s.list;
    if (list) {
      if (list.filter) out[`${path}.filter`] = printFilter(list.filter, spacing);
      if (list.sort) out[`${path}.sort`] = printSort(list.sort);
      if (list.limit !== undefined) out[`${path}.limit`] = String(list.limit);
      if (list.offset !== undefined) out[`${path}.offset`] = String(list.offset);
      if (list.count !== undefined) out[`${path}.count`] = String(list.count);
      if (list.cursor !== undefined) out[`${path}.cursor`] = list.cursor;
    }
    Object.assign(out, nestedValues(s, spacing, path));
  }
  return out;
}

/** The effective sort terms of a to-many selection: the request's, else the relation's default sort. */
export function listSort(selection: GenSelection): readonly GenSortTerm[] {
  if (selection.list?.sort) return selection.list.sort;
  const target = selection.relation.target();
  return (selection.relation.select?.defaultSort ?? []).map(([name, direction]) => ({
    hops: [],
    field: fieldOf(target, name),
    direction,
  }));
}

/** The effective page size of a to-many selection. */
export function listLimit(selection: GenSelection): number {
  return selection.list?.limit ?? selection.relation.select?.defaultLimit ?? 0;
}

/** The visible related rows of one parent that the selection's filter makes TRUE, in the list's order. */
export function listRows(parent: Row, selection: GenSelection, visibility: Visibility): Row[] {
  const target = selection.relation.target();
  const filter = selection.list?.filter;
  const ctx = { root: target, visibility, variables: new Map() };
  const rows = ((parent[selection.relation.property] ?? []) as readonly Row[]).filter(
    (row) => visible(target, row, visibility) && (!filter || evaluate(filter, row, ctx) === true),
  );
  return sortRows(target, rows, listSort(selection), visibility);
}

/** A row's position in a selection's list order (what a cursor after or before it holds). */
export function listKey(row: Row, selection: GenSelection, visibility: Visibility): Value[] {
  return sortKeyOf(selection.relation.target(), listSort(selection), row, visibility);
}

/** The items the reference expects for these rows (a top page's rows, in order) and a level's picks. */
export function expectedItems(entity: EntitySpec, rows: readonly Row[], level: GenLevel, scope: TreeScope): Item[] {
  return rows.map((row) => itemOf(entity, row, level, scope, ''));
}

function itemOf(entity: EntitySpec, row: Row, level: GenLevel, scope: TreeScope, prefix: string): Item {
  const item: Item = {};
  for (const key of entity.pk) item[key] = row[key] ?? null;
  for (const name of level.fields) {
    const field = entity.fields.find((f) => f.name === name);
    if (field) item[name] = row[field.property] ?? null;
    else item[name] = heldKey(entity, row, name);
  }
  for (const s of level.selections) {
    const path = prefix === '' ? s.key : `${prefix}.${s.key}`;
    const target = s.relation.target();
    if (s.relation.cardinality === 'one') {
      const related = row[s.relation.property] as Row | null | undefined;
      item[s.key] =
        related && visible(target, related, scope.visibility) ? itemOf(target, related, s, scope, path) : null;
    } else {
      const continued = scope.continued?.get(path);
      const here = continued?.parent === row ? continued : undefined;
      const page = expectedPage(listRows(row, s, scope.visibility), s, scope.visibility, here);
      item[s.key] = { ...page, items: page.items.map((r) => itemOf(target, r, s, scope, path)) };
    }
  }
  return item;
}

/** The key a to-one relation named bare carries: the related row's single key column, as the row holds it. */
function heldKey(entity: EntitySpec, row: Row, name: string): Value {
  const relation = entity.relations.find((r) => r.name === name && r.holdsKey);
  if (!relation) throw new Error(`oracle: ${entity.name} has no field or held key ${name}`);
  const related = row[relation.property] as Row | null | undefined;
  const [pk] = relation.target().pk;
  return related ? ((related[pk!] ?? null) as Value) : null;
}

/** One parent's expected page: its rows (not yet items) and its paging facts, cursors as CURSOR. */
export interface ExpectedPage {
  readonly items: Row[];
  readonly page: Record<string, unknown>;
}

/** Cut one parent's page from its list, from the start (offset) or from a cursor's position. */
export function expectedPage(
  rows: readonly Row[],
  selection: GenSelection,
  visibility: Visibility,
  continued?: Continuation,
): ExpectedPage {
  const limit = listLimit(selection);
  const offset = selection.list?.offset ?? 0;
  const target = selection.relation.target();
  const terms = listSort(selection);
  const at = (row: Row) =>
    continued
      ? compareSortKeys(target, terms, sortKeyOf(target, terms, row, visibility), [...continued.key], visibility.db)
      : 0;
  let items: Row[];
  let hasMore: boolean;
  let prev: boolean;
  let next: boolean;
  if (limit === 0) {
    // As at the top level (docs/pagination.md): `limit=0` reads no rows, so it knows of none after them.
    items = [];
    hasMore = false;
    prev = false;
    next = false;
  } else if (continued?.backward) {
    const before = rows.filter((row) => at(row) < 0);
    items = before.slice(-limit);
    hasMore = before.length > limit;
    prev = hasMore && items.length > 0;
    next = items.length > 0;
  } else {
    const after = continued ? rows.filter((row) => at(row) > 0) : rows.slice(offset);
    items = after.slice(0, limit);
    hasMore = after.length > limit;
    prev = (continued !== undefined || offset > 0) && items.length > 0;
    next = hasMore && items.length > 0;
  }
  return {
    items,
    page: {
      limit,
      offset,
      hasMore,
      ...(next ? { nextCursor: CURSOR } : {}),
      ...(prev ? { prevCursor: CURSOR } : {}),
      ...(selection.list?.count ? { count: rows.length } : {}),
    },
  };
}

/** Copy an answer with every nested page's cursors replaced by CURSOR, and no symbol keys. */
export function maskCursors(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskCursors);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value))
    out[key] = (key === 'nextCursor' || key === 'prevCursor') && typeof v === 'string' ? CURSOR : maskCursors(v);
  return out;
}

/** Where two answers first differ, as a readable path (`[2].reviews.items[0].stars: got 4, want 5`). */
export function firstDifference(got: unknown, want: unknown, at = ''): string | undefined {
  if (Object.is(got, want)) return undefined;
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (kind(got) !== kind(want) || (kind(got) !== 'object' && kind(got) !== 'array'))
    return `${at || '(answer)'}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`;
  if (Array.isArray(got) && Array.isArray(want)) {
    for (let i = 0; i < Math.max(got.length, want.length); i++) {
      if (i >= got.length || i >= want.length)
        return `${at}: got ${got.length} entries, want ${want.length} (first extra: ${JSON.stringify(got[i] ?? want[i])})`;
      const d = firstDifference(got[i], want[i], `${at}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  const g = got as Record<string, unknown>;
  const w = want as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(w), ...Object.keys(g)])];
  for (const key of keys) {
    if (!(key in g)) return `${at}.${key}: missing, want ${JSON.stringify(w[key])}`;
    if (!(key in w)) return `${at}.${key}: unexpected ${JSON.stringify(g[key])}`;
    const d = firstDifference(g[key], w[key], `${at}.${key}`);
    if (d) return d;
  }
  return undefined;
}

/**
 * Visit every item of an answer with the entity it is an item of: the top level's items, and at every level the
 * to-one objects and the items of every nested page, as the selections say they are nested.
 */
export function visitItems(
  entity: EntitySpec,
  items: readonly unknown[],
  level: GenLevel,
  visit: (entity: EntitySpec, item: Item, path: string) => void,
  prefix = '',
): void {
  for (const item of items as Item[]) {
    visit(entity, item, prefix);
    for (const s of level.selections) {
      const path = prefix === '' ? s.key : `${prefix}.${s.key}`;
      const value = item[s.key];
      if (value === null || value === undefined) continue;
      const nested = s.relation.cardinality === 'one' ? [value] : (value as { items: unknown[] }).items;
      visitItems(s.relation.target(), nested, s, visit, path);
    }
  }
}
