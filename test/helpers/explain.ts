/**
 * The query plan the database makes of a statement, as text: PostgreSQL's `EXPLAIN` (run on its own connection,
 * optionally with sequential scans discouraged so a small table still shows whether an index can serve), SQLite's
 * `EXPLAIN QUERY PLAN`. The statement is passed exactly as the engine sends it: its SQL and bound values.
 */
import pg from 'pg';
import type { TestDatabase } from './db.ts';

/** Options of explainPlan(). */
export interface ExplainOptions {
  /** PostgreSQL only: `set enable_seqscan = off` first, so the plan shows an index whenever one can serve. */
  readonly noSeqScan?: boolean;
}

/** Return the plan of `sql` with `values` on the test database, one line per plan node. */
export async function explainPlan(
  db: Pick<TestDatabase, 'dialect' | 'url' | 'orm'>,
  sql: string,
  values: readonly unknown[],
  options: ExplainOptions = {},
): Promise<string> {
  if (db.dialect === 'postgresql') {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      if (options.noSeqScan) await client.query('set enable_seqscan = off');
      const res = await client.query(`explain ${sql}`, [...values]);
      return res.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.end();
    }
  }
  const rows = (await db.orm.em.getConnection().execute(`explain query plan ${sql}`, [...values])) as {
    detail: string;
  }[];
  return rows.map((r) => r.detail).join('\n');
}
