import type { EntityManager, EntityName } from '@mikro-orm/core';
import type { QueryBuilder, SqlEntityManager } from '@mikro-orm/sql';
import { invalidSchema } from '../errors.ts';

/**
 * A QueryBuilder in any state of MikroORM's type-level tracking (selected fields, joins, aliases), so a base
 * scope such as `em.createQueryBuilder(Book, 'b').select(['id', 'title'])` is accepted and its type comes back.
 */
export type AnyQueryBuilder = QueryBuilder<any, any, any, any, any, any, any>;

/**
 * The (protected) field through which a QueryBuilder knows the EntityManager that created it.
 *
 * Checked against MikroORM 7.2.1 (the development pin), 7.2.2 with SQLite and 7.2.5 with PostgreSQL (`npm run
 * compat`). When a version differs: entityManagerOf() throws `invalid_schema` rather than plan with
 * another EntityManager's filters.
 */
interface QueryBuilderWithEm {
  readonly em?: SqlEntityManager;
}

/**
 * Read the EntityManager a QueryBuilder was created by: sub-queries are built with it, and its filter parameters
 * and filters are the ones the caller's request set.
 */
export function entityManagerOf(qb: AnyQueryBuilder): SqlEntityManager {
  const em = (qb as unknown as QueryBuilderWithEm).em;
  if (!em) throw invalidSchema('the query builder is not attached to an EntityManager');
  return em;
}

/** Create a QueryBuilder for a sub-query of `entity` under a generated alias. */
export function subQueryBuilder(em: EntityManager, entity: EntityName<any>, alias: string): AnyQueryBuilder {
  return (em as SqlEntityManager).createQueryBuilder(entity, alias) as AnyQueryBuilder;
}

/** The public fields of a QueryBuilder that say where and how it runs (set at creation, read by execute()). */
interface RunFields {
  context?: unknown;
  connectionType?: unknown;
  loggerContext?: unknown;
}

/**
 * A QueryBuilder that sends `sql` with `params` when it runs, and otherwise runs as `base` would: on the same
 * EntityManager, transaction and connection type, mapping rows to `base`'s root entity. For a base whose state
 * builderKey() accepts (no joins, populate hints or cache), so nothing else of its state reaches execute().
 */
export function compiledBuilder(base: AnyQueryBuilder, sql: string, params: readonly unknown[]): AnyQueryBuilder {
  const qb = subQueryBuilder(entityManagerOf(base), base.mainAlias.meta.class, base.alias);
  const from = base as unknown as RunFields;
  const to = qb as unknown as RunFields;
  to.context = from.context;
  to.connectionType = from.connectionType;
  to.loggerContext = from.loggerContext;
  const query = { sql, params: params as unknown[] };
  Object.defineProperty(qb, 'toQuery', { value: () => query, configurable: true });
  return qb;
}

/**
 * Whether a builder is a compiledBuilder() (or its copy): a builder without joined entities, populate hints or a
 * result cache, whose `execute('all')` maps rows by MikroORM's result mapper alone (see row-writer.ts).
 */
export function isCompiledBuilder(qb: AnyQueryBuilder): boolean {
  return Object.hasOwn(qb, 'toQuery');
}

/** A copy of a QueryBuilder that sends what it sends: a compiledBuilder()'s copy keeps its compiled text. */
export function copyBuilder(qb: AnyQueryBuilder): AnyQueryBuilder {
  const copy = qb.clone();
  const own = Object.getOwnPropertyDescriptor(qb, 'toQuery');
  if (own) Object.defineProperty(copy, 'toQuery', own);
  return copy;
}
