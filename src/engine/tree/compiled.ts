import type { EntityManager, FilterOptions } from '@mikro-orm/core';
import type { BoundSchema } from '../../bind/types.ts';
import { getRenewed, mapFor, setBounded } from '../../bounded-map.ts';
import type { CursorValue } from '../../keyset/cursor-codec.ts';
import type { CursorKey } from '../../keyset/cursor-plan.ts';
import { executeSendsToQuery } from '../../orm/compat.ts';
import { isPlainValue, plainKey } from '../../orm/plain-key.ts';
import { subQueryBuilder } from '../../orm/query-builder.ts';
import { splitCondition } from '../../plan/entity-filter-condition.ts';
import { reachesRelation } from '../../plan/entity-filters.ts';
import type { AnyQueryBuilder } from '../../plan/plan-query.ts';
import type { TreeLevel } from './check.ts';

/**
 * Nested levels' statements, compiled once per request shape. A level whose SQL depends on nothing a client sends
 * but its shape (no nested filter, no nested cursor, no sort through a relation) is planned once: its statements are
 * compiled with a marker in place of each parent key value, and each request only puts its parents' keys where the
 * markers ended up, on a fresh QueryBuilder of its own EntityManager (its connection, transaction and row mapping).
 * Parent key lists are padded (with their last key repeated) to a multiple of four up to 32 parents (a power of two
 * below four and above 32), so a shape holds a few statements and a page's in-list carries few repeated keys.
 *
 * MikroORM filter conditions can depend on the request (filter parameters, `em.addFilter()`): the shape names the
 * level's active filter condition as plain data, and a condition that is not plain data, or that reaches through
 * relations, leaves the level uncached. Every value stays a bound parameter.
 */

/** Bounded as the filter cache is: enough for every tree shape an API's clients send. */
const MAX_SHAPES = 256;

/** U+0000 never appears in a key value a parent row carries through JSON-safe cursor values as a whole marker. */
const MARK = '\u0000lqk';

type Slot = { readonly kind: 'const'; readonly value: unknown } | { readonly kind: 'key'; readonly index: number };

interface Compiled {
  readonly sql: string;
  readonly slots: readonly Slot[];
}

/** One shape's planned sort keys and its compiled statements by kind and parent count (null: could not compile). */
export interface ShapeEntry {
  readonly keys: readonly CursorKey[];
  readonly statements: Map<string, Compiled | null>;
}

const caches = new WeakMap<BoundSchema, Map<string, ShapeEntry>>();

/** A level's shape key, or undefined when its statements depend on more than its shape. */
export async function levelShape(
  em: EntityManager,
  level: TreeLevel,
  filters: FilterOptions | undefined,
): Promise<string | undefined> {
  const list = level.list;
  if (list && (list.list.filter !== undefined || list.position !== undefined || reachesRelation(list.list)))
    return undefined;
  const { meta } = level.target.bound;
  const found = await em.applyFilters(meta.class, {}, filters ?? {}, 'read');
  const cond = found && Object.keys(found).length + Object.getOwnPropertySymbols(found).length > 0 ? found : undefined;
  if (cond !== undefined && splitCondition(meta, cond as never).reaching !== undefined) return undefined;
  const condition = plainKey(cond);
  if (condition === undefined) return undefined;
  let part = fixedParts.get(level.link);
  if (part === undefined) {
    part = { fixed: fixedPart(level), shapes: new Map() };
    fixedParts.set(level.link, part);
  }
  let shape = part.shapes.get(condition);
  if (shape === undefined) {
    shape = `${part.fixed}\u0001${condition}`;
    setBounded(part.shapes, condition, shape, MAX_SHAPES);
  }
  return shape;
}

/**
 * A level's shape apart from its filter condition, by the level's link: one check of a request makes one link per
 * level, shared by the levels the tree memo (memo.ts) hands out again from that check, whose shapes are the same.
 * With it, the shape keys already made from it, by condition: a request whose shape was seen looks its entry up by
 * the same string, whose hash is kept, not by a new one of a few hundred characters hashed afresh.
 */
const fixedParts = new WeakMap<object, { readonly fixed: string; readonly shapes: Map<string, string> }>();

function fixedPart(level: TreeLevel): string {
  const list = level.list;
  const { selection } = level;
  return JSON.stringify([
    level.target.dialect.name,
    level.link.outer.map((k) => k.sort.column),
    selection.relation.property,
    selection.fields.map((f) => [f.property, f.publicName, f.implied === true]),
    level.children.map((c) => c.selection.relation.property),
    list && [
      list.plan.keys.map(({ sort }) => [
        sort.column,
        sort.alias,
        sort.direction,
        sort.nullable,
        sort.nullsFirst,
        sort.caseInsensitive,
      ]),
      list.paging.limit,
      list.paging.offset,
      list.list.count,
      list.backward,
    ],
  ]);
}

/** The cached entry of a shape (most recently used last), or undefined. */
export function shapeEntry(target: BoundSchema, shape: string): ShapeEntry | undefined {
  const cache = caches.get(target);
  return cache === undefined ? undefined : getRenewed(cache, shape);
}

/** Remember a shape's planned sort keys; its statements are compiled as parent counts come. */
export function rememberShape(target: BoundSchema, shape: string, keys: readonly CursorKey[]): ShapeEntry {
  const entry: ShapeEntry = { keys, statements: new Map() };
  setBounded(mapFor(caches, target), shape, entry, MAX_SHAPES);
  return entry;
}

/** How many shapes a target's cache holds (tests check its bound). */
export function cachedShapes(target: BoundSchema): number {
  return caches.get(target)?.size ?? 0;
}

/**
 * The padded parent count a statement is compiled for: the next power of two below 4 and above 32, else the next
 * multiple of 4, within the chunk size.
 */
export function paddedCount(count: number, chunk: number): number {
  let n = 1;
  if (count > 4 && count <= 32) n = Math.ceil(count / 4) * 4;
  else while (n < count) n *= 2;
  return Math.min(n, Math.max(chunk, count));
}

/** Stand-in parent keys whose values are markers, `count` parents of `width` columns. */
function markerParents(count: number, width: number): string[][] {
  return Array.from({ length: count }, (_, i) => Array.from({ length: width }, (_, j) => `${MARK}${i * width + j}`));
}

/**
 * A QueryBuilder for these parents that sends the shape's compiled statement `kind`, compiling it on first use from
 * `build` (the planned statement for stand-in parents); undefined when it cannot be compiled safely.
 */
export async function compiledStatement(
  entry: ShapeEntry,
  kind: string,
  em: EntityManager,
  target: { readonly entity: BoundSchema; readonly alias: string },
  parents: readonly (readonly CursorValue[])[],
  chunk: number,
  width: number,
  build: (parents: readonly (readonly CursorValue[])[]) => Promise<AnyQueryBuilder>,
): Promise<AnyQueryBuilder | undefined> {
  const qb = subQueryBuilder(em, target.entity.meta.class, target.alias);
  // The compiled text is sent through toQuery(): where execute() reads something else, build afresh.
  if (!(await executeSendsToQuery(qb))) return undefined;
  const count = paddedCount(parents.length, chunk);
  const key = `${kind}|${count}`;
  let compiled = entry.statements.get(key);
  if (compiled === undefined) {
    compiled = compile(await build(markerParents(count, width)), count * width);
    entry.statements.set(key, compiled);
  }
  if (compiled === null) return undefined;
  const values = parents.flat();
  const last = parents.at(-1) ?? [];
  const params = compiled.slots.map((slot) => {
    if (slot.kind === 'const') return slot.value;
    return slot.index < values.length ? values[slot.index] : last[(slot.index - values.length) % width];
  });
  const sql = compiled.sql;
  // The compiled text with this request's values: execute() then runs it as it runs any builder's statement.
  Object.defineProperty(qb, 'toQuery', { value: () => ({ sql, params }) });
  return qb;
}

/** The statement's text and where each marker landed; null when a marker is not exactly one whole parameter. */
function compile(qb: AnyQueryBuilder, markers: number): Compiled | null {
  const { sql, params } = qb.toQuery() as { sql: string; params: readonly unknown[] };
  if (sql.includes(MARK)) return null;
  const seen = new Set<number>();
  const slots: Slot[] = [];
  for (const param of params) {
    if (typeof param === 'string' && param.startsWith(MARK)) {
      const index = Number(param.slice(MARK.length));
      if (!(index >= 0 && index < markers) || seen.has(index)) return null;
      seen.add(index);
      slots.push({ kind: 'key', index });
    } else if (isPlainValue(param)) slots.push({ kind: 'const', value: param });
    else return null;
  }
  return seen.size === markers ? { sql, slots } : null;
}
