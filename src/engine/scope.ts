import type { EntityManager, FilterOptions } from '@mikro-orm/core';
import type { BoundSchema, ResolvedSortTerm } from '../bind/types.ts';
import type { KeyContext } from '../keyset/cursor-plan.ts';
import type { ItemWriter } from '../orm/item-writer.ts';
import type { CheckedRowWriter } from '../orm/writer-check.ts';
import type { AnyQueryBuilder } from '../plan/plan-query.ts';
import type { EngineSettings, ListContext } from './config.ts';

/** Everything one scoped engine needs to list: settings, bound schema, key context, base scope and filters. */
export interface Scope<C extends ListContext> {
  readonly settings: EngineSettings<C>;
  readonly bound: BoundSchema;
  readonly keys: KeyContext;
  /** The EntityManager items are hydrated with (in a throw-away fork) when the item writer declines. */
  readonly em: EntityManager;
  /** Builds items straight from rows, exactly as serialize() would; undefined when the entity needs hydration. */
  readonly writer?: ItemWriter | undefined;
  /** Builds items straight from the driver's rows (compiled statements, row-items.ts); undefined as `writer`. */
  readonly rowWriter?: CheckedRowWriter | undefined;
  readonly base: AnyQueryBuilder;
  readonly filters?: FilterOptions | undefined;
  /** The engine's `defaultSort`, resolved: the request's keys when it has no `sort`. */
  readonly defaultSort?: readonly ResolvedSortTerm[] | undefined;
}
