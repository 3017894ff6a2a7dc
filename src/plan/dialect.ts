import type { Platform } from '@mikro-orm/core';
import { BaseMySqlPlatform, BasePostgreSqlPlatform, SqlitePlatform } from '@mikro-orm/sql';
import { ListError } from '../errors.ts';

/**
 * The SQL dialects listql plans and executes for. Every dialect-specific choice switches on this value.
 * `mysql` is the MySQL family: MySQL and MariaDB (MikroORM's `@mikro-orm/mysql` and `@mikro-orm/mariadb`); where
 * the two servers differ, `isMariaDb` tells them apart.
 */
export type Dialect = 'postgresql' | 'sqlite' | 'mysql';

/**
 * Tell which dialect a MikroORM platform speaks. This is the one place that inspects platform classes; any other
 * platform (MSSQL, MongoDB, …) is refused as a configuration error.
 */
export function dialectOf(platform: Platform): Dialect {
  if (platform instanceof BasePostgreSqlPlatform) return 'postgresql';
  if (platform instanceof SqlitePlatform) return 'sqlite';
  if (platform instanceof BaseMySqlPlatform) return 'mysql';
  throw new ListError('invalid_schema', 'listql supports PostgreSQL, SQLite, MySQL and MariaDB databases only');
}

/** True for MariaDB's platform (`@mikro-orm/mariadb`), false for MySQL's and every other. */
export function isMariaDb(platform: Platform): boolean {
  return /mariadb/i.test(platform.constructor.name);
}
