import type { QueryBuilder } from '@mikro-orm/sql';
import { captureStatement } from '../../orm/bound-execution.ts';

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
 * Build the statement a QueryBuilder would send, without sending it, exactly as the database would receive it
 * (see captureStatement).
 */
export async function explainStatement(
  qb: QueryBuilder<any>,
  method: 'all' | 'get',
  mapResults = true,
): Promise<ExplainedStatement> {
  const statement = await captureStatement(qb, method, mapResults);
  return { sql: statement.sql, params: statement.parameters };
}
