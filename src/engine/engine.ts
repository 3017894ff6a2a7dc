import type { EntityManager, FilterOptions, MikroORM } from '@mikro-orm/core';
import { invalidSchema } from '../errors.ts';
import { isReservedAlias } from '../plan/alias.ts';
import type { AnyQueryBuilder } from '../plan/apply-resolved.ts';
import { dialectOf } from '../plan/dialect.ts';
import type { QueryValues } from '../syntax/parameters.ts';
import { parseHTTP } from '../syntax/params.ts';
import { type EngineConfig, type ListContext, validateConfig } from './config.ts';
import { describeEngine, type EngineDescription } from './describe.ts';
import { adviseIndexes, type IndexAdvice } from './indexes.ts';
import { compileItemWriter } from './item-writer.ts';
import { type IterateOptions, iterateItems, iteratePages } from './iterate.ts';
import { primaryKeyShapes } from './key-shape.ts';
import type { KeyContext } from './keys.ts';
import { listPage, type Page, type Scope } from './list.ts';
import type { Item } from './serialize.ts';

/** A request's query: what fromQueryString() returns, URLSearchParams, or a raw query string. */
export type QueryInput = QueryValues | URLSearchParams | string;

/** Options of engine.from(). */
export interface FromOptions {
  /**
   * MikroORM filter options for the root and every related entity the query reaches (`{ softDelete: false }`,
   * `false`); the entities' active filters apply by default.
   */
  readonly filters?: FilterOptions | undefined;
}

/** An engine bound to one base scope: every query it runs stays inside that scope. */
export interface ScopedEngine<C extends ListContext = ListContext> {
  /** List one page: `{ items, page: { limit, offset, hasMore, nextCursor?, count? } }`; throws ListError. */
  list(query: QueryInput, ctx?: C): Promise<Page>;
  /** Walk every page by following `nextCursor`, with a constant page size and never offset. */
  pages(query: QueryInput, ctx?: C, options?: IterateOptions): AsyncGenerator<Page, void, undefined>;
  /** Walk every item, page by page, as pages() does. */
  items(query: QueryInput, ctx?: C, options?: IterateOptions): AsyncGenerator<Item, void, undefined>;
}

/** A list endpoint: immutable, built once at start-up, safe to share across concurrent requests. */
export interface Engine<C extends ListContext = ListContext> {
  /** Scope the engine to the caller's QueryBuilder (tenant, authorization): its where, joins, selection and distinct stay; its order is replaced. */
  from(qb: AnyQueryBuilder, options?: FromOptions): ScopedEngine<C>;
  /** Describe the endpoint publicly: fields, operators, sortability, relations, capabilities and limits. */
  describe(): EngineDescription;
  /**
   * List the indexes that make this endpoint's sorts seek and its relation filters cheap, with DDL for the
   * engine's dialect. For the developer, not for clients: it names tables and columns.
   */
  indexes(): readonly IndexAdvice[];
}

/**
 * Build a list engine: validate the configuration, bind the policy once; throws `invalid_schema` naming the problem.
 *
 * @example
 * const books = createEngine(orm, { policy: bookPolicy, maxLimit: 100, allowCount: true });
 * const page = await books.from(em.createQueryBuilder(Book, 'b').where({ tenant })).list(req.url);
 * // select "b".*, … from "book" as "b" where "b"."tenant" = $1 order by "b"."id" asc limit $2
 */
export function createEngine<C extends ListContext = ListContext>(
  orm: MikroORM | EntityManager,
  config: EngineConfig<C>,
): Engine<C> {
  if (typeof orm !== 'object' || orm === null || !('em' in orm || 'getPlatform' in orm))
    throw invalidSchema('createEngine needs a MikroORM instance or an EntityManager');
  const settings = validateConfig(config);
  const em: EntityManager = 'getPlatform' in orm ? orm : orm.em;
  const bound = settings.policy.bind(em);
  const keys: KeyContext = Object.freeze({
    bound,
    dialect: dialectOf(bound.platform),
    primaryKey: primaryKeyShapes(bound),
    plans: new Map(),
  });
  // Items are written straight from rows when the entity's serialized form provably needs no hydration.
  const writer = compileItemWriter(em, bound.meta);
  const description = describeEngine(bound, settings);

  const from = (qb: AnyQueryBuilder, options: FromOptions = {}): ScopedEngine<C> => {
    checkBase(qb, bound.meta.className);
    // A private copy: later changes to the caller's builder cannot reach this scope, and it is never finalized.
    const scope: Scope<C> = Object.freeze({
      settings,
      bound,
      keys,
      em,
      writer,
      base: qb.clone(),
      filters: options.filters,
    });
    const parse = (query: QueryInput) => parseHTTP(query, { limits: settings.limits });
    // Errors surface as rejections (and from the first next()), never as synchronous throws: the walks parse inside
    // their generators, which are returned as they are (one generator layer per item, not two).
    return Object.freeze({
      list: async (query: QueryInput, ctx?: C) => listPage(scope, parse(query), ctx ?? ({} as C)),
      pages: (query: QueryInput, ctx?: C, opts?: IterateOptions) =>
        iteratePages(scope, () => parse(query), ctx ?? ({} as C), opts),
      items: (query: QueryInput, ctx?: C, opts?: IterateOptions) =>
        iterateItems(scope, () => parse(query), ctx ?? ({} as C), opts),
    });
  };
  const advice = Object.freeze(adviseIndexes(bound, keys.dialect, em.getMetadata()));
  return Object.freeze({ from, describe: () => description, indexes: () => advice });
}

function checkBase(qb: AnyQueryBuilder, className: string): void {
  if (typeof qb !== 'object' || qb === null || typeof (qb as { clone?: unknown }).clone !== 'function')
    throw invalidSchema('from() needs a MikroORM QueryBuilder as the base scope');
  const root = qb.mainAlias.meta?.className;
  if (root !== className)
    throw invalidSchema(`from(): the base scope selects ${String(root)}, the engine's policy is for ${className}`);
  if (isReservedAlias(qb.alias))
    throw invalidSchema(`from(): the base scope's alias '${qb.alias}' lies in listql's reserved namespace (lq<n>)`);
}
