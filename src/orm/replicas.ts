/**
 * Where a request reads: the read replica MikroORM picks, kept for the whole request (connection.ts), and with the
 * engine's `replicaFallback`, a replica that does not answer is left for another one or the primary. The request
 * then runs on a stand-in connection whose every member is the current server's; only a statement that finds its
 * replica not answering (connection-failure.ts) changes the server, once, before the request has read anything:
 * a walk never continues on another server, whose replication lag differs. The replica leaves rotation until its
 * health check passes (replica-health.ts).
 *
 * MikroORM 7 picks a read connection in `QueryBuilder.getConnection()`: the builder's own connection type, else
 * `preferReadReplicas`, then `driver.getConnection('read')`, a random one of `driver.replicas` (the primary when
 * there are none). Both members are protected in its typings. Checked against MikroORM 7.2.1 (the development
 * pin); when a version no longer has them, the request reads where MikroORM picked, as without the option.
 */
import type { QueryBuilder } from '@mikro-orm/sql';
import type { StatementGuard } from '../dialect/index.ts';
import { invalidSchema, replicaLost } from '../errors.ts';
import { type ConnectionInternals, connectionOf } from './connection.ts';
import { isConnectionFailure } from './connection-failure.ts';
import type { ReplicaHealthEvent } from './replica-health.ts';
import { type HealthCheckSettings, ReplicaHealth } from './replica-health.ts';

export type { ReplicaHealthEvent } from './replica-health.ts';

/**
 * The engine's `replicaFallback` option (docs/replicas.md): what a request does when its read replica refuses or
 * drops its connection. `{}` turns it on with the defaults.
 */
export interface ReplicaFallback {
  /**
   * Move such a request once, to another replica in rotation or the primary, before it has read anything (default
   * true); false answers `replica_lost` at once, and the replica still leaves rotation.
   */
  readonly retry?: boolean | undefined;
  /** Let the primary take reads when no replica is in rotation (default true); false answers `replica_lost`. */
  readonly toPrimary?: boolean | undefined;
  /**
   * When a replica out of rotation is checked again (`select 1`): `interval` milliseconds after it failed (default
   * 1000), then twice as long after each failed check, up to `maxInterval` (default 30000).
   */
  readonly healthCheck?:
    | { readonly interval?: number | undefined; readonly maxInterval?: number | undefined }
    | undefined;
  /** Hear when a replica leaves rotation or comes back, for logs and metrics. */
  readonly onChange?: ((event: ReplicaHealthEvent) => void) | undefined;
}

/** Check the `replicaFallback` option and fill in its defaults; throws `invalid_schema` naming the setting at fault. */
export function replicaFallbackSettings(option: ReplicaFallback): ReplicaFallbackSettings {
  if (typeof option !== 'object' || option === null)
    throw invalidSchema('engine config: replicaFallback must be an object ({} for the defaults)');
  const known = ['retry', 'toPrimary', 'healthCheck', 'onChange'];
  const unknown = Object.keys(option).find((key) => !known.includes(key));
  if (unknown !== undefined) throw invalidSchema(`engine config: replicaFallback.${unknown} is not a known setting`);
  const { retry = true, toPrimary = true, healthCheck = {}, onChange } = option;
  for (const [name, value] of [
    ['retry', retry],
    ['toPrimary', toPrimary],
  ] as const)
    if (typeof value !== 'boolean') throw invalidSchema(`engine config: replicaFallback.${name} must be true or false`);
  if (onChange !== undefined && typeof onChange !== 'function')
    throw invalidSchema('engine config: replicaFallback.onChange must be a function');
  if (typeof healthCheck !== 'object' || healthCheck === null)
    throw invalidSchema('engine config: replicaFallback.healthCheck must be an object');
  const { interval = 1000, maxInterval = Math.max(30_000, interval), ...rest } = healthCheck;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined)
    throw invalidSchema(`engine config: replicaFallback.healthCheck.${extra} is not a known setting`);
  for (const [name, value] of [
    ['interval', interval],
    ['maxInterval', maxInterval],
  ] as const)
    if (!Number.isSafeInteger(value) || value < 1)
      throw invalidSchema(
        `engine config: replicaFallback.healthCheck.${name} must be a positive integer (milliseconds)`,
      );
  if (maxInterval < interval)
    throw invalidSchema('engine config: replicaFallback.healthCheck.maxInterval must not be below interval');
  return Object.freeze({ retry, toPrimary, interval, maxInterval, ...(onChange ? { onChange } : {}) });
}

/** The engine's `replicaFallback`, checked, with every default filled in. */
export interface ReplicaFallbackSettings extends HealthCheckSettings {
  /** Move a request whose replica does not answer to another server, once (else answer `replica_lost`). */
  readonly retry: boolean;
  /** Let the primary take the read when no other replica is in rotation. */
  readonly toPrimary: boolean;
}

/** The protected members of MikroORM's QueryBuilder and driver that say where reads go. */
interface DriverInternals {
  getConnection(type: 'read' | 'write'): ConnectionInternals;
  readonly replicas?: readonly ConnectionInternals[];
}

const healthByDriver = new WeakMap<object, ReplicaHealth>();

/**
 * Make a QueryBuilder read from the primary, whatever `preferReadReplicas` says: MikroORM's own connection type,
 * which its clones keep (`em.createQueryBuilder(Book, 'b', 'write')` does the same).
 */
export function onPrimary<Q extends QueryBuilder<any>>(qb: Q): Q {
  (qb as unknown as { connectionType?: string }).connectionType = 'write';
  return qb;
}

/**
 * The connection one request reads from (not in a transaction: that one runs on the transaction). Without
 * `fallback`, the one MikroORM picks, as em.find reads. With it, a replica in rotation (the one MikroORM picked when
 * it is), behind a stand-in that moves the request once when that replica does not answer. Throws `replica_lost`
 * when no server may take the read.
 */
export function readConnection(
  qb: QueryBuilder<any>,
  fallback: ReplicaFallbackSettings | undefined,
  guard: StatementGuard | undefined,
): object {
  const picked = connectionOf(qb);
  if (!fallback) return picked;
  const driver = (qb as unknown as { driver?: DriverInternals }).driver;
  const replicas = driver?.replicas;
  // The primary (a write builder, preferReadReplicas: false, no replicas) is never moved.
  if (!driver || !Array.isArray(replicas) || !replicas.includes(picked)) return picked;
  const health = healthByDriver.get(driver) ?? new ReplicaHealth(replicas);
  healthByDriver.set(driver, health);
  health.listen(fallback.onChange);
  health.checkDue(fallback);
  const primary = driver.getConnection('write');
  const route = new Route(health, fallback, guard, primary);
  const first = health.isUp(picked) ? picked : route.next(new Set([picked]));
  if (!first)
    throw replicaLost('no read replica is in rotation and replicaFallback.toPrimary is false: send the request again');
  return first === primary ? primary : route.connectTo(first as ConnectionInternals);
}

/** One request's server, and whether it may still move. */
class Route {
  readonly #health: ReplicaHealth;
  readonly #settings: ReplicaFallbackSettings;
  readonly #guard: StatementGuard | undefined;
  readonly #primary: ConnectionInternals;
  readonly #opened = performance.now();
  readonly #tried = new Set<object>();
  #current!: ConnectionInternals;
  #read = false;

  constructor(
    health: ReplicaHealth,
    settings: ReplicaFallbackSettings,
    guard: StatementGuard | undefined,
    primary: ConnectionInternals,
  ) {
    this.#health = health;
    this.#settings = settings;
    this.#guard = guard;
    this.#primary = primary;
  }

  /** Another server for the read: a replica in rotation (not one of `exclude`) at random, else the primary if allowed. */
  next(exclude: ReadonlySet<object>): object | undefined {
    const up = this.#health.inRotation(exclude);
    if (up.length > 0) return up[Math.floor(Math.random() * up.length)];
    return this.#settings.toPrimary ? this.#primary : undefined;
  }

  /**
   * The stand-in connection: every member is the current server's, except the two bound execution runs statements
   * through (connection.ts), which may move the request, and getClient(), whose Kysely follows the current server
   * (a statement's callback takes the client before it runs, and runs again after a move).
   */
  connectTo(first: ConnectionInternals): object {
    this.#current = first;
    this.#tried.add(first);
    const client = follow(() => this.#current.getClient());
    return new Proxy(first, {
      get: (_target, key) => {
        if (key === 'ensureConnection') return () => this.#attempt((c) => c.ensureConnection(), false);
        if (key === 'executeQuery')
          return (query: string, cb: () => Promise<unknown>, context?: Record<string, unknown>) =>
            this.#attempt((c) => c.executeQuery(query, cb, context), true);
        if (key === 'getClient') return () => client;
        return member(this.#current, key);
      },
    });
  }

  async #attempt<T>(run: (connection: ConnectionInternals) => Promise<T>, reads: boolean): Promise<T> {
    const connection = this.#current;
    try {
      const result = await run(connection);
      if (reads) this.#read = true;
      return result;
    } catch (err) {
      if (connection === this.#primary || !isConnectionFailure(err)) throw err;
      // A statement beside this one (a count beside its page, sibling nested levels) already moved the request off
      // this server before anything was read: follow it there rather than count a second move.
      if (this.#current !== connection && !this.#read) return this.#attempt(ensured(run), reads);
      this.#health.markDown(connection, err, this.#settings);
      if (this.#read)
        throw replicaLost(
          'the read replica stopped answering after this request had read from it, and a walk never continues on ' +
            'another server: start again',
          err,
        );
      const next = this.#mayMove() ? this.next(this.#tried) : undefined;
      if (!next)
        throw replicaLost(
          'the read replica stopped answering and no other server could take the request: send it again',
          err,
        );
      this.#current = next as ConnectionInternals;
      this.#tried.add(next);
      return this.#attempt(ensured(run), reads);
    }
  }

  /** One move per request, only while it is still wanted (not aborted) and within its statement timeout. */
  #mayMove(): boolean {
    const guard = this.#guard;
    if (!this.#settings.retry || this.#tried.size > 1 || guard?.signal?.aborted) return false;
    return guard?.timeout === undefined || performance.now() - this.#opened < guard.timeout;
  }
}

/** `run` on a server whose client is open: MikroORM opens a connection's client on first use (ensureConnection). */
function ensured<T>(run: (connection: ConnectionInternals) => Promise<T>) {
  return async (c: ConnectionInternals): Promise<T> => {
    await c.ensureConnection();
    return run(c);
  };
}

/** An object whose every member is `current()`'s at the moment it is read, methods bound to it. */
function follow(current: () => object): object {
  return new Proxy(
    {},
    {
      get: (_target, key) => member(current(), key),
    },
  );
}

function member(target: object, key: string | symbol): unknown {
  const value = Reflect.get(target, key, target);
  return typeof value === 'function' ? value.bind(target) : value;
}
