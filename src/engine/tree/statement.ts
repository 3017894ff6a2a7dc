import type { Dialect, StatementGuard } from '../../dialect/index.ts';
import type { CursorValue } from '../../keyset/cursor-codec.ts';
import { useConnection } from '../../orm/connection.ts';
import { entityManagerOf, isCompiledBuilder, subQueryBuilder } from '../../orm/query-builder.ts';
import { mapDriverRows } from '../../orm/row-writer.ts';
import type { AnyQueryBuilder } from '../../plan/plan-query.ts';
import { runAbortable, throwIfAborted } from '../abort.ts';
import { executeOwned, executeUnmapped } from '../execute.ts';
import type { Row } from './attach.ts';
import { compiledStatement } from './compiled.ts';
import { LEVEL_ALIAS, parentAlias } from './link.ts';
import type { PlannedLevel } from './plan.ts';
import { BACK_RANK, innerColumns, RANK } from './window.ts';
import { rowWriterOf } from './writers.ts';

/** The alias of the derived table a list level's statement pages each parent's rows from. */
export const OUTER_ALIAS = 'lq_x';

/** Where a level's statements run: the request's guard, and the connection the top page used. */
export interface StatementSite {
  readonly guard: StatementGuard;
  /** The connection (read replica or primary) the top page ran on; undefined inside a transaction. */
  readonly connection: object | undefined;
}

/**
 * The parents one statement may name: all of them, unless the dialect's parameter limit demands several statements
 * (half the limit is left to the filter's values). With the default limits that never happens; a walk's page of
 * 10,000 rows with a composite key could reach SQLite's 32,766.
 */
export function parentChunks<P>(
  level: { readonly target: { readonly dialect: Dialect }; readonly link: { readonly inner: readonly unknown[] } },
  parents: readonly P[],
): (readonly P[])[] {
  const size = Math.max(1, Math.floor(level.target.dialect.maxParameters / 2 / level.link.inner.length));
  if (parents.length > 0 && parents.length <= size) return [parents];
  const out: P[][] = [];
  for (let i = 0; i < parents.length; i += size) out.push(parents.slice(i, i + size));
  return out;
}

/** Narrow a copy of a planned statement to the given parents: `<parent key> in (…)`, every key value bound. */
function forParents(level: PlannedLevel, planned: AnyQueryBuilder, parents: readonly (readonly CursorValue[])[]) {
  const qb = planned.clone();
  qb.andWhere(level.target.dialect.tupleIn(innerColumns(level.link, level.target), parents.length), parents.flat());
  return qb;
}

/**
 * The statement reading a level's rows for these parents. A to-one level is its planned query. A list cuts each
 * parent's page out of the numbered rows, `limit + 1` of them after the offset (the extra row says more follow):
 *
 *     select "lq_x".* from (<planned rows, row_number() over (partition by <parent> order by <keys>) as "lq_rn">)
 *     as "lq_x" where "lq_x"."lq_rn" > ? and "lq_x"."lq_rn" <= ?
 *
 * (without the lower bound when the offset is 0: every row number is above it). The statement leaves its rows
 * unordered: each parent's rows are put in their row numbers' order as they are grouped (run.ts), which costs less
 * than the database's sort of them all.
 * With a backward cursor, the continued parent's page is cut by its mirrored number (`lq_rb`) instead; a list read
 * backward as a whole (GraphQL `last`) is numbered in the mirrored order throughout.
 */
export function levelStatement(
  level: PlannedLevel,
  planned: AnyQueryBuilder,
  parents: readonly (readonly CursorValue[])[],
): AnyQueryBuilder {
  const inner = forParents(level, planned, parents);
  const list = level.list;
  if (!list) return inner;
  const { bound } = level.target;
  const quote = (id: string) => bound.platform.quoteIdentifier(id);
  const column = (name: string) => quote(`${OUTER_ALIAS}.${name}`);
  const outer = subQueryBuilder(entityManagerOf(planned), bound.meta.class, OUTER_ALIAS);
  outer.from(inner, OUTER_ALIAS);
  const low = list.paging.offset;
  const high = low + list.paging.limit + 1;
  const range = (rank: string) => `${column(rank)} > ? and ${column(rank)} <= ?`;
  const position = list.position;
  if (position?.backward && !list.backward) {
    const same = level.link.inner.map((_, i) => `${column(parentAlias(i))} = ?`).join(' and ');
    outer.where(`((not (${same}) and ${range(RANK)}) or (${same} and ${range(BACK_RANK)}))`, [
      ...position.parent,
      low,
      high,
      ...position.parent,
      low,
      high,
    ]);
  } else if (low === 0) outer.where(`${column(RANK)} <= ?`, [high]);
  else outer.where(range(RANK), [low, high]);
  return outer;
}

/**
 * A level's rows for some parents. `driver`: the driver's rows (column names, driver values), read unmapped from the
 * level's compiled statements where its target has a row writer (writers.ts writeRows); else MikroORM's mapped rows.
 */
export interface LevelRows {
  readonly rows: Row[];
  readonly driver: boolean;
}

/** Run a level's row statements for these parents (one, unless the parameter limit splits them), in order. */
export async function fetchLevelRows(
  site: StatementSite,
  level: PlannedLevel,
  parents: readonly (readonly CursorValue[])[],
): Promise<LevelRows> {
  if (!hasData(level) || parents.length === 0) return { rows: [], driver: false };
  const build = async (part: readonly (readonly CursorValue[])[]) => {
    const { data } = await level.queries();
    return levelStatement(level, data!, part);
  };
  const alias = level.list ? OUTER_ALIAS : LEVEL_ALIAS;
  const { meta } = level.target.bound;
  const unmapped = level.compiled !== undefined && rowWriterOf(level.em, meta) !== null;
  const parts: LevelRows[] = [];
  for (const part of parentChunks(level, parents)) {
    const qb = await statementFor(level, 'data', alias, part, build);
    // Only a compiled statement's rows are MikroORM's result mapper's alone (no joined entity to merge).
    const driver = unmapped && isCompiledBuilder(qb);
    parts.push({ rows: await run(site, qb, level.target.dialect, !driver), driver });
  }
  if (parts.length === 1) return parts[0]!;
  // Chunks read differently (one could not be compiled): every row as MikroORM maps it.
  const driver = parts.every((p) => p.driver);
  const rows: Row[] = [];
  for (const p of parts) rows.push(...(p.driver && !driver ? mapDriverRows(level.em, meta, p.rows) : p.rows));
  return { rows, driver };
}

/** Whether a level reads rows: a to-one always, a list unless its limit is 0. */
export function hasData(level: PlannedLevel): boolean {
  return !level.list || level.list.paging.limit > 0;
}

/** Run a level's grouped count for these parents: rows of parent key columns and the count. */
export async function fetchLevelCounts(
  site: StatementSite,
  level: PlannedLevel,
  parents: readonly (readonly CursorValue[])[],
): Promise<Row[]> {
  if (!level.list?.list.count || parents.length === 0) return [];
  const build = async (part: readonly (readonly CursorValue[])[]) => {
    const { counter } = await level.queries();
    return forParents(level, counter!, part);
  };
  const rows: Row[] = [];
  for (const part of parentChunks(level, parents))
    rows.push(...(await run(site, await statementFor(level, 'count', LEVEL_ALIAS, part, build), level.target.dialect)));
  return rows;
}

/** The statement for these parents: the level's compiled one when its shape has one, else built afresh. */
async function statementFor(
  level: PlannedLevel,
  kind: string,
  alias: string,
  parents: readonly (readonly CursorValue[])[],
  build: (parents: readonly (readonly CursorValue[])[]) => Promise<AnyQueryBuilder>,
): Promise<AnyQueryBuilder> {
  if (level.compiled) {
    const chunk = Math.max(1, Math.floor(level.target.dialect.maxParameters / 2 / level.link.inner.length));
    const target = { entity: level.target.bound, alias };
    const width = level.link.inner.length;
    const qb = await compiledStatement(level.compiled, kind, level.em, target, parents, chunk, width, build);
    if (qb) return qb;
  }
  return build(parents);
}

/** The statements a level would send, with one stand-in parent (a NULL per key column), for explain(). */
export async function explainedLevel(
  level: PlannedLevel,
): Promise<{ data?: AnyQueryBuilder; count?: AnyQueryBuilder }> {
  const parents = [level.link.inner.map(() => null)];
  const { data, counter } = await level.queries();
  return {
    ...(data ? { data: levelStatement(level, data, parents) } : {}),
    ...(counter ? { count: forParents(level, counter, parents) } : {}),
  };
}

/**
 * Run one statement of a level on the top page's connection, under the request's guard; an abort stops it first.
 * SQLite's executor turns the event loop and checks the guard's signal before each guarded statement itself, so
 * there the loop is not turned twice; a failure after an abort is the abort's error either way. On a server the
 * loop has turned while the parent's statement was awaited, so the signal is checked without another turn.
 */
async function run(site: StatementSite, qb: AnyQueryBuilder, dialect: Dialect, mapped = true): Promise<Row[]> {
  if (site.connection) useConnection(qb, site.connection);
  const { signal } = site.guard;
  const execute = () => (mapped ? executeOwned<Row>(qb, site.guard) : executeUnmapped<Row>(qb, site.guard));
  if (!dialect.inProcess) return runAbortable(signal, execute, false);
  throwIfAborted(signal);
  try {
    return await execute();
  } catch (err) {
    throwIfAborted(signal);
    throw err;
  }
}
