import { isRaw } from '@mikro-orm/core';
import type { QueryBuilder } from '@mikro-orm/sql';
import { CompiledQuery } from 'kysely';
import { dialectFor, type StatementGuard, type StatementRun, statementGuard } from '../dialect/index.ts';
import { invalidSchema, isListError, queryFailed } from '../errors.ts';
import { bindStatement } from './bound-sql.ts';
import { checkExecutionRoute } from './compat.ts';
import { type ConnectionExecute, type ConnectionInternals, wrapConnection } from './internals.ts';

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
 * bounds the statement (abort signal, statement timeout; each dialect's execute() applies it).
 */
export async function executeOwned<T = Record<string, unknown>>(
  qb: QueryBuilder<any>,
  guard?: StatementGuard,
): Promise<T[]> {
  return failSafely(async () => {
    await checkExecutionRoute(qb);
    return withBoundParameters(qb, guard).execute<T[]>('all');
  });
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

/** Count as executeCount() does, without copying the QueryBuilder first: for a private builder that is used once. */
export async function executeCountOwned(counter: QueryBuilder<any>, guard?: StatementGuard): Promise<number> {
  return failSafely(async () => {
    await checkExecutionRoute(counter);
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

async function failSafely<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    // A ListError (query_timeout among them) passes through as it is.
    if (isListError(err)) throw err;
    throw queryFailed(err);
  }
}

/**
 * Let a QueryBuilder keep doing everything `execute()` does (replica choice, transaction context, row-level
 * session context, caching, logging, row mapping), but hand its SQL to a connection that binds parameters.
 */
function withBoundParameters<Q extends QueryBuilder<any>>(qb: Q, guard: StatementGuard | undefined, prefix = ''): Q {
  wrapConnection(qb, (connection) => {
    const execute: ConnectionExecute = (query, params, method, ctx, loggerContext) =>
      executeBound(connection, query, params, method ?? 'all', ctx, loggerContext, guard, prefix);
    return new Proxy(connection, {
      get(target, key) {
        if (key === 'execute') return execute;
        const member = Reflect.get(target, key, target);
        // Bind to the real connection: its methods read private fields, which a proxy receiver lacks.
        return typeof member === 'function' ? member.bind(target) : member;
      },
    });
  });
  return qb;
}

async function executeBound(
  connection: ConnectionInternals,
  query: unknown,
  params: unknown,
  method: 'all' | 'get' | 'run',
  ctx: Parameters<ConnectionExecute>[3],
  loggerContext: Record<string, unknown> = {},
  guard?: StatementGuard,
  prefix = '',
): Promise<unknown> {
  let sql: unknown = query;
  let values: unknown = params ?? [];
  if (isRaw(sql)) {
    values = sql.params;
    sql = sql.sql;
  }
  if (typeof sql !== 'string' || !Array.isArray(values)) throw new Error('listql: unexpected query shape');
  await connection.ensureConnection();
  const onQuery = connection.config.get('onQuery') as (sql: string, params: readonly unknown[]) => string;
  const platform = connection.getPlatform();
  const dialect = dialectFor(platform);
  const statement = bindStatement(platform, prefix + onQuery(sql, values), values, dialect);
  const { signal, inflightQueryAbortStrategy, ...logContext } = loggerContext;
  const abort =
    signal == null && inflightQueryAbortStrategy == null ? undefined : { signal, inflightQueryAbortStrategy };
  const client = ctx ?? connection.getClient();
  // Ignoring them would run the statement without the row-level security context the application asked for.
  if (guard?.settings && !dialect.scopesSessionSettings)
    throw invalidSchema('ctx.pgSettings is for PostgreSQL only; this database is not PostgreSQL');
  return connection.executeQuery(
    statement.sql,
    async () => {
      const run: StatementRun = {
        root: connection.getClient(),
        client,
        nativeClient: () => connection.getNativeClient?.(),
        compiled: CompiledQuery.raw(statement.sql, [...statement.parameters]),
        guard,
        abort: abort as StatementRun['abort'],
      };
      return connection.transformRawResult(await dialect.execute(run), method);
    },
    { ...logContext, query: statement.sql, params: statement.parameters },
  );
}

/** Turn a QueryBuilder into its count query in place: each root row once, no order, limit or offset. */
export function shapeCount<Q extends QueryBuilder<any>>(qb: Q): Q {
  // `count(pk, distinct)`: MikroORM wraps composite keys as `select count(*) from (select distinct …)`.
  qb.count(undefined, true);
  qb.limit(undefined).offset(undefined).orderBy([]);
  return qb;
}
