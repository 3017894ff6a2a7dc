/**
 * The query plan the database makes of a statement, as text: PostgreSQL's `EXPLAIN` (run on its own connection,
 * optionally with sequential scans discouraged so a small table still shows whether an index can serve), SQLite's
 * `EXPLAIN QUERY PLAN`, MariaDB's `ANALYZE FORMAT=JSON` (the plan and what running it read) reduced to one line per
 * table read. The statement is passed exactly as the engine sends it: its SQL and bound values.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { TestDatabase } from './db.ts';

/** Options of explainPlan(). */
export interface ExplainOptions {
  /** PostgreSQL only: `set enable_seqscan = off` first, so the plan shows an index whenever one can serve. */
  readonly noSeqScan?: boolean;
}

/**
 * Return the plan of `sql` with `values` on the test database, one line per plan node.
 *
 * On MariaDB each line is one table read: `[filesort ][temporary ]<table> <access type>[ key=<index>] rows=<estimate>
 * r_rows=<rows read>`, where `filesort` says the rows read from that table are sorted after reading (no index gave
 * their order) and `r_rows` counts the rows the statement actually read there (it runs, as a prepared statement).
 * A derived table (`<derived2>`, a UNION ALL) has its own line, and its branches follow it.
 */
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
  if (db.dialect === 'mariadb') {
    const connection = await mysql.createConnection({ uri: db.url!, supportBigNumbers: true, dateStrings: true });
    try {
      const [rows] = await connection.execute(`analyze format=json ${sql}`, [...values] as never);
      const text = Object.values((rows as Record<string, string>[])[0]!)[0]!;
      return mariaDbPlanLines(JSON.parse(text)).join('\n');
    } finally {
      await connection.end();
    }
  }
  const rows = (await db.orm.em.getConnection().execute(`explain query plan ${sql}`, [...values])) as {
    detail: string;
  }[];
  return rows.map((r) => r.detail).join('\n');
}

type Json = Record<string, unknown>;

/** One line per table read in a MariaDB JSON plan, in plan order (see explainPlan). */
export function mariaDbPlanLines(plan: unknown): string[] {
  const lines: string[] = [];
  const visit = (node: unknown, sorted: boolean, temporary: boolean): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item, sorted, temporary);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Json)) {
      if (key === 'table' && value && typeof value === 'object') {
        const table = value as Json;
        const flags = `${sorted ? 'filesort ' : ''}${temporary ? 'temporary ' : ''}`;
        const index = table.key === undefined ? '' : ` key=${String(table.key)}`;
        const read = table.r_rows === undefined ? '' : ` r_rows=${String(table.r_rows)}`;
        lines.push(
          `${flags}${String(table.table_name)} ${String(table.access_type)}${index} rows=${String(table.rows)}${read}`,
        );
        // A derived table's own plan: its reads are sorted (or not) on their own.
        visit(table.materialized, false, false);
      } else if (key === 'filesort') visit(value, true, temporary);
      else if (key === 'temporary_table') visit(value, sorted, true);
      else visit(value, sorted, temporary);
    }
  };
  visit(plan, false, false);
  return lines;
}
