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
