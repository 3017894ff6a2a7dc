import { type EntityManager, isRaw } from '@mikro-orm/core';
import type { Kysely, QueryBuilder } from '@mikro-orm/sql';
import { CompiledQuery } from 'kysely';
import { dialectFor, type StatementGuard, type StatementRun } from '../dialect/index.ts';
import { invalidSchema } from '../errors.ts';
import { type BoundStatement, bindStatement } from './bound-sql.ts';
import {
  type ConnectionExecute,
  type ConnectionInternals,
  connectionOf,
  useConnection,
  wrapConnection,
} from './connection.ts';

/**
 * Where a QueryBuilder's SQL leaves MikroORM: its execute() hands SQL text and values to the connection's
 * execute(), which this replaces on one builder instance (binding the values, or recording the statement), while
 * everything else execute() does stays MikroORM's. It relies on the connection members of connection.ts and on the
 * route execute() takes to them.
 *
 * Checked against MikroORM 7.2.1 (the development pin), 7.2.2 with SQLite and 7.2.5 with PostgreSQL (`npm run
 * compat`). When a version differs: every query first awaits checkExecutionRoute() (compat.ts), which proves the
 * route on the installed MikroORM; if it does not hold, the query fails with `execution_failed` and never runs, and
 * values are never inlined into SQL instead.
 */

/**
 * Let a QueryBuilder keep doing everything `execute()` does (replica choice, transaction context, row-level
 * session context, caching, logging, row mapping), but hand its SQL to a connection that binds parameters; the
 * dialect's executor runs the bound statement under `guard`, behind `prefix` (such as `explain (format json) `).
 */
export function withBoundParameters<Q extends QueryBuilder<any>>(
  qb: Q,
  guard: StatementGuard | undefined,
  prefix = '',
): Q {
  wrapConnection(qb, (connection) =>
    replaceExecute(connection, (query, params, method, ctx, loggerContext) =>
      executeBound(connection, query, params, method ?? 'all', ctx, loggerContext, guard, prefix),
    ),
  );
  return qb;
}

/**
 * Build the statement a QueryBuilder would send, without sending it: its `execute()` runs as usual up to the
 * connection, which records the SQL and values instead of running them; they are then bound as execution binds
 * them. So the text is exactly what the database would receive.
 */
export async function captureStatement(
  qb: QueryBuilder<any>,
  method: 'all' | 'get',
  mapResults = true,
): Promise<BoundStatement> {
  const connection = connectionOf(qb);
  let captured: { query: unknown; params: unknown } | undefined;
  const record: ConnectionExecute = async (query, params) => {
    captured = { query, params };
    return method === 'get' ? undefined : [];
  };
  useConnection(qb, replaceExecute(connection, record));
  await qb.execute(method, mapResults);
  if (!captured) throw new Error('listql: the query builder sent no statement');
  let { query: sql, params } = captured;
  if (typeof sql === 'object' && sql !== null && 'sql' in sql && 'params' in sql) {
    params = (sql as { params: unknown }).params;
    sql = (sql as { sql: unknown }).sql;
  }
  if (typeof sql !== 'string' || !Array.isArray(params ?? [])) throw new Error('listql: unexpected query shape');
  const values = (params ?? []) as unknown[];
  return bindStatement(connection.getPlatform(), onQueryOf(connection)(sql, values), values);
}

/** A stand-in for `connection` whose execute() is `execute`; every other member is the connection's own. */
function replaceExecute(connection: ConnectionInternals, execute: ConnectionExecute): object {
  return new Proxy(connection, {
    get(target, key) {
      if (key === 'execute') return execute;
      const member = Reflect.get(target, key, target);
      // Bind to the real connection: its methods read private fields, which a proxy receiver lacks.
      return typeof member === 'function' ? member.bind(target) : member;
    },
  });
}

function onQueryOf(connection: ConnectionInternals): (sql: string, params: readonly unknown[]) => string {
  return connection.config.get('onQuery') as (sql: string, params: readonly unknown[]) => string;
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
  const platform = connection.getPlatform();
  const dialect = dialectFor(platform);
  const statement = bindStatement(platform, prefix + onQueryOf(connection)(sql, values), values, dialect);
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
      // The dialect's executor gets the connection's clients as values: src/dialect never imports src/orm.
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

/** The QueryBuilder members a compiled statement's direct run reads (see sendCompiled). */
interface SendFields {
  connectionType?: unknown;
  readonly context?: Kysely<any>;
  readonly loggerContext?: Record<string, unknown>;
  getConnection(): ConnectionInternals;
}

/**
 * Run a compiledBuilder()'s statement as its `execute('all', false)` would, without the builder's own execute(): on
 * the connection it picks (or was given, useConnection()), in its transaction, logged with its logger context, bound
 * and guarded as every statement is; the driver's rows as they are. Undefined, running nothing, where execute() does
 * more than that: a result cache or a session context (row-level security) in force; the caller then runs the
 * builder itself.
 */
export function sendCompiled(
  qb: QueryBuilder<any>,
  sql: string,
  params: readonly unknown[],
  guard: StatementGuard | undefined,
): Promise<unknown[]> | undefined {
  const em = (qb as unknown as { em?: EntityManager }).em;
  // A MikroORM without session contexts has none in force.
  const session = em as Partial<Pick<EntityManager, 'getSessionContext' | 'getTransactionSessionContext'>> | undefined;
  if (!em || em.config.get('resultCache')?.global) return undefined;
  if (session?.getSessionContext?.() || session?.getTransactionSessionContext?.()) return undefined;
  const fields = qb as unknown as SendFields;
  // As execute() does: a builder in a transaction runs on the primary.
  if (!fields.connectionType && fields.context) fields.connectionType = 'write';
  const connection = fields.getConnection();
  const loggerContext = { id: em.id, ...fields.loggerContext };
  return executeBound(connection, sql, [...params], 'all', fields.context, loggerContext, guard) as Promise<unknown[]>;
}
