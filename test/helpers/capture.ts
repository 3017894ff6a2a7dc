/**
 * Record what actually reaches the database drivers: the SQL text and the bound values of every statement
 * sent through `pg` (Client#query), better-sqlite3 (Statement#all/get/run/iterate) and mysql2 (Connection#execute
 * for prepared statements, Connection#query for text ones). Patches are undone after.
 */
import { createRequire } from 'node:module';
import mysql from 'mysql2';
import pg from 'pg';

// better-sqlite3 ships no types and is only reached through MikroORM's SQLite driver, so load it untyped.
const Database = createRequire(import.meta.url)('better-sqlite3') as new (
  file: string,
) => { prepare(sql: string): object; close(): void };

/** One statement as the driver received it. */
export interface DriverCall {
  readonly sql: string;
  readonly values: readonly unknown[];
}

type Method = (this: any, ...args: any[]) => any;

function patch(target: any, name: string, wrap: (original: Method) => Method): () => void {
  const original = target[name] as Method;
  target[name] = wrap(original);
  return () => {
    target[name] = original;
  };
}

/** Count the calls of `target[name]` (each still made) until restore(); reset() starts the count again. */
export function countCalls(target: object, name: string): { count(): number; reset(): void; restore(): void } {
  let calls = 0;
  const restore = patch(
    target,
    name,
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        calls++;
        return original.apply(this, args);
      },
  );
  return {
    count: () => calls,
    reset: () => {
      calls = 0;
    },
    restore,
  };
}

/**
 * Tell whether a statement is one the statement guard runs around a query, not a data or count query: on PostgreSQL
 * the statement timeout's `begin; set local statement_timeout …` and `rollback`, and the `pg_backend_pid()` a cancel
 * request needs; on MySQL and MariaDB the
 * `select connection_id()` that finds a connection and the `KILL QUERY` of an abort.
 */
export function isGuardStatement(sql: string): boolean {
  return (
    sql.startsWith('begin; set local statement_timeout') ||
    sql === 'rollback' ||
    /^select connection_id\(\) as listql_connection_id$/.test(sql) ||
    sql === 'select pg_backend_pid() as listql_backend_pid' ||
    /^KILL QUERY \d+$/.test(sql)
  );
}

/**
 * The statement without the time limit MariaDB and MySQL statements carry (`SET STATEMENT max_statement_time = … FOR`,
 * the `MAX_EXECUTION_TIME` hint) and without MariaDB's index merge setting of a keyset page, so that tests read the
 * query itself on every dialect.
 */
export function withoutTimeLimit(sql: string): string {
  return sql
    .replace(/^SET STATEMENT max_statement_time = [\d.]+(, optimizer_switch = 'index_merge=off')? FOR /, '')
    .replace(/^SET STATEMENT optimizer_switch = 'index_merge=off' FOR /, '')
    .replace(/^(select) \/\*\+ MAX_EXECUTION_TIME\(\d+\) \*\/ /i, '$1 ');
}

/**
 * The statement as listql built it, from the text SQLite prepared: a trailing `limit ?` (and `offset ?`) is prepared
 * as `limit +?` (dialect/sqlite.ts), the same statement; other texts are returned as they are.
 */
export function asBuilt(sql: string): string {
  return sql.replace(
    / limit \+\?( offset \+\?)?$/,
    (_, offset: string | undefined) => ` limit ?${offset ? ' offset ?' : ''}`,
  );
}

/**
 * Run `fn` while recording every statement the drivers receive; the statement timeout's own statements are left
 * out unless `guards` is true.
 */
export async function captureDriver<T>(
  fn: () => Promise<T>,
  options: { readonly guards?: boolean } = {},
): Promise<{ result: T; calls: DriverCall[] }> {
  const calls: DriverCall[] = [];
  const probe = new Database(':memory:');
  const statementProto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  const record = (sql: string, values: readonly unknown[]) => {
    if (options.guards) calls.push({ sql, values: [...values] });
    else if (!isGuardStatement(sql)) calls.push({ sql: withoutTimeLimit(sql), values: [...values] });
  };
  const restore = [
    ...['execute', 'query'].map((name) =>
      patch(
        mysql.Connection.prototype,
        name,
        (original) =>
          function (this: unknown, sql: any, values?: any, ...rest: any[]) {
            const text = typeof sql === 'string' ? sql : String(sql?.sql ?? '');
            const vals = Array.isArray(values) ? values : Array.isArray(sql?.values) ? sql.values : [];
            record(text, vals);
            return original.call(this, sql, values, ...rest);
          },
      ),
    ),
    patch(
      pg.Client.prototype,
      'query',
      (original) =>
        function (this: unknown, config: any, values?: any, ...rest: any[]) {
          const sql = typeof config === 'string' ? config : String(config?.text ?? '');
          const vals = Array.isArray(values) ? values : (config?.values ?? []);
          record(sql, vals);
          return original.call(this, config, values, ...rest);
        },
    ),
    ...['all', 'get', 'run', 'iterate'].map((name) =>
      patch(
        statementProto,
        name,
        (original) =>
          function (this: { source: string }, ...args: any[]) {
            const values = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
            record(this.source, values);
            return original.apply(this, args);
          },
      ),
    ),
  ];
  try {
    return { result: await fn(), calls };
  } finally {
    for (const undo of restore.reverse()) undo();
  }
}
