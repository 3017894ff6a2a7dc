import type { Platform } from '@mikro-orm/core';
import { BasePostgreSqlPlatform, SqlitePlatform } from '@mikro-orm/sql';
import { ListError } from '../errors.ts';

/** The SQL dialects listql plans and executes for. Every dialect-specific choice switches on this value. */
export type Dialect = 'postgresql' | 'sqlite';

/**
 * Tell which dialect a MikroORM platform speaks. This is the one place that inspects platform classes;
 * MySQL and MariaDB come later, so their platforms (and any other) are refused as a configuration error.
 */
export function dialectOf(platform: Platform): Dialect {
  if (platform instanceof BasePostgreSqlPlatform) return 'postgresql';
  if (platform instanceof SqlitePlatform) return 'sqlite';
  throw new ListError('invalid_schema', 'listql supports PostgreSQL and SQLite databases only');
}
