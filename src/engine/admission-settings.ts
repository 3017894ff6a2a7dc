import type { EntityManager } from '@mikro-orm/core';
import { invalidSchema } from '../errors.ts';
import { type Admission, type AdmissionSettings, createAdmission } from './admission.ts';

/**
 * How an engine shares the database between cheap and expensive requests (docs/security.md, Fair share). Every
 * number is a positive integer (`queue` may be 0); the defaults follow the connections reads use: the ORM's pool
 * (`pool.max`, else 10), or with read replicas the replicas' pools together.
 */
export interface AdmissionOptions {
  /**
   * Expensive requests that may run at once (default: half the connections reads use, at least 1: the pool, or the
   * read replicas' pools together), so that the rest stays free for cheap ones. A GraphQL document takes one slot per
   * list field it runs side by side, and a request with nested selections one per nested level it runs side by side
   * on PostgreSQL or MariaDB (at most 4), up to this number.
   */
  readonly maxExpensive?: number | undefined;
  /**
   * The weight above which a request is expensive (default 2). A plain page weighs 1; each statement (the count, a
   * nested list), the filters' relationship sub-queries as the cost budget counts them, 1,000 rows, 1,000 rows of
   * offset and a sort through a relation (2) add to it.
   */
  readonly expensiveAbove?: number | undefined;
  /** Expensive requests that may wait for a slot (default: twice `maxExpensive`); past that, `overloaded` at once. */
  readonly queue?: number | undefined;
  /** Milliseconds a request may wait for a slot before it is refused with `overloaded` (default 2000). */
  readonly queueTimeout?: number | undefined;
  /**
   * Cheap requests that may run at once (default: no bound of their own; the pool's queue orders them). Past it they
   * wait and are refused as expensive ones are, never behind expensive ones.
   */
  readonly maxCheap?: number | undefined;
  /** Seconds an `overloaded` client is told to wait, as `Retry-After` (default: `queueTimeout` rounded up, ≥ 1). */
  readonly retryAfter?: number | undefined;
}

/** The `admission` setting of createEngine. */
export interface AdmissionConfig {
  /**
   * Weigh every request before its first statement and cap the expensive ones at once (docs/security.md, Fair
   * share): on by default with numbers derived from the pool; `false` turns it off.
   */
  readonly admission?: AdmissionOptions | false | undefined;
}

/** A pool size to derive the defaults from when the ORM's configuration names none (pg's and mysql2's default). */
export const DEFAULT_POOL_SIZE = 10;
/** Milliseconds an expensive request may wait for a slot by default. */
export const DEFAULT_QUEUE_TIMEOUT = 2000;
/** The weight above which a request is expensive by default: a page with its count, or one relation hop, is not. */
export const DEFAULT_EXPENSIVE_ABOVE = 2;

const KEYS = ['maxExpensive', 'expensiveAbove', 'queue', 'queueTimeout', 'maxCheap', 'retryAfter'] as const;

/** The admissions in use, per ORM (its driver, which every fork shares) and settings. */
const shared = new WeakMap<object, Map<string, Admission>>();

/**
 * Find the admission of an engine: undefined with `admission: false`; else the one every engine of this ORM with the
 * same settings shares (they draw on one pool), created on first use. Throws `invalid_schema` naming a bad setting.
 */
export function admissionFor(em: EntityManager, option: unknown): Admission | undefined {
  if (option === false) return undefined;
  const settings = admissionSettings(option, readPoolSize(em));
  const driver = em.getDriver() as object;
  let byKey = shared.get(driver);
  if (!byKey) {
    byKey = new Map();
    shared.set(driver, byKey);
  }
  const key = JSON.stringify(settings);
  let admission = byKey.get(key);
  if (!admission) {
    admission = createAdmission(settings);
    byKey.set(key, admission);
  }
  return admission;
}

/** Check the `admission` option and fill in its defaults for a pool of `pool` connections. */
export function admissionSettings(option: unknown, pool: number): AdmissionSettings {
  if (option !== undefined && (typeof option !== 'object' || option === null || Array.isArray(option)))
    throw invalidSchema('engine config: admission must be an object of settings, or false');
  const given = (option ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(given))
    if (!(KEYS as readonly string[]).includes(key) && given[key] !== undefined)
      throw invalidSchema(`engine config: admission.${key} is not a known setting`);
  const read = (key: (typeof KEYS)[number], least: number): number | undefined => {
    const value = given[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least)
      throw invalidSchema(
        `engine config: admission.${key} must be a ${least === 0 ? 'whole number' : 'positive integer'}`,
      );
    return value;
  };
  const maxExpensive = read('maxExpensive', 1) ?? Math.max(1, Math.floor(pool / 2));
  const queueTimeout = read('queueTimeout', 1) ?? DEFAULT_QUEUE_TIMEOUT;
  return Object.freeze({
    maxExpensive,
    expensiveAbove: read('expensiveAbove', 0) ?? DEFAULT_EXPENSIVE_ABOVE,
    queue: read('queue', 0) ?? 2 * maxExpensive,
    queueTimeout,
    maxCheap: read('maxCheap', 1) ?? Number.POSITIVE_INFINITY,
    retryAfter: read('retryAfter', 1) ?? Math.max(1, Math.ceil(queueTimeout / 1000)),
  });
}

/**
 * The most connections the ORM's pool opens: `pool.max` of its configuration, else the driver's own option (`max`
 * for pg, `connectionLimit` for mysql2), else their shared default of 10.
 */
export function poolSize(em: EntityManager): number {
  const config = em.config;
  return sizeOf(config.get('pool')?.max, config.get('driverOptions'));
}

/**
 * The connections reads may hold at once. With read replicas configured and `preferReadReplicas` (MikroORM's default),
 * MikroORM sends every read outside a transaction to one of the replicas (orm/replicas.ts): their pools together, each
 * sized as poolSize() sizes one (a replica's own `pool` and `driverOptions`, else the primary's, as MikroORM copies
 * them). Otherwise the primary's pool.
 */
export function readPoolSize(em: EntityManager): number {
  const config = em.config;
  const replicas = config.get('replicas') ?? [];
  if (config.get('preferReadReplicas') === false || replicas.length === 0) return poolSize(em);
  let total = 0;
  for (const replica of replicas)
    total += sizeOf(replica.pool?.max ?? config.get('pool')?.max, replica.driverOptions ?? config.get('driverOptions'));
  return total;
}

function sizeOf(poolMax: unknown, options: unknown): number {
  const driverOptions = (options ?? {}) as Record<string, unknown>;
  for (const size of [poolMax, driverOptions.max, driverOptions.connectionLimit])
    if (typeof size === 'number' && Number.isSafeInteger(size) && size >= 1) return size;
  return DEFAULT_POOL_SIZE;
}

/** The engine config without `admission`, which admissionFor checks (it needs the ORM), for validateConfig. */
export function withoutAdmission<T>(config: T): T {
  if (typeof config !== 'object' || config === null || !('admission' in config)) return config;
  const { admission: _checked, ...rest } = config as T & AdmissionConfig;
  return rest as T;
}
