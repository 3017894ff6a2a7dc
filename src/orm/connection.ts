import type { Configuration, Platform } from '@mikro-orm/core';
import type { Kysely, QueryBuilder } from '@mikro-orm/sql';

/**
 * The members of MikroORM 7's SQL connection that bound execution relies on. Some are `protected` in its typings;
 * they are named here, in one place, so a MikroORM upgrade that moves them fails in one file, and createEngine
 * checks that they exist and that QueryBuilder.execute() still runs through them (compat.ts).
 *
 * Checked against MikroORM 7.2.1 (the development pin), 7.2.2 with SQLite and 7.2.5 with PostgreSQL (`npm run
 * compat`). When a version differs, createEngine refuses to start and every query refuses to run (compat.ts):
 * values are never inlined into SQL instead.
 */
export interface ConnectionInternals {
  readonly config: Configuration;
  ensureConnection(): Promise<void>;
  getClient(): Kysely<any>;
  getPlatform(): Platform;
  executeQuery<T>(query: string, cb: () => Promise<T>, context?: Record<string, unknown>): Promise<T>;
  transformRawResult<T>(res: unknown, method: 'all' | 'get' | 'run'): T;
  /** The driver's own client: on MySQL and MariaDB, the mysql2 pool (prepared statements run on it). */
  getNativeClient?(): Promise<unknown>;
}

/** The signature MikroORM's QueryBuilder uses to run its SQL on a connection. */
export type ConnectionExecute = (
  query: unknown,
  params?: unknown,
  method?: 'all' | 'get' | 'run',
  ctx?: Kysely<any>,
  loggerContext?: Record<string, unknown>,
) => Promise<unknown>;

/** The (private) QueryBuilder members that pick the connection it runs on. */
interface QueryBuilderInternals {
  getConnection(): ConnectionInternals;
  /** The transaction the builder was created in, if any: its queries then run on that transaction. */
  readonly context?: unknown;
}

/** Tell whether a QueryBuilder belongs to a transaction (MikroORM then runs it on the primary, in that transaction). */
export function inTransaction(qb: QueryBuilder<any>): boolean {
  return (qb as unknown as QueryBuilderInternals).context != null;
}

/** Read the connection a QueryBuilder would run on (read replica or primary, as MikroORM chooses). */
export function connectionOf(qb: QueryBuilder<any>): ConnectionInternals {
  return (qb as unknown as QueryBuilderInternals).getConnection();
}

/** Make one QueryBuilder instance run on another connection object; other instances are untouched. */
export function useConnection(qb: QueryBuilder<any>, connection: object): void {
  Object.defineProperty(qb, 'getConnection', { value: () => connection, configurable: true });
}

/**
 * Make one QueryBuilder instance run on `wrap(connection)`, where `connection` is the one it picks when it runs:
 * execute() switches a builder in a transaction to the primary only then (a read replica is never right there).
 */
export function wrapConnection(qb: QueryBuilder<any>, wrap: (connection: ConnectionInternals) => object): void {
  const pick = (qb as unknown as QueryBuilderInternals).getConnection.bind(qb);
  const wrapped = new WeakMap<ConnectionInternals, object>();
  Object.defineProperty(qb, 'getConnection', {
    value: () => {
      const connection = pick();
      let bound = wrapped.get(connection);
      if (!bound) {
        bound = wrap(connection);
        wrapped.set(connection, bound);
      }
      return bound;
    },
    configurable: true,
  });
}
