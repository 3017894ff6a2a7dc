import type { EntityManager, FilterOptions, MikroORM } from '@mikro-orm/core';
import { dialectFor } from '../dialect/index.ts';
import { asListError, invalidSchema } from '../errors.ts';
import type { KeyContext } from '../keyset/cursor-plan.ts';
import { primaryKeyShapes } from '../keyset/key-shape.ts';
import { checkBoundExecution } from '../orm/compat.ts';
import { compileItemWriter } from '../orm/item-writer.ts';
import { checkedItemWriter, entityRows } from '../orm/writer-check.ts';
import type { AnyQueryBuilder } from '../plan/plan-query.ts';
import type { Policy } from '../policy/schema.ts';
import { type EngineConfig, type ListContext, validateConfig } from './config.ts';
import { resolveDefaultSort } from './default-sort.ts';
import { describeEngine, type EngineDescription } from './describe/endpoint.ts';
import type { Explanation } from './describe/explain.ts';
import { adviseIndexes, type IndexAdvice } from './describe/indexes.ts';
import type { ListItem } from './item-type.ts';
import { type EdgesOptions, LIST_EDGES, listEdges } from './page/edges.ts';
import { listPage, type Page } from './page/list-page.ts';
import { openListing } from './page/listing.ts';
import { parseRequest, type QueryInput, type SameEntity } from './request.ts';
import { REQUEST_WORK, requestWork } from './request-work.ts';
import type { Scope } from './scope.ts';
import { type Item, serializeRows } from './serialize.ts';
import { type IterateOptions, iterateItems, iteratePages } from './walk/iterate.ts';

export type { ListParameters, QueryInput } from './request.ts';

/** Options of engine.from(). */
export interface FromOptions {
  /**
   * MikroORM filter options for the root and every related entity the query reaches (`{ softDelete: false }`,
   * `false`); the entities' active filters apply by default.
   */
  readonly filters?: FilterOptions | undefined;
}

/** An engine bound to one base scope: every query it runs stays inside that scope. */
export interface ScopedEngine<C extends ListContext = ListContext, I = Item> {
  /** List one page: `{ items, page: { limit, offset, hasMore, nextCursor?, count?, estimatedCount? } }`; throws ListError. */
  list(query: QueryInput, ctx?: C): Promise<Page<I>>;
  /** Walk every page by following `nextCursor`, with a constant page size and never offset. */
  pages(query: QueryInput, ctx?: C, options?: IterateOptions): AsyncGenerator<Page<I>, void, undefined>;
  /** Walk every item, page by page, as pages() does. */
  items(query: QueryInput, ctx?: C, options?: IterateOptions): AsyncGenerator<I, void, undefined>;
  /**
   * Build the SQL and parameters list() would send for this request (the data query, and the count query with
   * `count=true`), after the same checks, and run nothing. For logs, tests and developer tools: it shows table
   * and column names, so do not send it to clients of a production API.
   */
  explain(query: QueryInput, ctx?: C): Promise<Explanation>;
}

/**
 * A list endpoint: immutable, built once at start-up, safe to share across concurrent requests. `I` is the item
 * type (`ListItem` of the policy's entity when createEngine can see it).
 */
export interface Engine<C extends ListContext = ListContext, I = Item, E = any> {
  /** Scope the engine to the caller's QueryBuilder (tenant, authorization): its where, joins, selection and distinct stay; its order is replaced. */
  from<Q extends AnyQueryBuilder>(qb: Q & SameEntity<Q, E>, options?: FromOptions): ScopedEngine<C, I>;
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
 *
 * size: the engine object is one frozen literal whose methods share what was bound once.
 */
export function createEngine<C extends ListContext = ListContext, P extends Policy<any> = Policy>(
  orm: MikroORM | EntityManager,
  config: EngineConfig<C> & { readonly policy: P },
): Engine<C, PolicyItem<P>, PolicyEntity<P>> {
  if (typeof orm !== 'object' || orm === null || !('em' in orm || 'getPlatform' in orm))
    throw invalidSchema('createEngine needs a MikroORM instance or an EntityManager');
  const settings = validateConfig(config);
  const em: EntityManager = 'getPlatform' in orm ? orm : orm.em;
  const bound = settings.policy.bind(em);
  const defaultSort =
    settings.defaultSort === undefined ? undefined : resolveDefaultSort(bound, settings.defaultSort, settings.limits);
  const dialect = dialectFor(bound.platform);
  const keys: KeyContext = Object.freeze({
    bound,
    dialect,
    primaryKey: primaryKeyShapes(bound, dialect),
    plans: new Map(),
  });
  // Refuse at start-up when the installed MikroORM no longer compiles or runs SQL as bound execution expects (and
  // start the execution-path check every query awaits): never fall back to values inlined into SQL. See compat.ts.
  checkBoundExecution(em, bound.meta);
  // Items are written straight from rows when the entity's serialized form provably needs no hydration; the first
  // page is checked against serialize() itself, so a MikroORM whose serialize() changed gets hydration instead.
  const compiled = compileItemWriter(em, bound.meta);
  const writer =
    compiled &&
    checkedItemWriter(compiled, (rows) => serializeRows(em, bound.meta.class, entityRows(rows, bound.meta)));
  const description = describeEngine(bound, dialect, settings, defaultSort?.text);

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
      defaultSort: defaultSort?.terms,
    });
    const parse = (query: QueryInput) => parseRequest(query, settings);
    // Errors surface as rejections (and from the first next()), never as synchronous throws: the walks parse inside
    // their generators, which are returned as they are (one generator layer per item, not two).
    return Object.freeze({
      list: (query: QueryInput, ctx?: C) => listErrorsOnly(() => listPage(scope, parse(query), ctx ?? ({} as C))),
      pages: (query: QueryInput, ctx?: C, opts?: IterateOptions) =>
        iteratePages(scope, () => parse(query), ctx ?? ({} as C), opts),
      items: (query: QueryInput, ctx?: C, opts?: IterateOptions) =>
        iterateItems(scope, () => parse(query), ctx ?? ({} as C), opts),
      explain: (query: QueryInput, ctx?: C) =>
        listErrorsOnly(async () => (await openListing(scope, parse(query), ctx ?? ({} as C), false)).explain()),
      // For adapters that need a cursor per item (listql/graphql); not part of the public interface.
      [LIST_EDGES]: (query: QueryInput, ctx?: C, options?: EdgesOptions) =>
        listErrorsOnly(() => listEdges(scope, parse(query), ctx ?? ({} as C), options)),
    });
  };
  const advice = Object.freeze(adviseIndexes(bound, keys.dialect, em.getMetadata()));
  // Items are typed from the entity (ListItem) only at this boundary: the engine itself handles plain records.
  const engine: Engine<C> = Object.freeze({
    from,
    describe: () => description,
    indexes: () => advice,
    // For adapters that weigh several requests as one (listql/graphql); not part of the public interface.
    [REQUEST_WORK]: (query: QueryInput) => requestWork(settings, bound, parseRequest(query, settings)),
  });
  return engine as Engine<C, any, any>;
}

/** The entity of a policy's engine (a union of them for a union of policies), whose QueryBuilder from() takes. */
export type PolicyEntity<P> = P extends Policy<infer T> ? T : never;

/** The item type of a policy's engine: `ListItem` of its entity (a union of them for a union of policies). */
export type PolicyItem<P> = P extends Policy<infer T> ? ListItem<T> : never;

/** Run a list operation so that whatever it throws reaches the caller as a ListError (see asListError). */
async function listErrorsOnly<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw asListError(err);
  }
}

function checkBase(qb: AnyQueryBuilder, className: string): void {
  if (typeof qb !== 'object' || qb === null || typeof (qb as { clone?: unknown }).clone !== 'function')
    throw invalidSchema('from() needs a MikroORM QueryBuilder as the base scope');
  const root = qb.mainAlias.meta?.className;
  if (root !== className)
    throw invalidSchema(`from(): the base scope selects ${String(root)}, the engine's policy is for ${className}`);
}
