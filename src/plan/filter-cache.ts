import type { EntityProperty } from '@mikro-orm/core';
import type { BoundSchema, FieldRef, ResolvedFilter } from '../bind/types.ts';
import { mapFor, setBounded, setNewest } from '../bounded-map.ts';
import type { SqlFragment } from './fragment.ts';
import { compileFilter, type PredicateContext } from './predicate.ts';
import { fillSlots, markerOf, type Slot, slotsOf, withValues } from './value-slots.ts';

/**
 * Compiled filters, cached by shape. The SQL of a filter depends on its shape (node kinds, operators, fields,
 * paths, variables, `in` list lengths), the query's aliases, the dialect and the MikroORM filter conditions of the
 * relations it reaches, never on its literals: so a filter is compiled once per shape with a marker in place of
 * each literal, and each request only puts its own values where the markers ended up.
 *
 * Request-dependent filter conditions (a tenant id in an `em` filter parameter) stay bound parameters: an entry
 * remembers the condition of every relation its compilation looked up, and is used only while each is the same.
 */

/** Bounded like the parse cache: enough for every shape an API's clients send, small enough to never matter. */
const MAX_ENTRIES = 512;

/** The filter cache's marks (value-slots.ts); the literal memo uses another. */
const MARK = '\u0000lq';

interface Entry {
  readonly sql: string;
  /** Aliases the compilation drew: a reuse draws as many, so later joins of the query get the same fresh ones. */
  readonly aliases: number;
  readonly slots: readonly Slot[];
  /** The filter condition of each relation the compilation looked up, as a comparable key. */
  readonly conditions: ReadonlyMap<EntityProperty, string>;
}

const caches = new WeakMap<BoundSchema, Map<string, Entry>>();

/**
 * Compile a resolved filter as compileFilter() does, reusing the compiled SQL of an earlier filter of the same
 * shape; falls back to a plain compilation whenever something in it cannot be keyed safely. `scope` names what
 * else the SQL depends on: the aliases the query already uses (generated aliases skip them).
 */
export function compileFilterCached(
  bound: BoundSchema,
  filter: ResolvedFilter,
  ctx: PredicateContext,
  scope: string,
): SqlFragment {
  const values: unknown[] = [];
  const shape = shapeOf(filter, values);
  if (shape === undefined) return compileFilter(filter, ctx);
  const key = `${ctx.dialect.name}|${ctx.alias}|${scope}|${shape}`;
  const cache = mapFor(caches, bound);
  const hit = cache.get(key);
  if (hit && conditionsHold(hit, ctx)) {
    setNewest(cache, key, hit, MAX_ENTRIES);
    for (let i = 0; i < hit.aliases; i++) ctx.relations?.nextAlias();
    return { sql: hit.sql, params: fillSlots(hit.slots, values, ctx.dialect) };
  }
  const entry = compileShape(filter, values.length, ctx);
  if (!entry) return compileFilter(filter, ctx);
  // An entry whose conditions no longer hold is replaced in its place.
  setBounded(cache, key, entry, MAX_ENTRIES);
  return { sql: entry.sql, params: fillSlots(entry.slots, values, ctx.dialect) };
}

/** Compile the filter with markers for its literals, and note where each marker (and each lookup) went. */
function compileShape(filter: ResolvedFilter, count: number, ctx: PredicateContext): Entry | undefined {
  let next = 0;
  const masked = withValues(filter, () => markerOf(MARK, next++));
  const conditions = new Map<EntityProperty, string>();
  let keyable = true;
  let aliases = 0;
  const relations = ctx.relations
    ? {
        ...ctx.relations,
        nextAlias: () => {
          aliases++;
          return ctx.relations!.nextAlias();
        },
        filterOf: (prop: EntityProperty) => {
          const condition = ctx.relations!.filterOf(prop);
          const key = conditionKey(condition);
          if (key === undefined) keyable = false;
          else conditions.set(prop, key);
          return condition;
        },
      }
    : undefined;
  const compiled = compileFilter(masked, relations ? { ...ctx, relations } : ctx);
  if (!keyable || compiled.sql.includes(MARK)) return undefined;
  // Every literal must have landed in a parameter (MySQL's startswith binds its pattern twice: under the collation
  // for the index range, then on the bytes); anything else is not a shape we understand.
  const slots = slotsOf(compiled.params, count, MARK);
  return slots ? { sql: compiled.sql, aliases, slots, conditions } : undefined;
}

function conditionsHold(entry: Entry, ctx: PredicateContext): boolean {
  if (entry.conditions.size === 0) return true;
  if (!ctx.relations) return false;
  for (const [prop, key] of entry.conditions) if (conditionKey(ctx.relations.filterOf(prop)) !== key) return false;
  return true;
}

/** A comparable text for a filter condition (plain data only); undefined when it holds anything else. */
function conditionKey(condition: unknown): string | undefined {
  let ok = true;
  const text = JSON.stringify(condition ?? null, (_key, value: unknown) => {
    if (typeof value === 'bigint') return `${value}n`;
    if (typeof value === 'function' || typeof value === 'symbol') ok = false;
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)) {
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) ok = false;
      // Symbol keys (MikroORM's raw fragments) are invisible to JSON: refuse rather than miss them.
      if (Object.getOwnPropertySymbols(value).length > 0) ok = false;
    }
    return value;
  });
  return ok ? text : undefined;
}

/**
 * The shape of a filter: everything compileFilter reads except the literal values, which are collected in order.
 * Undefined when a node holds something the cache does not know how to key.
 */
function shapeOf(filter: ResolvedFilter, values: unknown[]): string | undefined {
  switch (filter.kind) {
    case 'compare':
      values.push(filter.value);
      return `c(${ref(filter.target)} ${filter.operator})`;
    case 'like':
      values.push(filter.value);
      return `l(${ref(filter.target)} ${filter.operator})`;
    case 'in':
      values.push(...filter.values);
      return `i(${ref(filter.target)} ${filter.negated ? 'not' : ''} ${filter.values.length})`;
    case 'null':
      return `n(${ref(filter.target)} ${filter.negated ? 'not' : ''})`;
    case 'relationNull':
      return `r(${filter.from ?? ''}/${filter.relations.map((r) => r.property).join('/')} ${filter.negated ? 'not' : ''})`;
    case 'not': {
      const operand = shapeOf(filter.operand, values);
      return operand === undefined ? undefined : `!(${operand})`;
    }
    case 'and':
    case 'or': {
      const left = shapeOf(filter.left, values);
      const right = left === undefined ? undefined : shapeOf(filter.right, values);
      return right === undefined ? undefined : `${filter.kind}(${left},${right})`;
    }
    case 'quantifier': {
      const predicate = shapeOf(filter.predicate, values);
      const path = filter.relations.map((r) => r.property).join('/');
      return predicate === undefined
        ? undefined
        : `q(${filter.quantifier} ${filter.from ?? ''} ${path} ${filter.variable}:${predicate})`;
    }
    default:
      return undefined;
  }
}

function ref(target: FieldRef): string {
  return `${target.variable ?? ''}/${target.relations.map((r) => r.property).join('/')}/${target.field.column}`;
}

/** Count the compiled shapes cached for a bound schema (for tests and diagnostics). */
export function cachedShapeCount(bound: BoundSchema): number {
  return caches.get(bound)?.size ?? 0;
}
