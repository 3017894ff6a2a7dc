import type { QueryOrder } from '@mikro-orm/sql';
import { mapFor, setNewest } from '../bounded-map.ts';
import { builderOf, filterSqlCopyable, type StateSnapshot, snapshotOf } from '../orm/qb-snapshot.ts';
import type { AnyQueryBuilder } from '../orm/query-builder.ts';
import type { SqlFragment } from './fragment.ts';

/**
 * Planned builders by shape, for planResolved(). What MikroORM makes of a plan (the filter ANDed into the base's
 * where, the order) depends on the base's state, the filter's SQL and the order's terms, never on the filter's
 * values: so the state MikroORM builds for a shape is kept once, and each later plan of that shape gets a fresh
 * builder with a copy of it, its own values in the filter's place (orm/qb-snapshot.ts). A builder handed out is never
 * the kept one: a caller may change, run or copy it as it likes.
 */

/** Bounded like the filter cache: enough for every shape an API's clients send, small enough to never matter. */
const MAX_ENTRIES = 512;

/** One map per entity metadata, so that two ORMs (two dialects) with entities of the same names never share. */
const caches = new WeakMap<object, Map<string, StateSnapshot | typeof ONCE | null>>();

/**
 * The states kept by base and order alone, whatever the filter: a filter's text is held in one raw fragment of the
 * state only, so the state of one filter serves another with the same base and order, that fragment's text and
 * values replaced (builderOf()). Under a stream of shapes never seen before, each shape is then a copy, not a plan
 * through MikroORM (its where and order processing, and its generic deep copy of the base).
 */
const frames = new WeakMap<object, Map<string, StateSnapshot | typeof ONCE | null>>();

/** A shape planned once so far. */
const ONCE = 1;

/** A planned sort as orderTerms() gives it. */
export type OrderTerms = readonly (readonly [sql: string, order: QueryOrder])[];

/**
 * A copy of `base` with `where` ANDed into its where clause and ordered by `terms`, as `plan` makes it on a copy;
 * `baseKey` is the base's snapshotKey(). Plans the first builder of a shape with `plan` and keeps its state.
 */
export function shapedBuilder<Q extends AnyQueryBuilder>(
  base: Q,
  baseKey: string,
  where: SqlFragment | undefined,
  terms: OrderTerms,
  plan: (qb: Q) => void,
): Q {
  const meta = base.mainAlias.meta;
  const cache = mapFor(caches, meta);
  const key = `${baseKey}\u0000${JSON.stringify([where?.sql ?? null, terms])}`;
  const hit = cache.get(key);
  if (hit !== undefined && hit !== null && hit !== ONCE) {
    setNewest(cache, key, hit, MAX_ENTRIES);
    hits++;
    return builderOf(base, hit, where?.params ?? []);
  }
  // A shape not kept: the state kept for its base and order with another filter, that filter's text replaced.
  const byFrame = where !== undefined && filterSqlCopyable(where.sql) ? mapFor(frames, meta) : undefined;
  const frameKey = byFrame && `${baseKey}\u0000${JSON.stringify(terms)}`;
  const frame = frameKey === undefined ? undefined : byFrame?.get(frameKey);
  if (frame !== undefined && frame !== null && frame !== ONCE && where !== undefined) {
    setNewest(byFrame as Map<string, StateSnapshot>, frameKey as string, frame, MAX_ENTRIES);
    hits++;
    return builderOf(base, frame, where.params, where.sql);
  }
  const qb = base.clone() as Q;
  plan(qb);
  // Kept from the second plan on: a shape (or a base and order) planned once only costs no copy. A state that cannot
  // be copied safely is remembered as such (null): its shape is planned afresh.
  const snapshot = hit === ONCE || frame === ONCE ? (snapshotOf(qb, where?.sql, where?.params ?? []) ?? null) : ONCE;
  if (hit !== null) setNewest(cache, key, hit === ONCE ? snapshot : ONCE, MAX_ENTRIES);
  if (byFrame && frameKey !== undefined && frame !== null)
    setNewest(byFrame, frameKey, frame === ONCE ? snapshot : ONCE, MAX_ENTRIES);
  return qb;
}

let hits = 0;

/** Count the builders made from a kept state so far (for tests and diagnostics). */
export function shapedBuilderHits(): number {
  return hits;
}
