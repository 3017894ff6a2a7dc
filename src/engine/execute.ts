import type { QueryBuilder } from '@mikro-orm/sql';
import { type StatementGuard, statementGuard } from '../dialect/index.ts';
import { executionFailed, isListError, queryFailed } from '../errors.ts';
import { sendCompiled, withBoundParameters } from '../orm/bound-execution.ts';
import { checkExecutionRoute, executeSendsToQuery } from '../orm/compat.ts';
import { isCompiledBuilder } from '../orm/query-builder.ts';

/** Options of execute() and executeCount(): none by default (the application owns execution on this path). */
export interface ExecuteOptions {
  /** Cancel the query: on PostgreSQL it is cancelled on the server. */
  readonly signal?: AbortSignal | undefined;
  /** On PostgreSQL, stop the query after this many milliseconds with `query_timeout` (docs/security.md). */
  readonly statementTimeout?: number | undefined;
  /**
   * PostgreSQL settings the query runs under, each set with `set_config(name, value, true)` in the query's own
   * transaction (or the caller's, put back after): row-level security variables (docs/security.md).
   */
  readonly pgSettings?: Readonly<Record<string, string>> | undefined;
}

/**
 * Run a QueryBuilder with real server-side parameters; rows keyed by property name, as qb.execute('all') gives.
 * MikroORM's own `qb.execute()` splices every value into the SQL text; this sends them as bound parameters.
 *
 * @example await execute(apply(base, bound, parseHTTP({ filter: "name eq 'x'" })), { statementTimeout: 5000 })
 * // server receives: select "p".* from "product" as "p" where ("p"."name" = $1) … with parameters ['x', …]
 */
export async function execute<T = Record<string, unknown>>(
  qb: QueryBuilder<any>,
  options?: ExecuteOptions,
): Promise<T[]> {
  return executeOwned<T>(qb.clone(), guardOf(options));
}

/**
 * Run a QueryBuilder as execute() does, without copying it first: for a private builder that is used once. `guard`
 * bounds the statement (abort signal, statement timeout; each dialect's execute() applies it). `mapResults: false`:
 * the driver's rows as they are (column names, driver values), as `qb.execute('all', false)` gives them.
 */
export async function executeOwned<T = Record<string, unknown>>(
  qb: QueryBuilder<any>,
  guard?: StatementGuard,
  mapResults = true,
): Promise<T[]> {
  return failSafely(async () => {
    await checkExecutionRoute(qb);
    await checkCompiledText(qb);
    return withBoundParameters(qb, guard).execute<T[]>('all', mapResults);
  });
}

/**
 * The driver's rows of a private builder's statement, as `executeOwned(qb, guard, false)` gives them. A compiled
 * statement (compiledBuilder()) goes straight to the connection its builder picks (sendCompiled): none of the
 * builder's own execute() runs, which on a request's way to the database is most of what stands between a known
 * shape and its statement. Failures become ListErrors as executeOwned() makes them.
 */
export async function executeUnmapped<T = Record<string, unknown>>(
  qb: QueryBuilder<any>,
  guard?: StatementGuard,
): Promise<T[]> {
  if (isCompiledBuilder(qb)) {
    const { sql, params } = qb.toQuery() as { sql: string; params: readonly unknown[] };
    // Undefined when sendCompiled() sends nothing (the builder's execute() does more): then it runs below.
    const rows = await failSafely(async () => sendCompiled(qb, sql, params, guard));
    if (rows) return rows as T[];
  }
  return executeOwned<T>(qb, guard, false);
}

/**
 * Count the root rows a QueryBuilder selects (each root row once), with real server-side parameters.
 * Sort, limit and offset are ignored; joins and `distinct` of the base scope cannot inflate the count.
 */
export async function executeCount(qb: QueryBuilder<any>, options?: ExecuteOptions): Promise<number> {
  return executeCountOwned(qb.clone(), guardOf(options));
}

function guardOf(options: ExecuteOptions | undefined): StatementGuard | undefined {
  if (options?.signal === undefined && options?.statementTimeout === undefined && options?.pgSettings === undefined)
    return undefined;
  return statementGuard({}, options);
}

/**
 * Count as executeCountOwned() does; a compiled count statement (compiledBuilder(), already shaped as the count) is
 * sent as executeUnmapped() sends it.
 */
export async function countOwned(counter: QueryBuilder<any>, guard?: StatementGuard): Promise<number> {
  if (!isCompiledBuilder(counter)) return executeCountOwned(counter, guard);
  const rows = await executeUnmapped<{ count?: unknown }>(counter, guard);
  // PostgreSQL returns counts as strings (bigint); SQLite and MySQL as numbers.
  return Number(rows[0]?.count ?? 0);
}

/** Count as executeCount() does, without copying the QueryBuilder first: for a private builder that is used once. */
export async function executeCountOwned(counter: QueryBuilder<any>, guard?: StatementGuard): Promise<number> {
  return failSafely(async () => {
    await checkExecutionRoute(counter);
    await checkCompiledText(counter);
    shapeCount(counter);
    const row = await withBoundParameters(counter, guard).execute<{ count?: unknown } | undefined>('get', false);
    // PostgreSQL returns counts as strings (bigint); SQLite as numbers.
    return Number(row?.count ?? 0);
  });
}

/**
 * Run a private QueryBuilder's statement behind `prefix` (such as `explain (format json) `), bound and guarded like
 * any other statement; rows as the driver returns them, unmapped.
 */
export async function executePrefixedOwned(
  qb: QueryBuilder<any>,
  prefix: string,
  guard?: StatementGuard,
): Promise<Record<string, unknown>[]> {
  return failSafely(async () => {
    await checkExecutionRoute(qb);
    return withBoundParameters(qb, guard, prefix).execute<Record<string, unknown>[]>('all', false);
  });
}

/**
 * A builder that answers compiled text from its own toQuery() (compiledBuilder) runs only where execute() sends what
 * toQuery() answers; elsewhere it would run its empty shell, so it fails with `execution_failed` instead.
 */
async function checkCompiledText(qb: QueryBuilder<any>): Promise<void> {
  if (Object.hasOwn(qb, 'toQuery') && !(await executeSendsToQuery(qb)))
    throw executionFailed('this MikroORM version does not send the compiled statement a QueryBuilder answers');
}

async function failSafely<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    // A ListError (query_timeout among them) passes through as it is.
    if (isListError(err)) throw err;
    throw queryFailed(err);
  }
}

/** Turn a QueryBuilder into its count query in place: each root row once, no order, limit or offset. */
export function shapeCount<Q extends QueryBuilder<any>>(qb: Q): Q {
  // `count(pk, distinct)`: MikroORM wraps composite keys as `select count(*) from (select distinct …)`.
  qb.count(undefined, true);
  qb.limit(undefined).offset(undefined).orderBy([]);
  return qb;
}
