import { boolean, func, instance, integer, min, object, optional, type StructError, validate } from 'superstruct';
import { invalidSchema } from '../errors.ts';
import { DEFAULT_LIMITS, DEFAULT_PAGING, type Limits } from '../limits.ts';
import type { AnyQueryBuilder } from '../plan/apply-resolved.ts';
import { Policy } from '../policy/schema.ts';

/** What a list call may carry for the search callback; `signal` cancels the running query. */
export interface ListContext {
  readonly signal?: AbortSignal | undefined;
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

/** The configuration of createEngine (DESIGN §1, §8); every bound is a positive integer. */
export interface EngineConfig<C extends ListContext = ListContext> {
  readonly policy: Policy<any>;
  /** Page size when the request gives no `limit` (default 20). */
  readonly defaultLimit?: number | undefined;
  /** Largest `limit` a request may ask for (default 100); also the page size of pages()/items(). */
  readonly maxLimit?: number | undefined;
  /** Largest `offset` (default 100 000). */
  readonly maxOffset?: number | undefined;
  /** Whether `count=true` is allowed (default false). */
  readonly allowCount?: boolean | undefined;
  readonly search?: SearchCallback<C> | undefined;
  /** Largest encoded cursor, in bytes (default 4096); the same as `limits.maxCursorBytes`. */
  readonly maxCursorBytes?: number | undefined;
  /** Overrides of the request bounds of DESIGN §8. */
  readonly limits?: Partial<Limits> | undefined;
}

/** A validated configuration with every default filled in. */
export interface EngineSettings<C extends ListContext = ListContext> {
  readonly policy: Policy<any>;
  readonly paging: { readonly defaultLimit: number; readonly maxLimit: number; readonly maxOffset: number };
  readonly allowCount: boolean;
  readonly search?: SearchCallback<C>;
  readonly limits: Limits;
}

const positive = () => optional(min(integer(), 1));

const LIMITS = object(
  Object.fromEntries(Object.keys(DEFAULT_LIMITS).map((key) => [key, positive()])) as Record<
    keyof Limits,
    ReturnType<typeof positive>
  >,
);

const CONFIG = object({
  policy: instance(Policy),
  defaultLimit: positive(),
  maxLimit: positive(),
  maxOffset: positive(),
  allowCount: optional(boolean()),
  search: optional(func()),
  maxCursorBytes: positive(),
  limits: optional(LIMITS),
});

/** Validate an engine configuration and fill in defaults; throws `invalid_schema` naming the setting at fault. */
export function validateConfig<C extends ListContext>(config: EngineConfig<C>): EngineSettings<C> {
  const [error] = validate(config, CONFIG);
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
  return Object.freeze({
    policy: config.policy,
    paging: Object.freeze(paging),
    allowCount: config.allowCount ?? false,
    ...(config.search ? { search: config.search } : {}),
    limits: Object.freeze(limits as unknown as Limits),
  });
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
    case 'func':
      return `${path} must be a function (ctx, qb, term) => qb`;
    case 'instance':
      return `${path} must be a policy built with schema()`;
    case 'object':
      return `${path} must be an object`;
    default:
      return `${path} is invalid`;
  }
}
