import type { Platform } from '@mikro-orm/core';
import { BaseMySqlPlatform, BasePostgreSqlPlatform, SqlitePlatform } from '@mikro-orm/sql';
import { invalidSchema } from '../errors.ts';
import { mariadb, mysql } from './mysql.ts';
import { postgresql } from './postgresql.ts';
import { sqlite } from './sqlite.ts';
import type { Dialect } from './types.ts';

/** Each platform's dialect, detected once: binding a policy detects it, every later stage looks it up. */
const known = new WeakMap<Platform, Dialect>();

/**
 * Return the dialect a MikroORM platform speaks, detected on first use and remembered for the platform (one per
 * ORM instance). Throws `invalid_schema` for any other platform (MSSQL, MongoDB, …).
 */
export function dialectFor(platform: Platform): Dialect {
  let dialect = known.get(platform);
  if (!dialect) {
    dialect = detectDialect(platform);
    known.set(platform, dialect);
  }
  return dialect;
}

/**
 * Tell which dialect a platform speaks from its MikroORM base class: the one place that inspects platforms. MariaDB
 * is told from MySQL the way MikroORM's own MySQL connection tells them apart (its `jsonStrings` option, MikroORM
 * 7.1.10 and later): the MariaDB platform does not convert JSON automatically (MariaDB's JSON is LONGTEXT), MySQL's
 * does. No class or constructor name is read.
 */
function detectDialect(platform: Platform): Dialect {
  if (platform instanceof BasePostgreSqlPlatform) return postgresql;
  if (platform instanceof SqlitePlatform) return sqlite;
  if (platform instanceof BaseMySqlPlatform) return platform.convertsJsonAutomatically() ? mysql : mariadb;
  throw invalidSchema('listql supports PostgreSQL, SQLite, MySQL and MariaDB databases only');
}
