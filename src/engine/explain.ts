import type { QueryBuilder } from '@mikro-orm/sql';
import { bindStatement } from './bound-sql.ts';
import { type ConnectionExecute, connectionOf, useConnection } from './internals.ts';

/** One statement as the engine would send it: SQL in the driver's placeholder style, and its parameters. */
export interface ExplainedStatement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/**
 * The statements a list() of the same request would send, built after the same checks and never run: the data
 * query (absent when `limit=0`) and, with `count=true`, the count query (with `count=estimated`, the `explain` that
 * estimates it).
 */
export interface Explanation {
  readonly data?: ExplainedStatement;
  readonly count?: ExplainedStatement;
}

/**
 * Build the statement a QueryBuilder would send, without sending it: its `execute()` runs as usual up to the
 * connection, which records the SQL and values instead of running them; they are then bound as execution binds
 * them. So the text is exactly what the database would receive.
 */
export async function explainStatement(
  qb: QueryBuilder<any>,
  method: 'all' | 'get',
  mapResults = true,
): Promise<ExplainedStatement> {
  const connection = connectionOf(qb);
  let captured: { query: unknown; params: unknown } | undefined;
  const record: ConnectionExecute = async (query, params) => {
    captured = { query, params };
    return method === 'get' ? undefined : [];
  };
  useConnection(
    qb,
    new Proxy(connection, {
      get(target, key) {
        if (key === 'execute') return record;
        const member = Reflect.get(target, key, target);
        return typeof member === 'function' ? member.bind(target) : member;
      },
    }),
  );
  await qb.execute(method, mapResults);
  if (!captured) throw new Error('listql: the query builder sent no statement');
  let { query: sql, params } = captured;
  if (typeof sql === 'object' && sql !== null && 'sql' in sql && 'params' in sql) {
    params = (sql as { params: unknown }).params;
    sql = (sql as { sql: unknown }).sql;
  }
  if (typeof sql !== 'string' || !Array.isArray(params ?? [])) throw new Error('listql: unexpected query shape');
  const onQuery = connection.config.get('onQuery') as (sql: string, params: readonly unknown[]) => string;
  const statement = bindStatement(
    connection.getPlatform(),
    onQuery(sql, (params ?? []) as unknown[]),
    (params ?? []) as unknown[],
  );
  return { sql: statement.sql, params: statement.parameters };
}
