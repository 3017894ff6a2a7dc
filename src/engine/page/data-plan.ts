import { QueryFlag } from '@mikro-orm/sql';
import type { ResolvedQuery } from '../../bind/types.ts';
import type { CursorKey, CursorPlan } from '../../keyset/cursor-plan.ts';
import { selectKeys } from '../../keyset/key-columns.ts';
import { seeksByUnion } from '../../keyset/seek-page.ts';
import { joinsToMany, selectsExplicitly } from '../../orm/qb-state.ts';
import { type AnyQueryBuilder, type ApplyOptions, type FilterParams, planInPlace } from '../../plan/plan-query.ts';
import type { ListContext } from '../config.ts';
import type { Scope } from '../scope.ts';
import { selectTreeLinks, type Tree } from '../tree/index.ts';
import { selectPicked } from './picked-fields.ts';

/** The planned data query (filter, sort joins, order, limit + 1, key columns) and its cursor keys. */
export interface DataPlan {
  readonly qb: AnyQueryBuilder;
  readonly keys: readonly CursorKey[];
}

/**
 * Plan a request's data query into the engine's copy of the scope: the planner's filter, sort joins and order, then
 * `limit + 1` rows, the picked columns, the cursor's key columns and the nested selections' link columns.
 */
export function planData<C extends ListContext>(
  scope: Scope<C>,
  resolved: ResolvedQuery,
  plan: CursorPlan,
  scoped: AnyQueryBuilder,
  options: ApplyOptions,
  tree: Tree | undefined,
  filterParams?: FilterParams,
  filterSql?: string,
): DataPlan {
  const planned = planInPlace(scoped, scope.bound, resolved, options, filterParams, filterSql);
  if (planned.sort.length !== plan.keys.length) throw new Error('listql: the planned sort changed its keys');
  // The planned keys carry the aliases the planner gave relation sorts; the cursor plan carries types.
  const keys = plan.keys.map((k, i) => ({ ...k, sort: planned.sort[i]! }));
  const qb = planned.qb;
  qb.limit(planned.paging.limit + 1);
  if (joinsToMany(qb)) {
    // A to-many join in the base scope repeats root rows. MikroORM's pagination sub-query would keep the join in the
    // outer query (rows still repeat) and cannot order by listql's keys; `distinct` over root columns and keys gives
    // each root row once, in keyset order, with one plain query.
    qb.setFlag(QueryFlag.DISABLE_PAGINATE);
    qb.setFlag(QueryFlag.DISTINCT);
  }
  // `fields`: only the picked columns and the primary key (the cursor's key columns come next, under their own
  // aliases). A base scope that selects columns itself keeps its selection; items are narrowed after the fact.
  if (resolved.fields && !selectsExplicitly(qb)) selectPicked(qb, scope.bound, resolved.fields);
  selectKeys(qb, keys, scope.keys, seeksByUnion(scope.keys.dialect, keys));
  // Nested selections find each row's related rows by these columns, read beside the keys (lq_l0, …).
  if (tree) selectTreeLinks(qb, tree, scope);
  return { qb, keys };
}
