// size: one validated schema of every engine option (paging, limits, timeouts, cursors, admission, replicas) and its
// defaults, read in one place.
import {
  boolean,
  enums,
  func,
  instance,
  integer,
  literal,
  min,
  object,
  optional,
  type StructError,
  string,
  union,
  unknown,
  validate,
} from 'superstruct';
import { invalidSchema, isListError } from '../errors.ts';
import { type CursorKeys, type CursorOptions, type CursorScope, cursorKeysOf } from '../keyset/cursor-seal.ts';
import { DEFAULT_LIMITS, DEFAULT_PAGING, type Limits } from '../limits.ts';
import { type ReplicaFallback, type ReplicaFallbackSettings, replicaFallbackSettings } from '../orm/replicas.ts';
import type { AnyQueryBuilder } from '../plan/plan-query.ts';
import type { Declarations } from '../policy/declarations.ts';
import { Policy } from '../policy/schema.ts';
import { parseSort } from '../syntax/sort.ts';
import type { AdmissionConfig } from './admission-settings.ts';
import type { PlanCheckOptions } from './plan-check.ts';

/** What a list call may carry for the search callback; `signal` cancels the running query. */
export interface ListContext {
  readonly signal?: AbortSignal | undefined;
  /** This request's statement timeout in milliseconds, replacing the engine's `statementTimeout` (docs/security.md). */
  readonly statementTimeout?: number | undefined;
  /** This request's time budget in milliseconds, replacing the engine's `requestTimeout` (docs/security.md). */
  readonly requestTimeout?: number | undefined;
  /**
   * When the request started, as a `performance.now()` instant: its `requestTimeout` counts from here instead of
   * from the call (a GraphQL document's fields share the document's start; an HTTP server may pass its arrival).
   */
  readonly requestStart?: number | undefined;
  /** PostgreSQL settings for this request's statements, e.g. `{ 'app.tenant': '7' }` for row-level security (docs/security.md). */
  readonly pgSettings?: Readonly<Record<string, string>> | undefined;
  /** Binds this request's cursors to a value (a tenant, a user) with the engine's `cursorSecret` (docs/pagination.md). */
  readonly cursorScope?: CursorScope | undefined;
  readonly [key: string]: unknown;
}

/**
 * The endpoint's search: narrow the QueryBuilder it is given by the term (bound as a parameter, wildcards escaped)
 * and return that same QueryBuilder. Throw a ListError to reject the term; anything else thrown is a failure.
 *
 * @example (ctx, qb, term) => qb.andWhere({ title: { $like: `%${escapeLike(term)}%` } })
 */
export type SearchCallback<C extends ListContext = ListContext> = (
  ctx: C,
  qb: AnyQueryBuilder,
  term: string,
) => AnyQueryBuilder | Promise<AnyQueryBuilder>;

/**
 * The configuration of createEngine (docs/pagination.md, docs/language.md); every bound is a positive integer. The
 * cursor options (`cursorSecret`, `cursorMode`, `cursorTtl`, `cursorClock`) sign or seal cursors (CursorOptions).
 */
export interface EngineConfig<C extends ListContext = ListContext> extends CursorOptions, AdmissionConfig {
  readonly policy: Policy<any>;
  /** Page size when the request gives no `limit` (default 20). */
  readonly defaultLimit?: number | undefined;
  /** Largest `limit` a request may ask for (default 100); also the page size of pages()/items(). */
  readonly maxLimit?: number | undefined;
  /** Largest `offset` (default 100 000). */
  readonly maxOffset?: number | undefined;
  /** Whether `count=true` is allowed (default false). */
  readonly allowCount?: boolean | undefined;
  /**
   * Whether `count=estimated` is allowed (default false): the database planner's row estimate, in
   * `page.estimatedCount`, at the cost of planning only. PostgreSQL only (docs/pagination.md, Estimated counts).
   */
  readonly allowEstimatedCount?: boolean | undefined;
  /**
   * The order when the request has no `sort`: a `sort` value of the request grammar (`'-createdAt'`), checked
   * against the policy at createEngine. The primary key still follows as the tie-breaker (docs/pagination.md).
   */
  readonly defaultSort?: string | undefined;
  readonly search?: SearchCallback<C> | undefined;
  /** Largest encoded cursor, in bytes (default 4096); the same as `limits.maxCursorBytes`. */
  readonly maxCursorBytes?: number | undefined;
  /** Overrides of the request bounds (DEFAULT_LIMITS; see docs/language.md, Limits). */
  readonly limits?: Partial<Limits> | undefined;
  /**
   * Longest a data or count query may run on a server database, in milliseconds (default 5000), or `false` for no
   * limit; `ctx.statementTimeout` overrides it per request. SQLite cannot stop a running statement: there the cost
   * budget in `limits` is the guard (docs/security.md).
   */
  readonly statementTimeout?: number | false | undefined;
  /**
   * One time budget for all the statements of a request, in milliseconds: a page with its count and every nested
   * level, one page of pages()/items(), a whole GraphQL document. Each statement may run only for what is left, and
   * when it runs out the request fails with `query_timeout` (docs/security.md, Request deadline). Default: twice the
   * request's statement timeout; `false` for none; `ctx.requestTimeout` overrides it per request.
   */
  readonly requestTimeout?: number | false | undefined;
  /**
   * What a request's query parameters other than the list parameters get (docs/errors.md, Unknown parameters):
   * `'ignore'` (the default: other parameters of the page's URL pass untouched) or `'reject'` (`invalid_parameter`
   * naming the parameter and the closest list parameter). A query object written in code is always checked.
   */
  readonly unknownParameters?: 'ignore' | 'reject' | undefined;
  /**
   * What a request does when its read replica refuses or drops its connection (docs/replicas.md): `{}` moves it once
   * to another replica or the primary and keeps the replica out of rotation until a health check passes. Off by
   * default: the request fails with `execution_failed`, and MikroORM keeps picking that replica.
   */
  readonly replicaFallback?: ReplicaFallback | undefined;
  /**
   * Ask the database's planner about each new shape of data statement before running it, and refuse shapes it
   * expects to cost more than `maxCost` or select more than `maxRows` (docs/security.md, Planner estimate).
   * PostgreSQL, MySQL and MariaDB; refused on SQLite. Off by default.
   */
  readonly planCheck?: PlanCheckOptions | undefined;
  /**
   * Compile each shape of data statement once, down to its SQL text, and send later requests of that shape with their
   * own values in its parameter slots, without building a QueryBuilder (docs/performance.md, Compiled statements).
   * On by default; `false` plans every request afresh (the answers are the same: use it to compare or to debug).
   */
  readonly compileStatements?: boolean | undefined;
}

/** A validated configuration with every default filled in. */
export interface EngineSettings<C extends ListContext = ListContext> {
  readonly policy: Policy<any>;
  readonly paging: { readonly defaultLimit: number; readonly maxLimit: number; readonly maxOffset: number };
  readonly allowCount: boolean;
  readonly allowEstimatedCount: boolean;
  /** The `defaultSort` text as given; createEngine resolves it against the bound policy. */
  readonly defaultSort?: string;
  readonly search?: SearchCallback<C>;
  readonly limits: Limits;
  /** Milliseconds, or undefined for no statement timeout. */
  readonly statementTimeout?: number | undefined;
  /** Milliseconds; false for none; undefined: twice the request's statement timeout. */
  readonly requestTimeout?: number | false | undefined;
  readonly unknownParameters: 'ignore' | 'reject';
  readonly replicaFallback?: ReplicaFallbackSettings | undefined;
  /** The keys cursors are signed or sealed with, derived from `cursorSecret`; undefined for plain cursors. */
  readonly cursors?: CursorKeys | undefined;
  /** Data statements are compiled once per shape (see EngineConfig.compileStatements). */
  readonly compileStatements: boolean;
}

/** The statement timeout when the config gives none (docs/security.md, Statement timeout). */
export const DEFAULT_STATEMENT_TIMEOUT = 5000;

const positive = () => optional(min(integer(), 1));

/** The config's shape: built on the first engine's creation, not at import (docs/performance.md, Cold start). */
function configShape() {
  const limits = object(
    Object.fromEntries(Object.keys(DEFAULT_LIMITS).map((key) => [key, positive()])) as Record<
      keyof Limits,
      ReturnType<typeof positive>
    >,
  );
  return object({
    policy: instance(Policy),
    defaultLimit: positive(),
    maxLimit: positive(),
    maxOffset: positive(),
    allowCount: optional(boolean()),
    allowEstimatedCount: optional(boolean()),
    defaultSort: optional(string()),
    search: optional(func()),
    maxCursorBytes: positive(),
    limits: optional(limits),
    statementTimeout: optional(union([min(integer(), 1), literal(false)])),
    requestTimeout: optional(union([min(integer(), 1), literal(false)])),
    unknownParameters: optional(enums(['ignore', 'reject'])),
    replicaFallback: unknown(), // checked by replicaFallbackSettings
    planCheck: unknown(), // checked by registerPlanCheck
    compileStatements: optional(boolean()),
    cursorSecret: unknown(), // these four: checked by cursorKeysOf
    cursorMode: unknown(),
    cursorTtl: unknown(),
    cursorClock: unknown(),
  });
}
let shape: ReturnType<typeof configShape> | undefined;

/** Validate an engine configuration and fill in defaults; throws `invalid_schema` naming the setting at fault. */
export function validateConfig<C extends ListContext>(config: EngineConfig<C>): EngineSettings<C> {
  shape ??= configShape();
  const [error] = validate(config, shape);
  if (error) throw invalidSchema(`engine config: ${describeFailure(error)}`);
  const paging = {
    defaultLimit: config.defaultLimit ?? Math.min(DEFAULT_PAGING.defaultLimit, config.maxLimit ?? Infinity),
    maxLimit: config.maxLimit ?? DEFAULT_PAGING.maxLimit,
    maxOffset: config.maxOffset ?? DEFAULT_PAGING.maxOffset,
  };
  if (paging.defaultLimit > paging.maxLimit)
    throw invalidSchema(
      `engine config: defaultLimit (${paging.defaultLimit}) must not exceed maxLimit (${paging.maxLimit})`,
    );
  const overrides = config.limits ?? {};
  const cursorBytes = config.maxCursorBytes ?? overrides.maxCursorBytes;
  if (
    config.maxCursorBytes !== undefined &&
    overrides.maxCursorBytes !== undefined &&
    config.maxCursorBytes !== overrides.maxCursorBytes
  )
    throw invalidSchema('engine config: maxCursorBytes and limits.maxCursorBytes disagree; give one of them');
  const limits: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(overrides)) if (value !== undefined) limits[key] = value;
  if (cursorBytes !== undefined) limits.maxCursorBytes = cursorBytes;
  const cursors = cursorKeysOf(config);
  checkSelectable(config.policy, limits as unknown as Limits, []);
  return Object.freeze({
    policy: config.policy,
    paging: Object.freeze(paging),
    allowCount: config.allowCount ?? false,
    allowEstimatedCount: config.allowEstimatedCount ?? false,
    unknownParameters: config.unknownParameters ?? 'ignore',
    compileStatements: config.compileStatements ?? true,
    ...(cursors ? { cursors } : {}),
    ...(config.defaultSort === undefined ? {} : { defaultSort: config.defaultSort }),
    ...(config.replicaFallback ? { replicaFallback: replicaFallbackSettings(config.replicaFallback) } : {}),
    ...(config.search ? { search: config.search } : {}),
    limits: Object.freeze(limits as unknown as Limits),
    ...(config.statementTimeout === false
      ? {}
      : { statementTimeout: config.statementTimeout ?? DEFAULT_STATEMENT_TIMEOUT }),
    ...(config.requestTimeout === undefined ? {} : { requestTimeout: config.requestTimeout }),
  });
}

/**
 * Check the relations clients may select (`relation(…, selectable(…))`) against the engine's limits, before binding:
 * reached through selectable relations only, none may sit deeper than `maxSelectionDepth` (a request could never
 * select it), and each one's `defaultSort` must parse within the engine's sort limits. Throws `invalid_schema`
 * naming the selection path (`reviews.author`). A policy on its own path is left for bind to refuse as a cycle.
 */
function checkSelectable(policy: Declarations, limits: Limits, path: readonly Declarations[], at = ''): void {
  for (const entry of policy.entries) {
    if (entry.kind !== 'relation' || entry.select === undefined) continue;
    const nested = typeof entry.nested === 'function' ? entry.nested() : entry.nested;
    const where = at === '' ? entry.publicName : `${at}.${entry.publicName}`;
    const depth = path.length + 1;
    if (depth > limits.maxSelectionDepth)
      throw invalidSchema(
        `engine config: the policy's selectable relations nest ${depth} deep at ${where}, deeper than ` +
          `limits.maxSelectionDepth (${limits.maxSelectionDepth}): raise the limit or drop selectable() there`,
      );
    const sort = entry.select.defaultSort;
    if (typeof sort === 'string')
      try {
        parseSort(sort, limits);
      } catch (error) {
        if (!isListError(error)) throw error;
        throw invalidSchema(
          `engine config: the defaultSort of selectable relation ${where} '${sort}': ${error.message}`,
        );
      }
    if (typeof nested !== 'object' || nested === null || !Array.isArray(nested.entries)) continue;
    if (nested === policy || path.includes(nested)) continue;
    checkSelectable(nested, limits, [...path, policy], where);
  }
}

function describeFailure(error: StructError): string {
  const failure = error.failures()[0] ?? error;
  const path = failure.path.length ? failure.path.join('.') : 'the config';
  if (failure.path.length === 0) return 'the config must be an object';
  if (failure.type === 'never') return `${path} is not a known setting`;
  switch (failure.type) {
    case 'integer':
      return `${path} must be a positive integer`;
    case 'boolean':
      return `${path} must be true or false`;
    case 'string':
      return `${path} must be a string`;
    case 'func':
      return `${path} must be a function (ctx, qb, term) => qb`;
    case 'instance':
      return `${path} must be a policy built with schema()`;
    case 'object':
      return `${path} must be an object`;
    case 'enums':
      return `${path} must be 'ignore' or 'reject'`;
    case 'union':
      return `${path} must be a positive integer (milliseconds) or false`;
    default:
      return `${path} is invalid`;
  }
}
