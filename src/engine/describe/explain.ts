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
 * estimates it); with nested selections, each level's statements in the order they run.
 */
export interface Explanation {
  readonly data?: ExplainedStatement;
  readonly count?: ExplainedStatement;
  /** Nested selections (`fields=author(name),reviews(stars)`): one entry per level, each level before its children. */
  readonly levels?: readonly ExplainedLevel[];
  /** `facets`: one grouped statement per facet, in the order requested (docs/facets.md). */
  readonly facets?: readonly ExplainedFacet[];
}

/** One facet's statement: the facet's name, and the statement as the engine would send it. */
export interface ExplainedFacet extends ExplainedStatement {
  readonly name: string;
}

/**
 * One nested level's statements: the one statement that reads the level for all its parents, and its grouped count.
 * The parents' keys are only known once the page above is read: here they stand as one NULL per key column.
 */
export interface ExplainedLevel {
  /** The selection's dotted output-key path (`reviews`, `reviews.author`). */
  readonly path: string;
  /** The level's rows; absent when its lists are empty (`<path>.limit=0`). */
  readonly data?: ExplainedStatement;
  /** Each parent's count, with `<path>.count=true`. */
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
