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
  // A filter's text is held in one raw fragment of the state and nowhere else: where MikroORM keeps it as it is, the
  // state kept for one filter serves every filter with the same base and order, that fragment's text and values
  // replaced (builderOf()), so a stream of shapes never seen before is copied, not planned through MikroORM. Text
  // MikroORM would rewrite is part of the key.
  const copied = where !== undefined && filterSqlCopyable(where.sql) ? where.sql : undefined;
  const key = `${baseKey}\u0000${JSON.stringify([copied !== undefined || (where?.sql ?? null), terms])}`;
  const hit = cache.get(key);
  if (hit !== undefined && hit !== null && hit !== ONCE) {
    setNewest(cache, key, hit, MAX_ENTRIES);
    hits++;
    return builderOf(base, hit, where?.params ?? [], copied);
  }
  const qb = base.clone() as Q;
  plan(qb);
  if (hit === null) return qb;
  // Kept from the key's second plan on: a key planned once only costs no copy. A state that cannot be copied safely
  // is remembered as such (null): its key is planned afresh.
  setNewest(cache, key, hit === ONCE ? (snapshotOf(qb, where?.sql, where?.params ?? []) ?? null) : ONCE, MAX_ENTRIES);
  return qb;
}

let hits = 0;

/** Count the builders made from a kept state so far (for tests and diagnostics). */
export function shapedBuilderHits(): number {
  return hits;
}
