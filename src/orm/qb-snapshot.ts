import { ALIAS_REPLACEMENT, RawQueryFragment } from '@mikro-orm/core';
import { builderKey } from './qb-state.ts';
import type { AnyQueryBuilder } from './query-builder.ts';
import { type Copier, copierOf, reach, sameShape } from './state-copy.ts';

/**
 * A planned QueryBuilder's state kept apart from any builder, and builders made from it as `qb.clone()` makes them,
 * without MikroORM's generic deep copy (which costs more than the rest of planning a known shape).
 *
 * MikroORM 7's clone() is a fresh builder (`clone(true)`: same EntityManager, context, connection type and abort
 * options) given a deep copy of the original's state (state-copy.ts). builderOf() takes the fresh builder and copies
 * in only the members a fresh one does not already have alike: the plan's where and order, mostly. Each raw fragment
 * holding values (the filter's) is a fresh one with the request's values; those without (order terms) are shared, as
 * clone() shares them.
 *
 * Checked against MikroORM 7.2.1; `state` and `clone(true)` are read as compat.ts and qb-state.ts describe.
 */

type State = Record<string, unknown>;

/**
 * A planned state as copiers of the members that differ from a fresh builder's (`clone(true)` of the same base), and
 * the names of the members a fresh builder has and the planned state has not.
 */
export interface StateSnapshot {
  readonly delta: readonly (readonly [name: string, copy: Copier])[];
  readonly absent: readonly string[];
}

function stateOf(qb: AnyQueryBuilder): State {
  return (qb as unknown as { state: State }).state;
}

/**
 * The key of a base builder's state for snapshots: builderKey(), with the order of set members (builderKey() sorts
 * them, a copy keeps them in order). Undefined for a state builderKey() refuses.
 */
export function snapshotKey(qb: AnyQueryBuilder): string | undefined {
  const key = builderKey(qb);
  if (key === undefined) return undefined;
  const state = stateOf(qb);
  let sets = '';
  for (const name in state) {
    const value = state[name];
    if (value instanceof Set && value.size > 1) sets += `|${name}:${[...value].map(String).join(',')}`;
  }
  return key + sets;
}

/** The state members QueryBuilderHelper keeps a reference to (createQueryBuilderHelper()): never replaced. */
const HELPER_MAPS = new Set(['aliases', 'subQueries', 'tptAlias']);

/**
 * Keep what a planned builder's state holds; undefined when a member that differs from a fresh builder's holds
 * anything but plain data, entity metadata and raw fragments keying conditions, or an object twice or in common with
 * a member that does not differ, or when `filterSql` (the `?` text the filter was ANDed in with `filterParams`) is
 * not found exactly once as such a fragment with exactly those values.
 */
export function snapshotOf(
  qb: AnyQueryBuilder,
  filterSql: string | undefined,
  filterParams: readonly unknown[],
): StateSnapshot | undefined {
  const state = stateOf(qb);
  // A fresh builder's state (MikroORM's own, for the same root and alias) serves every member equal to it.
  const fresh = stateOf(qb.clone(true));
  const pairs = new Map<object, object>();
  const back = new Map<object, object>();
  const names: string[] = [];
  const journal: object[] = [];
  for (const name in state) {
    // Members kept alike share objects alike across members too; a member that differs takes back its pairs.
    if (sameShape(state[name], fresh[name], pairs, back, journal)) journal.length = 0;
    else {
      names.push(name);
      for (const a of journal.splice(0)) {
        back.delete(pairs.get(a) as object);
        pairs.delete(a);
      }
    }
  }
  if (names.some((name) => HELPER_MAPS.has(name))) return undefined;
  const objects = new Set<object>();
  const symbols: symbol[] = [];
  if (!names.every((name) => reach(state[name], objects, symbols))) return undefined;
  for (const kept of pairs.keys()) if (objects.has(kept)) return undefined;
  if (new Set(symbols).size !== symbols.length) return undefined;
  let filter: symbol | undefined;
  if (filterSql !== undefined) {
    const filters = symbols.filter((s) => {
      const fragment = RawQueryFragment.getKnownFragment(s) as RawQueryFragment;
      return fragment.sql === `(${filterSql})` && sameValues(fragment.params, filterParams);
    });
    if (filters.length !== 1) return undefined;
    filter = filters[0];
  }
  const delta = names.map((name) => [name, copierOf(state[name], filter)] as const);
  return { delta, absent: Object.keys(fresh).filter((name) => !(name in state)) };
}

/**
 * A fresh builder on `base` (its EntityManager, context, connection type and abort options, as clone() takes them)
 * with a copy of the snapshot's state, `filterParams` the filter's values. With `filterSql`, the filter's fragment
 * holds that text instead of the one the snapshot was taken with: the state MikroORM builds for `andWhere(sql)`
 * holds the text only in that fragment, so another filter's state differs from it there alone, when MikroORM leaves
 * the text as it is (filterSqlCopyable()).
 */
export function builderOf<Q extends AnyQueryBuilder>(
  base: Q,
  snapshot: StateSnapshot,
  filterParams: readonly unknown[],
  filterSql?: string,
): Q {
  const qb = base.clone(true) as Q;
  const target = stateOf(qb);
  const sql = filterSql === undefined ? undefined : `(${filterSql})`;
  for (const name of snapshot.absent) delete target[name];
  for (const [name, copy] of snapshot.delta) target[name] = copy(filterParams, sql);
  return qb;
}

/**
 * Whether MikroORM keeps a filter's text as it is when the filter is ANDed in as a string: it rewrites only the
 * alias placeholder (`[::alias::]`, which a formula may hold), so a text without it may take another's place in a
 * snapshot (builderOf()).
 */
export function filterSqlCopyable(sql: string): boolean {
  return !sql.includes(ALIAS_REPLACEMENT);
}

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}
