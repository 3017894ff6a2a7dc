import type { Platform } from '@mikro-orm/core';
import type { Dialect } from '../dialect/index.ts';
import type { SubQueryContext } from './sub-query-context.ts';

/** What compiling a filter needs to know about the query it goes into. */
export interface PredicateContext {
  readonly platform: Platform;
  readonly dialect: Dialect;
  /** The alias of the root entity in the query (`qb.alias`). */
  readonly alias: string;
  /** How to build correlated sub-queries; needed once a filter goes through a relationship. */
  readonly relations?: SubQueryContext;
  /** Active quantifier variables, each mapped to the alias of the sub-query it ranges over. */
  readonly variables?: ReadonlyMap<string, string>;
}
