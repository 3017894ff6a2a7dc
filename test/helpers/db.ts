/**
 * Real databases for tests: an in-memory SQLite, and a PostgreSQL and a MariaDB database created for this run and
 * dropped after.
 *
 * PostgreSQL: `LISTQL_PG_URL` if set; else a testcontainers PostgreSQL when a Docker engine answers and
 * `@testcontainers/postgresql` is installed; else `postgresql://postgres@127.0.0.1:5432/postgres`.
 * MariaDB (or MySQL): `LISTQL_MYSQL_URL` if set, else `mysql://root@127.0.0.1:3306/`.
 * When none answers, the suite fails saying how to provide one. It never skips silently.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { EntityManager, EntityMetadata, EntityProperty, EntitySchema, MikroORM, Platform } from '@mikro-orm/core';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { suite, type Test } from 'uvu';

/** `mariadb` runs MikroORM's `@mikro-orm/mariadb` driver (listql's `mysql` dialect family) on a MariaDB server. */
export type Dialect = 'sqlite' | 'postgresql' | 'mariadb';
/**
 * The dialects the tests run on: all of them, or only those `LISTQL_TEST_DIALECTS` names (comma-separated), as
 * `npm run compat` does when the newest release of one driver cannot be installed beside another's.
 */
export const DIALECTS: readonly Dialect[] = onlyNamed(['sqlite', 'postgresql', 'mariadb']);

function onlyNamed(all: readonly Dialect[]): readonly Dialect[] {
  const named = (process.env.LISTQL_TEST_DIALECTS ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean);
  if (named.length === 0) return all;
  const unknown = named.filter((d) => !all.includes(d as Dialect));
  if (unknown.length > 0) throw new Error(`LISTQL_TEST_DIALECTS names unknown dialects: ${unknown.join(', ')}`);
  return all.filter((d) => named.includes(d));
}

const DEFAULT_PG_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

let adminUrl: Promise<string> | undefined;

/** Find a PostgreSQL server to create test databases on, once per process. */
export function postgresAdminUrl(): Promise<string> {
  adminUrl ??= locatePostgres();
  return adminUrl;
}

async function locatePostgres(): Promise<string> {
  if (process.env.LISTQL_PG_URL) return process.env.LISTQL_PG_URL;
  if (existsSync('/var/run/docker.sock')) {
    const url = await startContainer().catch(() => undefined);
    if (url) return url;
  }
  const client = new pg.Client({ connectionString: DEFAULT_PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return DEFAULT_PG_URL;
  } catch (err) {
    throw new Error(
      `No PostgreSQL for the tests: set LISTQL_PG_URL=postgresql://user@host:port/db, start a Docker engine ` +
        `(with @testcontainers/postgresql installed), or run PostgreSQL at ${DEFAULT_PG_URL}. (${(err as Error).message})`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}

async function startContainer(): Promise<string | undefined> {
  const moduleName = '@testcontainers/postgresql';
  const mod = (await import(moduleName).catch(() => undefined)) as
    | { PostgreSqlContainer: new (image: string) => { start(): Promise<{ getConnectionUri(): string }> } }
    | undefined;
  if (!mod) return undefined;
  const container = await new mod.PostgreSqlContainer('postgres:15').start();
  return container.getConnectionUri();
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Run `fn` with a client on the PostgreSQL test server's admin database. */
export async function postgresAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: await postgresAdminUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Create an empty, uniquely named PostgreSQL database (for child processes given its URL), and the way to drop it. */
export async function createPostgresDatabase(prefix = 'listql_test'): Promise<{ url: string; drop(): Promise<void> }> {
  const database = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await postgresAdmin((c) => c.query(`create database "${database}"`));
  return {
    url: withDatabase(await postgresAdminUrl(), database),
    drop: () =>
      postgresAdmin((c) => c.query(`drop database if exists "${database}" with (force)`)).then(() => undefined),
  };
}

const DEFAULT_MYSQL_URL = 'mysql://root@127.0.0.1:3306/';

let mysqlUrl: Promise<string> | undefined;

/** Find a MariaDB (or MySQL) server to create test databases on, once per process. */
export function mysqlAdminUrl(): Promise<string> {
  mysqlUrl ??= locateMysql();
  return mysqlUrl;
}

async function locateMysql(): Promise<string> {
  const url = process.env.LISTQL_MYSQL_URL ?? DEFAULT_MYSQL_URL;
  try {
    await mysqlAdmin(url, (c) => c.query('select 1'));
    return url;
  } catch (err) {
    throw new Error(
      `No MariaDB/MySQL for the tests: set LISTQL_MYSQL_URL=mysql://user:password@host:port/, or run MariaDB at ` +
        `${DEFAULT_MYSQL_URL} (user root, no password). (${(err as Error).message})`,
    );
  }
}

/** Run `fn` with a client on the MariaDB test server (found once, see mysqlAdminUrl). */
export async function mariadbAdmin<T>(fn: (client: mysql.Connection) => Promise<T>): Promise<T> {
  return mysqlAdmin(await mysqlAdminUrl(), fn);
}

async function mysqlAdmin<T>(url: string, fn: (client: mysql.Connection) => Promise<T>): Promise<T> {
  const client = await mysql.createConnection({ uri: url, connectTimeout: 3000 });
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Create an empty, uniquely named MariaDB database (for child processes given its URL), and the way to drop it. */
export async function createMysqlDatabase(prefix = 'listql_test'): Promise<{ url: string; drop(): Promise<void> }> {
  const database = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const adminUrl = await mysqlAdminUrl();
  await mysqlAdmin(adminUrl, (c) => c.query(`create database \`${database}\``));
  return {
    url: withDatabase(adminUrl, database),
    drop: () => mysqlAdmin(adminUrl, (c) => c.query(`drop database if exists \`${database}\``)).then(() => undefined),
  };
}

/** A fresh database of `dialect` on its server (PostgreSQL or MariaDB), and the way to drop it. */
export function createDatabase(
  dialect: Exclude<Dialect, 'sqlite'>,
  prefix?: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  return dialect === 'postgresql' ? createPostgresDatabase(prefix) : createMysqlDatabase(prefix);
}

/** A MikroORM instance on a fresh database of the dialect, and the way to drop it. */
export interface TestDatabase {
  readonly dialect: Dialect;
  readonly orm: MikroORM;
  /** The connection URL of this database (PostgreSQL or MariaDB; undefined on SQLite). */
  readonly url?: string;
  dispose(): Promise<void>;
}

type AnyEntity = EntitySchema<any> | (new (...args: any[]) => object);

/** Create a fresh database for `dialect`, create the schema of `entities` in it, and return an ORM on it. */
export async function openDatabase(
  dialect: Dialect,
  entities: readonly AnyEntity[],
  options: Record<string, unknown> = {},
): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const { MikroORM } = await import('@mikro-orm/sqlite');
    const orm = await MikroORM.init({ entities: [...entities], dbName: ':memory:', debug: false, ...options });
    await orm.schema.create();
    return { dialect, orm, dispose: () => orm.close(true) };
  }
  const created = await createDatabase(dialect);
  const { MikroORM } =
    dialect === 'postgresql' ? await import('@mikro-orm/postgresql') : await import('@mikro-orm/mariadb');
  try {
    const orm = await MikroORM.init({
      entities: [...entities],
      clientUrl: created.url,
      debug: false,
      ...options,
      ...(dialect === 'mariadb' ? { discovery: microsecondDateTimes(options['discovery']) } : {}),
    });
    await orm.schema.create();
    return {
      dialect,
      orm,
      url: created.url,
      async dispose() {
        await orm.close(true);
        await created.drop();
      },
    };
  } catch (err) {
    await created.drop();
    throw err;
  }
}

type Discovery = { onMetadata?: (meta: EntityMetadata, platform: Platform) => Promise<void> | void } & Record<
  string,
  unknown
>;

/**
 * MikroORM's MySQL/MariaDB platform gives a `datetime` property without a `length` a DATETIME(0) column (whole
 * seconds), where SQLite and PostgreSQL keep microseconds. The precision of a column is the application's choice;
 * the tests store date-times alike on every dialect, so on MariaDB a date-time property that states no length
 * (and a `datetime`/`timestamp` columnType without one) gets 6 fractional digits. Pass the result as the ORM's
 * `discovery` option; `discovery` (if any) is kept and its own onMetadata still runs.
 */
export function microsecondDateTimes(discovery?: unknown): Discovery {
  const own = (discovery ?? {}) as Discovery;
  return {
    ...own,
    async onMetadata(meta, platform) {
      for (const prop of Object.values(meta.properties) as EntityProperty[]) {
        if (prop.length != null || !isDateTime(prop)) continue;
        prop.length = 6;
        const declared = prop.columnTypes?.[0];
        if (declared && /^(datetime|timestamp)$/i.test(declared)) prop.columnTypes = [`${declared}(6)`];
      }
      await own.onMetadata?.(meta, platform);
    },
  };
}

function isDateTime(prop: EntityProperty): boolean {
  if (prop.kind !== 'scalar') return false;
  const type = prop.type as unknown;
  const name = typeof type === 'function' ? type.name : typeof type === 'string' ? type : type?.constructor?.name;
  if (/^(datetime|DateTimeType|timestamp)$/i.test(name ?? '')) return true;
  return name === 'Date' || (name === undefined && prop.runtimeType === 'Date');
}

/** The context every dialect suite's tests receive. */
export interface DialectContext {
  db: TestDatabase;
  /** A fresh EntityManager fork per test. */
  em: EntityManager;
}

/**
 * Define the same tests once per dialect: `define` runs for SQLite, PostgreSQL and MariaDB, each with its own
 * database, schema and seed. Suites are named `<name> [<dialect>]`.
 */
export function eachDialect(
  name: string,
  setup: {
    entities: readonly AnyEntity[];
    /** Fill the fresh database once, before the suite's tests. */
    seed?: (em: EntityManager, dialect: Dialect) => Promise<void>;
    options?: Record<string, unknown>;
  },
  define: (test: Test<DialectContext>, dialect: Dialect) => void,
): void {
  for (const dialect of DIALECTS) {
    const s = suite<DialectContext>(`${name} [${dialect}]`, {} as DialectContext);
    s.before(async (ctx) => {
      try {
        ctx.db = await openDatabase(dialect, setup.entities, setup.options);
        if (setup.seed) await setup.seed(ctx.db.orm.em.fork(), dialect);
      } catch (err) {
        // uvu reports a failing hook only as "(0 / N)": say why, or the cause is lost.
        console.error(`${name} [${dialect}]: setup failed:`, err);
        throw err;
      }
    });
    s.before.each((ctx) => {
      ctx.em = ctx.db.orm.em.fork();
    });
    s.after(async (ctx) => {
      await ctx.db?.dispose();
    });
    define(s, dialect);
    s.run();
  }
}
