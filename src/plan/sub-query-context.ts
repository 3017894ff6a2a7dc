import type { EntityManager, EntityProperty, FilterQuery, Platform } from '@mikro-orm/core';
import type { AliasGenerator } from './alias.ts';

/** Answers the filter condition of a relation's target while a query is planned. */
export type FilterLookup = (prop: EntityProperty) => FilterQuery<any> | undefined;

/** What building correlated sub-queries needs: the ORM to compile them, fresh aliases, and related filters. */
export interface SubQueryContext {
  readonly em: EntityManager;
  readonly platform: Platform;
  readonly nextAlias: AliasGenerator;
  readonly filterOf: FilterLookup;
}
