import type { EntityManager, FilterOptions } from '@mikro-orm/core';
import { QueryFlag, raw } from '@mikro-orm/sql';
import type { ResolvedQuery } from '../../bind/types.ts';
import { mirrorKeys } from '../../keyset/backward.ts';
import type { CursorKey } from '../../keyset/cursor-plan.ts';
import { selectKeys } from '../../keyset/key-columns.ts';
import { relationFilterOptions } from '../../orm/active-filters.ts';
import { entityManagerOf, subQueryBuilder } from '../../orm/query-builder.ts';
import { applyRootFilters, prepareFilters, reachesRelation } from '../../plan/entity-filters.ts';
import { effectiveSort, orderByOf } from '../../plan/order.ts';
import { type AnyQueryBuilder, type ApplyOptions, applyFilter, planInPlace } from '../../plan/plan-query.ts';
import type { ListContext } from '../config.ts';
import { selectPicked } from '../page/picked-fields.ts';
import type { Scope } from '../scope.ts';
import type { TreeLevel, TreeList } from './check.ts';
import { levelShape, rememberShape, type ShapeEntry, shapeEntry } from './compiled.ts';
import { LEVEL_ALIAS, linkAlias, parentAlias, selectKeyColumns } from './link.ts';
import { innerAlias, innerColumns, joinPivot, seekParent, selectRanks } from './window.ts';

/** The count column of a level's grouped count. */
export const COUNT = 'lq_count';

/** A level's planned statements: its rows (absent for a list of limit 0) and each parent's count (with count). */
export interface LevelQueries {
  /** The level's rows: target filters, nested filter, sort joins, key and link columns, ranks (to-many). */
  readonly data?: AnyQueryBuilder;
  /** Each parent's count, grouped (`<path>.count=true`). */
  readonly counter?: AnyQueryBuilder;
}

/** A checked level with its statements planned (or known by shape), before its parents are known. */
export interface PlannedLevel extends TreeLevel {
  readonly children: readonly PlannedLevel[];
  /** The EntityManager the level's statements run with (the request's). */
  readonly em: EntityManager;
  /** The level's statements, planned on first need (a level known by its shape may never need them). */
  readonly queries: () => Promise<LevelQueries>;
  /** The level's compiled statements, when they depend on its shape only (compiled.ts). */
  readonly compiled?: ShapeEntry;
  /** A list's sort keys as planned (relation keys on their real join aliases); empty for a to-one level. */
  readonly keys: readonly CursorKey[];
}

/**
 * Plan every level's statements: a fresh QueryBuilder of the target (through the pivot for m:n) carrying the
 * target's active MikroORM filters with the request's filter options, as the root's are applied, then the nested
 * filter and sort by the same planner as the top level, so relation filters, quantifiers and relation sorts behave
 * alike. Runs no statement (filter conditions may be awaited).
 */
export async function planLevels<C extends ListContext>(
  scope: Scope<C>,
  levels: readonly TreeLevel[],
): Promise<PlannedLevel[]> {
  const planned: PlannedLevel[] = [];
  for (const level of levels) planned.push(await planLevel(scope, level));
  return planned;
}

async function planLevel<C extends ListContext>(scope: Scope<C>, level: TreeLevel): Promise<PlannedLevel> {
  const em = entityManagerOf(scope.base);
  const children = await planLevels(scope, level.children);
  const filters = relationFilterOptions(level.selection.relation.prop, scope.filters);
  const { bound } = level.target;
  // `compileStatements: false` plans every level afresh, as it does the top level.
  const shape = scope.settings.compileStatements ? await levelShape(em, level, filters) : undefined;
  let planned: Promise<PlannedQueries> | undefined;
  const plan = () => {
    planned ??= planQueries(scope, level, filters);
    return planned;
  };
  const queries = async () => (await plan()).queries;
  const known = shape === undefined ? undefined : shapeEntry(bound, shape);
  if (known) return { ...level, children, em, queries, compiled: known, keys: known.keys };
  const { keys } = await plan();
  const compiled = shape === undefined ? undefined : rememberShape(bound, shape, keys);
  return { ...level, children, em, queries, ...(compiled ? { compiled } : {}), keys };
}

interface PlannedQueries {
  readonly queries: LevelQueries;
  readonly keys: readonly CursorKey[];
}

async function planQueries<C extends ListContext>(
  scope: Scope<C>,
  level: TreeLevel,
  filters: FilterOptions | undefined,
): Promise<PlannedQueries> {
  const em = entityManagerOf(scope.base);
  const { bound } = level.target;
  const fresh = async () => {
    const qb = subQueryBuilder(em, bound.meta.class, LEVEL_ALIAS);
    joinPivot(qb, level.link, level.target);
    await applyRootFilters(qb, filters);
    return qb;
  };
  const { list } = level;
  if (!list) return { queries: { data: await planObject(level, await fresh()) }, keys: [] };
  const options: ApplyOptions = {
    defaultLimit: list.paging.limit,
    maxLimit: Math.max(list.paging.limit, 1),
    maxOffset: Number.MAX_SAFE_INTEGER,
    ...(scope.filters === undefined ? {} : { filters: scope.filters }),
  };
  if (reachesRelation(list.list)) options.filterConditions = await prepareFilters(em, bound, list.list, scope.filters);
  const rows = list.paging.limit > 0 ? planList(level, list, await fresh(), options) : undefined;
  const counter = list.list.count ? planCount(level, list, await fresh(), options) : undefined;
  return {
    queries: {
      ...(rows === undefined ? {} : { data: rows.qb }),
      ...(counter === undefined ? {} : { counter }),
    },
    keys: rows?.keys ?? [],
  };
}

/** To-one: the related rows by key, ordered by primary key (the first one answers for its parent). */
async function planObject(level: TreeLevel, qb: AnyQueryBuilder): Promise<AnyQueryBuilder> {
  const { bound, dialect } = level.target;
  selectPicked(qb, bound, level.selection.fields);
  selectLinks(qb, level);
  qb.orderBy(orderByOf(bound.platform, dialect, LEVEL_ALIAS, effectiveSort(bound, [])) as never);
  return qb;
}

/**
 * To-many: the nested filter and sort planned as at the top level, then, instead of a limit, the row number of each
 * row within its parent's list (the window the level's statement cuts each parent's page from).
 */
function planList(
  level: TreeLevel,
  list: TreeList,
  qb: AnyQueryBuilder,
  options: ApplyOptions,
): { qb: AnyQueryBuilder; keys: CursorKey[] } {
  const { bound } = level.target;
  const { filter, sort } = list.list;
  const resolved: ResolvedQuery = { sort, ...(filter === undefined ? {} : { filter }), ...list.paging };
  const planned = planInPlace(qb, bound, resolved, options);
  if (planned.sort.length !== list.plan.keys.length) throw new Error('listql: the planned sort changed its keys');
  const keys = list.plan.keys.map((k, i) => ({ ...k, sort: planned.sort[i]! }));
  // The window orders and pages each parent's rows; the statement itself needs no order, limit or offset.
  qb.orderBy([]);
  qb.limit(undefined);
  qb.offset(undefined);
  qb.setFlag(QueryFlag.DISABLE_PAGINATE);
  selectPicked(qb, bound, level.selection.fields);
  selectKeys(qb, keys, level.target);
  selectLinks(qb, level);
  // A list read backward numbers every parent's rows in the mirrored order; a forward list whose cursor pages back
  // numbers both orders (its continued parent is cut by the mirrored one).
  const ordered = list.backward ? mirrorKeys(keys) : keys;
  const backFromCursor = !list.backward && list.position?.backward === true;
  selectRanks(qb, level.link, ordered, level.target, backFromCursor);
  const seek = list.backward || backFromCursor ? mirrorKeys(keys) : keys;
  if (list.position) seekParent(qb, level.link, seek, list.position, level.target);
  return { qb, keys };
}

/** Each parent's count: `select <parent key>, count(*) … group by <parent key>` over the filtered rows. */
function planCount(level: TreeLevel, list: TreeList, qb: AnyQueryBuilder, options: ApplyOptions): AnyQueryBuilder {
  const { bound, dialect } = level.target;
  if (list.list.filter) applyFilter(qb, bound, list.list.filter, options);
  const columns = innerColumns(level.link, level.target);
  const quote = (id: string) => bound.platform.quoteIdentifier(id);
  const parents = level.link.inner.map((key, i) =>
    raw(`${dialect.keyReadExpression(key.shape, columns[i]!)} as ${quote(parentAlias(i))}`),
  );
  qb.select([...parents, raw(`count(*) as ${quote(COUNT)}`)]);
  qb.groupBy(columns.map((column) => raw(column)) as never);
  return qb;
}

/** Select the level's link columns: its children's parent columns, then its own parent key. */
function selectLinks(qb: AnyQueryBuilder, level: TreeLevel): void {
  selectKeyColumns(qb, LEVEL_ALIAS, level.links, linkAlias, level.target);
  selectKeyColumns(qb, innerAlias(level.link), level.link.inner, parentAlias, level.target);
}
