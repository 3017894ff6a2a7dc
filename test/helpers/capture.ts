/**
 * Record what actually reaches the database drivers: the SQL text and the bound values of every statement
 * sent through `pg` (Client#query) and better-sqlite3 (Statement#all/get/run/iterate). Patches are undone after.
 */
import { createRequire } from 'node:module';
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

/**
 * Tell whether a statement is one the statement timeout wraps around each PostgreSQL query (`begin; set local
 * statement_timeout …`, `rollback`), not a data or count query.
 */
export function isGuardStatement(sql: string): boolean {
  return sql.startsWith('begin; set local statement_timeout') || sql === 'rollback';
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
  const restore = [
    patch(
      pg.Client.prototype,
      'query',
      (original) =>
        function (this: unknown, config: any, values?: any, ...rest: any[]) {
          const sql = typeof config === 'string' ? config : String(config?.text ?? '');
          const vals = Array.isArray(values) ? values : (config?.values ?? []);
          if (options.guards || !isGuardStatement(sql)) calls.push({ sql, values: [...vals] });
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
            calls.push({ sql: this.source, values: [...values] });
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
