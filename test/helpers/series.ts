/**
 * Row generators for seeding large tables in one statement: the integers 1…count as one column, written the way
 * each dialect can produce that many rows.
 */
import type { Dialect } from './db.ts';

/** Return a `select` of the integers 1…count as the column `column`, for `insert … select … from (<it>) as s`. */
export function integerSeries(dialect: Dialect, count: number, column = 'i'): string {
  return {
    postgresql: `select ${column} from generate_series(1, ${count}) as g(${column})`,
    sqlite: `with recursive g(${column}) as (select 1 union all select ${column} + 1 from g where ${column} < ${count}) select ${column} from g`,
    // MariaDB stops a recursive CTE at 1,000 iterations by default; its sequence engine has any length.
    mariadb: `select seq as ${column} from seq_1_to_${count}`,
  }[dialect];
}
