/**
 * Open the bookstore database: PostgreSQL when `DATABASE_URL` is set, else the embedded SQLite file
 * `.data/bookstore.sqlite` at the repository root (or `BOOKSTORE_SQLITE`). The schema is created and seeded
 * on first start, and left alone after that. A PostgreSQL database must exist: a mistyped name in DATABASE_URL is
 * refused, not silently created, unless `BOOKSTORE_CREATE_DB=1` asks for it.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlDriver, SqlEntityManager } from '@mikro-orm/sql';
import { ENTITIES, Publisher } from './entities.ts';
import { seed } from './seed.ts';

/** A MikroORM instance on either SQL driver the bookstore supports. */
export type BookstoreORM = MikroORM<AbstractSqlDriver, SqlEntityManager>;

/** Where the bookstore keeps its data, read from the environment. */
export interface DatabaseOptions {
  /** A `postgres://` or `postgresql://` URL; when absent, SQLite is used. */
  readonly databaseUrl?: string | undefined;
  /** The SQLite file; defaults to `.data/bookstore.sqlite` at the repository root. */
  readonly sqliteFile?: string | undefined;
  /** Create the PostgreSQL database when it does not exist (default: refuse, naming the database). */
  readonly createDatabase?: boolean | undefined;
}

/** Read the database options from the environment: DATABASE_URL, BOOKSTORE_SQLITE and BOOKSTORE_CREATE_DB. */
export function databaseOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): DatabaseOptions {
  return {
    databaseUrl: env.DATABASE_URL || undefined,
    sqliteFile: env.BOOKSTORE_SQLITE || undefined,
    createDatabase: env.BOOKSTORE_CREATE_DB === '1',
  };
}

/** Say which database `options` name, for a start-up banner: never the URL, which may carry a password. */
export function describeDatabase({ databaseUrl, sqliteFile }: DatabaseOptions): string {
  if (databaseUrl) return 'PostgreSQL (DATABASE_URL)';
  return `SQLite (${sqliteFile ?? '.data/bookstore.sqlite'})`;
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

async function connect({ databaseUrl, sqliteFile, createDatabase }: DatabaseOptions): Promise<BookstoreORM> {
  if (databaseUrl) {
    const { MikroORM } = await import('@mikro-orm/postgresql');
    // MikroORM creates a missing database on connect by default (`ensureDatabase`): only when asked to here.
    return MikroORM.init({ entities: ENTITIES, clientUrl: databaseUrl, ensureDatabase: createDatabase === true });
  }
  const file = sqliteFile ?? DEFAULT_SQLITE_FILE;
  mkdirSync(dirname(file), { recursive: true });
  const { MikroORM } = await import('@mikro-orm/sqlite');
  return MikroORM.init({ entities: ENTITIES, dbName: file });
}

/** Refuse a PostgreSQL database that does not exist (SQLSTATE 3D000), saying how to create it. */
async function checkDatabaseExists(orm: BookstoreORM): Promise<void> {
  try {
    await orm.em.getConnection().execute('select 1');
  } catch (err) {
    if ((err as { code?: unknown }).code !== '3D000') throw err;
    const name = orm.config.get('dbName');
    throw new Error(
      `database "${name}" does not exist: create it (createdb ${name}), or set BOOKSTORE_CREATE_DB=1 to let the bookstore create it`,
    );
  }
}

/** Count the seeded publishers; undefined when the tables do not exist yet. */
async function countPublishers(orm: BookstoreORM): Promise<number | undefined> {
  try {
    return await orm.em.fork().count(Publisher, {});
  } catch {
    return undefined;
  }
}
