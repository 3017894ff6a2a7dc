/**
 * Open the bookstore database: PostgreSQL when `DATABASE_URL` is set, else the embedded SQLite file
 * `.data/bookstore.sqlite` at the repository root (or `BOOKSTORE_SQLITE`). The schema is created and seeded
 * on first start, and left alone after that.
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
}

/** The default SQLite file, in the git-ignored `.data/` folder at the repository root. */
export const DEFAULT_SQLITE_FILE = fileURLToPath(new URL('../../.data/bookstore.sqlite', import.meta.url));

/** Open the database named by `options`, creating and seeding it when it has no bookstore tables yet. */
export async function openBookstore(options: DatabaseOptions = {}): Promise<BookstoreORM> {
  const orm = await connect(options);
  try {
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

async function connect({ databaseUrl, sqliteFile }: DatabaseOptions): Promise<BookstoreORM> {
  if (databaseUrl) {
    const { MikroORM } = await import('@mikro-orm/postgresql');
    return MikroORM.init({ entities: ENTITIES, clientUrl: databaseUrl });
  }
  const file = sqliteFile ?? DEFAULT_SQLITE_FILE;
  mkdirSync(dirname(file), { recursive: true });
  const { MikroORM } = await import('@mikro-orm/sqlite');
  return MikroORM.init({ entities: ENTITIES, dbName: file });
}

/** Count the seeded publishers; undefined when the tables do not exist yet. */
async function countPublishers(orm: BookstoreORM): Promise<number | undefined> {
  try {
    return await orm.em.fork().count(Publisher, {});
  } catch {
    return undefined;
  }
}
