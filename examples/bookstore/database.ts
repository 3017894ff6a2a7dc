/**
 * Open the bookstore database: the server `DATABASE_URL` names when it is set (PostgreSQL for `postgres://` or
 * `postgresql://`, MySQL or MariaDB for `mysql://` or `mariadb://`), else the embedded SQLite file
 * `.data/bookstore.sqlite` at the repository root (or `BOOKSTORE_SQLITE`). The schema is created and seeded on
 * first start, and left alone after that. The database of DATABASE_URL must exist: a mistyped name is refused, not
 * silently created, unless `BOOKSTORE_CREATE_DB=1` asks for it.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlDriver, SqlEntityManager } from '@mikro-orm/sql';
import type { RowDataPacket } from 'mysql2/promise';
import { ENTITIES, Publisher } from './entities.ts';
import { seed } from './seed.ts';

/** A MikroORM instance on either SQL driver the bookstore supports. */
export type BookstoreORM = MikroORM<AbstractSqlDriver, SqlEntityManager>;

/** Where the bookstore keeps its data, read from the environment. */
export interface DatabaseOptions {
  /** A `postgres://`, `postgresql://`, `mysql://` or `mariadb://` URL; when absent, SQLite is used. */
  readonly databaseUrl?: string | undefined;
  /** The SQLite file; defaults to `.data/bookstore.sqlite` at the repository root. */
  readonly sqliteFile?: string | undefined;
  /** Create the database of `databaseUrl` when it does not exist (default: refuse, naming the database). */
  readonly createDatabase?: boolean | undefined;
  /** Read replicas of `databaseUrl` (same kind of URL): list reads go to them, writes to `databaseUrl`. */
  readonly replicaUrls?: readonly string[] | undefined;
}

/**
 * Read the database options from the environment: DATABASE_URL, BOOKSTORE_SQLITE, BOOKSTORE_CREATE_DB and
 * DATABASE_REPLICA_URLS (comma-separated read replicas of DATABASE_URL).
 */
export function databaseOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): DatabaseOptions {
  return {
    databaseUrl: env.DATABASE_URL || undefined,
    sqliteFile: env.BOOKSTORE_SQLITE || undefined,
    createDatabase: env.BOOKSTORE_CREATE_DB === '1',
    replicaUrls: env.DATABASE_REPLICA_URLS?.split(',')
      .map((url) => url.trim())
      .filter(Boolean),
  };
}

/** The database servers DATABASE_URL can name, by its scheme (`mysql://` is MySQL or MariaDB, as the server says). */
type Server = 'postgresql' | 'mysql' | 'mariadb';

const SERVER_NAMES: Record<Server, string> = { postgresql: 'PostgreSQL', mysql: 'MySQL', mariadb: 'MariaDB' };

/**
 * Say which database `orm` was opened on from `options`, for a start-up banner: never the URL, which may carry a
 * password.
 */
export function describeDatabase(orm: BookstoreORM, { databaseUrl, sqliteFile }: DatabaseOptions): string {
  if (databaseUrl) return `${SERVER_NAMES[serverOf(orm)]} (DATABASE_URL)`;
  return `SQLite (${sqliteFile ?? '.data/bookstore.sqlite'})`;
}

function serverOf(orm: BookstoreORM): Server {
  const platform = orm.em.getPlatform().constructor.name;
  return /mariadb/i.test(platform) ? 'mariadb' : /mysql/i.test(platform) ? 'mysql' : 'postgresql';
}

/** The default SQLite file, in the git-ignored `.data/` folder at the repository root. */
export const DEFAULT_SQLITE_FILE = fileURLToPath(new URL('../../.data/bookstore.sqlite', import.meta.url));

/** Open the database named by `options`, creating and seeding it when it has no bookstore tables yet. */
export async function openBookstore(options: DatabaseOptions = {}): Promise<BookstoreORM> {
  const orm = await connect(options);
  try {
    if (options.databaseUrl && !options.createDatabase) await checkDatabaseExists(orm);
    const publishers = await countPublishers(orm);
    if (publishers === undefined) await orm.schema.create();
    // One flush, one transaction: a seed that fails leaves no rows, and the next start seeds again.
    if (!publishers) await seed(orm.em.fork());
    return orm;
  } catch (err) {
    await orm.close(true);
    throw err;
  }
}

async function connect({
  databaseUrl,
  sqliteFile,
  createDatabase,
  replicaUrls,
}: DatabaseOptions): Promise<BookstoreORM> {
  if (databaseUrl) {
    // MikroORM creates a missing database on connect by default (`ensureDatabase`): only when asked to here.
    const replicas = (replicaUrls ?? []).map((clientUrl) => ({ clientUrl }));
    const options = { entities: ENTITIES, clientUrl: databaseUrl, ensureDatabase: createDatabase === true, replicas };
    switch (await serverAt(databaseUrl)) {
      case 'postgresql':
        return (await import('@mikro-orm/postgresql')).MikroORM.init(options);
      case 'mariadb':
        return (await import('@mikro-orm/mariadb')).MikroORM.init(options);
      case 'mysql':
        return (await import('@mikro-orm/mysql')).MikroORM.init(options);
    }
  }
  const file = sqliteFile ?? DEFAULT_SQLITE_FILE;
  mkdirSync(dirname(file), { recursive: true });
  const { MikroORM } = await import('@mikro-orm/sqlite');
  return MikroORM.init({ entities: ENTITIES, dbName: file });
}

/**
 * Which server a DATABASE_URL names, by its scheme. `mysql://` is what MySQL and MariaDB users both write, so the
 * server is asked: MikroORM has a driver for each (`@mikro-orm/mysql`, `@mikro-orm/mariadb`), and listql puts its
 * statement time limit differently on the two.
 */
async function serverAt(databaseUrl: string): Promise<Server> {
  const scheme = new URL(databaseUrl).protocol;
  if (scheme === 'postgres:' || scheme === 'postgresql:') return 'postgresql';
  if (scheme === 'mariadb:') return 'mariadb';
  if (scheme !== 'mysql:')
    throw new Error(`DATABASE_URL must start with postgresql://, mysql:// or mariadb:// (not ${scheme}//)`);
  // Ask without the database, which may not exist yet (BOOKSTORE_CREATE_DB=1 creates it).
  const { default: mysql } = await import('mysql2/promise');
  const url = new URL(databaseUrl);
  const connection = await mysql.createConnection({
    host: decodeURIComponent(url.hostname),
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  });
  try {
    const [rows] = await connection.query<RowDataPacket[]>('select version() as version');
    return /mariadb/i.test(String(rows[0]?.version)) ? 'mariadb' : 'mysql';
  } finally {
    await connection.end();
  }
}

/**
 * Refuse a database that does not exist (PostgreSQL's SQLSTATE 3D000, MySQL's and MariaDB's ER_BAD_DB_ERROR),
 * saying how to create it.
 */
async function checkDatabaseExists(orm: BookstoreORM): Promise<void> {
  try {
    await orm.em.getConnection().execute('select 1');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code !== '3D000' && code !== 'ER_BAD_DB_ERROR') throw err;
    const name = orm.config.get('dbName');
    const create = code === '3D000' ? `createdb ${name}` : `create database \`${name}\``;
    throw new Error(
      `database "${name}" does not exist: create it (${create}), or set BOOKSTORE_CREATE_DB=1 to let the bookstore create it`,
    );
  }
}

/** Count the seeded publishers on the primary (a replica may lag); undefined when the tables do not exist yet. */
async function countPublishers(orm: BookstoreORM): Promise<number | undefined> {
  try {
    return await orm.em.fork().count(Publisher, {}, { connectionType: 'write' });
  } catch {
    return undefined;
  }
}
