import type { EntityManager, FilterOptions, MikroORM } from '@mikro-orm/core';
import { dialectFor } from '../dialect/index.ts';
import { asListError, invalidSchema } from '../errors.ts';
import type { KeyContext } from '../keyset/cursor-plan.ts';
import { primaryKeyShapes } from '../keyset/key-shape.ts';
import { checkBoundExecution } from '../orm/compat.ts';
import { compileItemWriter } from '../orm/item-writer.ts';
import { privateCopy } from '../orm/qb-state.ts';
import { onPrimary } from '../orm/replicas.ts';
import { compileRowWriter, mapDriverRows } from '../orm/row-writer.ts';
import { checkedItemWriter, checkedRowWriter, entityRows } from '../orm/writer-check.ts';
import type { AnyQueryBuilder } from '../plan/plan-query.ts';
import type { Policy } from '../policy/schema.ts';
import type { FieldsObject } from '../syntax/fields-object.ts';
import { engineAdmission } from './admission-engine.ts';
import { withoutAdmission } from './admission-settings.ts';
import { ADMISSION, weighedWork } from './admission-weight.ts';
import { type EngineConfig, type ListContext, validateConfig } from './config.ts';
import { resolveDefaultSort } from './default-sort.ts';
import { describeEngine, type EngineDescription } from './describe/endpoint.ts';
import type { Explanation } from './describe/explain.ts';
import { adviseIndexes, type IndexAdvice } from './describe/indexes.ts';
import type { ListItem, ListPath, SelectedItem, Selection } from './item-type.ts';
import { PAGE_STATEMENT } from './page/compiled-data.ts';
import { rememberBaseKey } from './page/compiled-page.ts';
import { type EdgesOptions, LIST_EDGES, listEdges } from './page/edges.ts';
import { listPage, type Page } from './page/list-page.ts';
import { openListing } from './page/listing.ts';
import { registerPlanCheck } from './plan-check.ts';
import { parseRequest, type QueryInput, type SameEntity } from './request.ts';
import { REQUEST_WORK } from './request-work.ts';
import type { Scope } from './scope.ts';
import { type SelectedScope, selectedScope } from './select.ts';
import { type Item, serializeRows } from './serialize.ts';
import type { IterateOptions } from './walk/iterate.ts';

export type { ListParameters, QueryInput } from './request.ts';

/** Options of engine.from(). */
export interface FromOptions {
  /**
   * MikroORM filter options for the root and every related entity the query reaches (`{ softDelete: false }`,
   * `false`); the entities' active filters apply by default.
   */
  readonly filters?: FilterOptions | undefined;
  /**
   * Read this scope from the primary, never a read replica: the read after a write that must see it (docs/replicas.md,
   * Read your writes). Default false: reads go where MikroORM sends them.
   */
  readonly readPrimary?: boolean | undefined;
}

/**
 * An engine bound to one base scope: every query it runs stays inside that scope. Its items are `I`; select() gives
 * the same scope with `fields` chosen in code, checked against the policy type `P`, and items typed by them.
 */
export interface ScopedEngine<C extends ListContext = ListContext, I = Item, P = Policy> {
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
  /**
   * This scope with `fields` chosen in code, in the object form (`['title', { author: ['name'] }]`, docs/selection.md,
   * In code): a name or relation the policy's type does not let `fields` select does not compile, its requests take
   * no `fields` and only the nested parameters of the lists it opens (`'reviews.limit'`), and its items are typed by
   * it (SelectedItem). The array is checked as a literal of Selection<P> (a misspelt relation beside a good one is an
   * excess property), and again by the engine at each request, as it checks any `fields`.
   */
  select<const S extends Selection<P>>(
    fields: S & NoInfer<Selection<P>>,
  ): SelectedScope<C, SelectedItem<P, S>, ListPath<P, S>>;
}

/**
 * A list endpoint: immutable, built once at start-up, safe to share across concurrent requests. `I` is the item
 * type (`ListItem` of the policy's entity when createEngine can see it).
 */
export interface Engine<C extends ListContext = ListContext, I = Item, E = any, P = Policy<E>> {
  /** Scope the engine to the caller's QueryBuilder (tenant, authorization): its where, joins, selection and distinct stay; its order is replaced. */
  from<Q extends AnyQueryBuilder>(qb: Q & SameEntity<Q, E>, options?: FromOptions): ScopedEngine<C, I, P>;
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
): Engine<C, PolicyItem<P>, PolicyEntity<P>, P> {
  if (typeof orm !== 'object' || orm === null || !('em' in orm || 'getPlatform' in orm))
    throw invalidSchema('createEngine needs a MikroORM instance or an EntityManager');
  const settings = validateConfig(withoutAdmission(config));
  const em: EntityManager = 'getPlatform' in orm ? orm : orm.em;
  const bound = settings.policy.bind(em);
  // Every request is weighed before its first statement; expensive ones share a few slots (docs/security.md).
  const fair = engineAdmission<C>(em, config.admission, settings, bound);
  const defaultSort =
    settings.defaultSort === undefined ? undefined : resolveDefaultSort(bound, settings.defaultSort, settings.limits);
  const dialect = dialectFor(bound.platform);
  registerPlanCheck(settings, config.planCheck, dialect);
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
  const serialized = (rows: readonly Item[]) => serializeRows(em, bound.meta.class, entityRows(rows, bound.meta));
  const writer = compiled && checkedItemWriter(compiled, serialized);
  // The same from the driver's rows: MikroORM's result mapper folded into the writer's pass (row-writer.ts).
  const rows = compileRowWriter(em, bound.meta);
  const rowWriter = rows && checkedRowWriter(rows, (raw) => serialized(mapDriverRows(em, bound.meta, raw)));
  const description = describeEngine(bound, dialect, settings, defaultSort?.text);

  const from = (qb: AnyQueryBuilder, options: FromOptions = {}): ScopedEngine<C> => {
    checkBase(qb, bound.meta.className);
    // A private copy: later changes to the caller's builder cannot reach this scope, and it is never finalized. Its
    // builderKey() is known from the copying: the listing memo reads it (compiled-page.ts).
    const { copy, key } = privateCopy(qb);
    rememberBaseKey(copy, key);
    const scope: Scope<C> = Object.freeze({
      settings,
      bound,
      keys,
      em,
      writer,
      rowWriter,
      base: options.readPrimary === true ? onPrimary(copy) : copy,
      filters: options.filters,
      defaultSort: defaultSort?.terms,
    });
    const parse = (query: QueryInput) => parseRequest(query, settings);
    // Errors surface as rejections (and from the first next()), never as synchronous throws: the walks parse inside
    // their generators, which are returned as they are (one generator layer per item, not two).
    const scoped = Object.freeze({
      // The request's deadline counts from the call: time waiting for an admission slot is part of it.
      list: (query: QueryInput, ctx?: C) => {
        const started = { ...ctx, requestStart: ctx?.requestStart ?? performance.now() } as C;
        return listErrorsOnly(() => fair.run(parse(query), started, (parsed) => listPage(scope, parsed, started)));
      },
      pages: (query: QueryInput, ctx?: C, opts?: IterateOptions) => fair.pages(scope, () => parse(query), ctx, opts),
      items: (query: QueryInput, ctx?: C, opts?: IterateOptions) => fair.items(scope, () => parse(query), ctx, opts),
      // explain() sends no statement, and the GraphQL document admits its fields as one request: neither takes a turn.
      explain: (query: QueryInput, ctx?: C) =>
        listErrorsOnly(async () => (await openListing(scope, parse(query), ctx ?? ({} as C), false)).explain()),
      // For adapters that need a cursor per item (listql/graphql); not part of the public interface.
      [LIST_EDGES]: (query: QueryInput, ctx?: C, options?: EdgesOptions) =>
        listErrorsOnly(() => listEdges(scope, parse(query), ctx ?? ({} as C), options)),
      // The request path without the database (bench/request-path.ts); not part of the public interface.
      [PAGE_STATEMENT]: (query: QueryInput, ctx?: C) =>
        listErrorsOnly(async () => (await openListing(scope, parse(query), ctx ?? ({} as C), false)).statement()),
      // The items of a selection are typed (SelectedItem) at this boundary only, as ListItem is below.
      select: (fields: FieldsObject) => selectedScope(scoped, fields),
    }) as ScopedEngine<C>;
    return scoped;
  };
  const advice = Object.freeze(adviseIndexes(bound, keys.dialect, em.getMetadata()));
  // Items are typed from the entity (ListItem) only at this boundary: the engine itself handles plain records.
  const engine: Engine<C> = Object.freeze({
    from,
    describe: () => description,
    indexes: () => advice,
    // For adapters that weigh several requests as one (listql/graphql); not part of the public interface.
    [REQUEST_WORK]: (query: QueryInput) => weighedWork(settings, bound, parseRequest(query, settings)),
    [ADMISSION]: fair.admission,
  });
  return engine as Engine<C, any, any, any>;
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
