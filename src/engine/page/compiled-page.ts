import type { FilterOptions } from '@mikro-orm/core';
import type { BoundSchema, ResolvedQuery } from '../../bind/types.ts';
import { getRenewed, mapFor, setBounded } from '../../bounded-map.ts';
import type { CursorValue } from '../../keyset/cursor-codec.ts';
import type { CursorKey, CursorPlan } from '../../keyset/cursor-plan.ts';
import { isPlainValue, plainKey } from '../../orm/plain-key.ts';
import { builderKey } from '../../orm/qb-state.ts';
import { entityManagerOf } from '../../orm/query-builder.ts';
import { splitCondition } from '../../plan/entity-filter-condition.ts';
import type { FilterConditions } from '../../plan/entity-filters.ts';
import type { SqlFragment } from '../../plan/fragment.ts';
import type { Paging } from '../../plan/paging.ts';
import type { AnyQueryBuilder } from '../../plan/plan-query.ts';
import type { ListContext } from '../config.ts';
import type { Scope } from '../scope.ts';

/**
 * Data statements compiled once per shape, down to SQL text. A request's data statement depends on its shape (the
 * base scope's state, the MikroORM filter conditions in force, the filter's compiled SQL, the sort, paging, picked
 * fields, and where a cursor holds NULLs) and on two kinds of values: the filter's literals and the cursor's key
 * values. A shape is planned once with a marker in place of each such value; the statement's text is kept with where
 * each marker landed (a parameter slot). Later requests of the shape send that text with their own values in the
 * slots, through a QueryBuilder whose toQuery() answers it (so MikroORM's execute() still picks the connection, runs
 * in the transaction, logs and maps rows), without planning or rendering anything.
 *
 * Every value stays a bound parameter. A shape whose values do not land as whole parameters (a value turned into
 * something else on its way) is remembered as not compilable and planned afresh on every request.
 */

/** Shapes kept per bound schema, least recently used dropped first: enough for every shape an API's clients send. */
const MAX_SHAPES = 256;

/** U+0000 never appears in a literal (the grammar refuses control characters) nor in a cursor's key values. */
const MARK = '\u0000lqc';

type Slot =
  | { readonly kind: 'const'; readonly value: unknown }
  | { readonly kind: 'filter'; readonly index: number }
  | { readonly kind: 'key'; readonly index: number };

/** One shape's statement: its text, its parameter slots, and the planned sort keys its rows carry. */
export interface CompiledPage {
  readonly sql: string;
  readonly slots: readonly Slot[];
  readonly keys: readonly CursorKey[];
}

const caches = new WeakMap<BoundSchema, Map<string, CompiledPage | null>>();

/**
 * The shape of a listing's data statements apart from its filter and its cursor position, or undefined when they
 * are planned afresh on every request: compiling is off, the request searches (the application's search callback
 * changes the builder as it likes), the base scope's state is not plain data, or a MikroORM filter condition in force
 * is not plain data (`conditions`, from conditionsKey(), is then undefined). (Where execute() does not send what
 * toQuery() answers, compiledData() plans afresh too.)
 */
export function listingShape<C extends ListContext>(
  scope: Scope<C>,
  resolved: ResolvedQuery,
  plan: CursorPlan,
  paging: Paging,
  conditions: string | undefined,
  links: readonly CursorKey[] | undefined,
): string | undefined {
  if (conditions === undefined || !shapeable(scope, resolved, links)) return undefined;
  // Nested selections read their link columns beside the page's own keys: part of the statement's shape.
  const linked = links?.map((k) => plainKey([k.sort.column, k.sort.alias ?? null, k.shape]));
  const base = baseKey(scope);
  return JSON.stringify([
    base,
    conditions,
    plan.signature,
    resolved.sort.map((t) => [
      t.target?.relations.map((r) => r.property),
      t.target?.field.column,
      t.direction,
      t.nullsFirst === true,
      t.caseInsensitive === true,
    ]),
    paging.limit,
    paging.offset ?? null,
    resolved.fields?.map((f) => [f.property, f.implied === true]) ?? null,
    linked ?? null,
  ]);
}

/**
 * Whether a listing's statements can have a shape, before the filter conditions in force are read (conditionsKey):
 * compiling is on, the request does not search, its nested selections' link columns are plain, and so is the base.
 */
export function shapeable<C extends ListContext>(
  scope: Scope<C>,
  resolved: ResolvedQuery,
  links: readonly CursorKey[] | undefined,
): boolean {
  if (!scope.settings.compileStatements || resolved.search !== undefined) return false;
  // An aggregate key's sub-query stands behind a marker of this request's statement only (orm/deferred-sql.ts).
  if (resolved.sort.some((t) => t.aggregate !== undefined)) return false;
  if (links?.some((k) => plainKey([k.sort.column, k.sort.alias ?? null, k.shape]) === undefined)) return false;
  if (resolved.selections?.length && !links) return false;
  return baseKey(scope) !== undefined;
}

const baseKeys = new WeakMap<AnyQueryBuilder, string | null>();

/**
 * builderKey() of a scope's base, computed once per scope: the base is the scope's private copy, which nothing
 * changes after from() made it (every statement is planned on a copy of it).
 */
export function baseKey<C extends ListContext>(scope: Scope<C>): string | undefined {
  let key = baseKeys.get(scope.base);
  if (key === undefined) {
    key = builderKey(scope.base) ?? null;
    baseKeys.set(scope.base, key);
  }
  return key ?? undefined;
}

/** Record a scope base's builderKey() where its copy computed it (engine.ts), so baseKey() does not compute it again. */
export function rememberBaseKey(base: AnyQueryBuilder, key: string | undefined): void {
  baseKeys.set(base, key ?? null);
}

/**
 * The MikroORM filter conditions in force on a listing as one key: the root entity's, and those of the related
 * entities in `filterConditions`; undefined when one of them is not plain data (or the root's reaches relations).
 */
export async function conditionsKey<C extends ListContext>(
  scope: Scope<C>,
  filterConditions: FilterConditions | undefined,
): Promise<string | undefined> {
  const root = await rootConditionKey(scope.base, scope.filters);
  if (root === undefined) return undefined;
  let key = root;
  for (const [prop, condition] of filterConditions?.byRelation ?? []) {
    const one = plainKey(condition ?? null);
    if (one === undefined) return undefined;
    key += `\u0001${prop.name}:${prop.type}\u0001${one}`;
  }
  return key;
}

/** The root entity's active MikroORM filter condition as a key; undefined when it is not plain or reaches relations. */
async function rootConditionKey(
  base: AnyQueryBuilder,
  filters: FilterOptions | undefined,
): Promise<string | undefined> {
  const meta = base.mainAlias.meta;
  const found = await entityManagerOf(base).applyFilters(meta.class, {}, filters ?? {}, 'read');
  const empty = !found || Object.keys(found).length + Object.getOwnPropertySymbols(found).length === 0;
  if (empty) return 'none';
  if (splitCondition(meta, found as never).reaching !== undefined) return undefined;
  return plainKey(found);
}

/**
 * What a statement of a shape depends on in its cursor position: which cursor values are NULL (none is `-`), and
 * the direction. Part of the keys of statements, of templates, and of a request memo's statement keys.
 */
export function positionKey(at: readonly CursorValue[] | undefined, backward: boolean): string {
  return `${at === undefined ? '-' : at.map((v) => (v === null ? 'n' : 'v')).join('')}\u0001${backward}`;
}

/** The key of one statement of a shape: its filter's SQL, and its position (positionKey). */
export function statementKey(
  shape: string,
  filter: SqlFragment | undefined,
  at: readonly CursorValue[] | undefined,
  backward: boolean,
): string {
  return `${shape}\u0001${filter?.sql ?? ''}\u0001${filter?.params.length ?? 0}\u0001${positionKey(at, backward)}`;
}

/** The compiled statement of a key (most recently used last); undefined: not compiled yet; null: not compilable. */
export function compiledPage(bound: BoundSchema, key: string): CompiledPage | null | undefined {
  const cache = caches.get(bound);
  return cache === undefined ? undefined : getRenewed(cache, key);
}

/** Remember a key's compiled statement, or that it cannot be compiled (null). */
export function rememberPage(bound: BoundSchema, key: string, page: CompiledPage | null): void {
  setBounded(mapFor(caches, bound), key, page, MAX_SHAPES);
}

/** How many statements a bound schema's cache holds (tests check its bound). */
export function compiledPages(bound: BoundSchema): number {
  return caches.get(bound)?.size ?? 0;
}

/** The markers a compilation plans with: one per filter value, one per non-NULL cursor value. */
export function filterMarkers(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${MARK}f${i}\u0000`);
}

export function keyMarkers(at: readonly CursorValue[] | undefined): CursorValue[] | undefined {
  return at?.map((v, i) => (v === null ? null : `${MARK}k${i}\u0000`));
}

/**
 * Compile a statement planned with markers: its text and where each marker landed. Null when the text holds a
 * marker, a parameter holds one as part of a longer value, or a marker is missing (a value was turned into something
 * else on its way): such a shape is planned afresh on every request.
 */
export function compilePage(
  query: { readonly sql: string; readonly params: readonly unknown[] },
  keys: readonly CursorKey[],
  filterCount: number,
  at: readonly CursorValue[] | undefined,
): CompiledPage | null {
  if (query.sql.includes(MARK)) return null;
  const seen = new Set<string>();
  const slots: Slot[] = [];
  for (const param of query.params) {
    if (typeof param === 'string' && param.includes(MARK)) {
      const slot = markerSlot(param);
      if (!slot) return null;
      seen.add(`${slot.kind}${slot.index}`);
      slots.push(slot);
    } else if (isPlainValue(param)) slots.push({ kind: 'const', value: param });
    else return null;
  }
  for (let i = 0; i < filterCount; i++) if (!seen.has(`filter${i}`)) return null;
  for (const [i, v] of (at ?? []).entries()) if (v !== null && !seen.has(`key${i}`)) return null;
  return { sql: query.sql, slots, keys };
}

/** The slot a parameter that is exactly one marker (`MARK` f|k digits U+0000) stands for; undefined otherwise. */
function markerSlot(param: string): (Slot & { readonly index: number }) | undefined {
  const at = MARK.length + 1;
  const end = param.length - 1;
  if (!param.startsWith(MARK) || end <= at || param.charCodeAt(end) !== 0) return undefined;
  for (let i = at; i < end; i++) if (param.charCodeAt(i) < 0x30 || param.charCodeAt(i) > 0x39) return undefined;
  const kind = param[MARK.length] === 'f' ? 'filter' : param[MARK.length] === 'k' ? 'key' : undefined;
  return kind && { kind, index: Number(param.slice(at, end)) };
}

/** The parameters of a compiled statement for one request's filter values and cursor position. */
export function fillPage(
  page: CompiledPage,
  filter: readonly unknown[] | undefined,
  at: readonly CursorValue[] | undefined,
): unknown[] {
  return page.slots.map((slot) =>
    slot.kind === 'const' ? slot.value : slot.kind === 'filter' ? filter?.[slot.index] : at?.[slot.index],
  );
}
