/**
 * Which read replicas of one MikroORM driver are in rotation. A replica leaves rotation when a statement finds it
 * not answering (connection-failure.ts); from then on it is checked with `select 1` (MikroORM's
 * `checkConnection()`), first after `interval` milliseconds, then after twice as long each time the check fails, up to
 * `maxInterval`. A check passes: the replica is back in rotation. Checks start when a request arrives and the wait
 * is over, and run beside it: no timer outlives the application, and a request never waits for a check.
 *
 * The state belongs to the driver, so every engine on one MikroORM instance sees the same replicas in rotation.
 */

/** A change of a replica's state, for logs and metrics. */
export interface ReplicaHealthEvent {
  /** The replica's position in MikroORM's `replicas` option. */
  readonly replica: number;
  /** `down`: out of rotation after a failure; `up`: back after a passing check. */
  readonly state: 'down' | 'up';
  /** With `down`: the driver's error, for logs only. */
  readonly cause?: unknown;
}

/** The back-off of the checks, and who hears of changes. */
export interface HealthCheckSettings {
  readonly interval: number;
  readonly maxInterval: number;
  readonly onChange?: ((event: ReplicaHealthEvent) => void) | undefined;
}

interface ReplicaState {
  /** When the next check may start (performance.now() time). */
  due: number;
  /** The wait before the check after `due`, doubled after each failed check. */
  wait: number;
  checking: boolean;
}

/** The replicas of one driver that are out of rotation, and the listeners of all engines on it. */
export class ReplicaHealth {
  readonly #down = new Map<object, ReplicaState>();
  readonly #listeners = new Set<(event: ReplicaHealthEvent) => void>();

  /** The driver's replica connections, in the order of MikroORM's `replicas` option. */
  readonly replicas: readonly object[];

  constructor(replicas: readonly object[]) {
    this.replicas = replicas;
  }

  /** Whether a replica is in rotation. */
  isUp(replica: object): boolean {
    return !this.#down.has(replica);
  }

  /** The replicas in rotation, except those of `exclude`. */
  inRotation(exclude: ReadonlySet<object>): object[] {
    return this.replicas.filter((r) => !exclude.has(r) && this.isUp(r));
  }

  /** Hear of changes (once per listener, however many engines pass it). */
  listen(listener: ((event: ReplicaHealthEvent) => void) | undefined): void {
    if (listener) this.#listeners.add(listener);
  }

  /** Take a replica out of rotation after `cause`; a replica already out keeps its back-off. */
  markDown(replica: object, cause: unknown, settings: HealthCheckSettings): void {
    if (this.#down.has(replica)) return;
    this.#down.set(replica, { due: performance.now() + settings.interval, wait: settings.interval, checking: false });
    this.#emit({ replica: this.replicas.indexOf(replica), state: 'down', cause });
  }

  /** Start a check of every replica out of rotation whose wait is over; each runs beside the caller's request. */
  checkDue(settings: HealthCheckSettings): void {
    const now = performance.now();
    for (const [replica, state] of this.#down) {
      if (state.checking || state.due > now) continue;
      state.checking = true;
      void answers(replica, Math.max(1000, settings.interval)).then((up) => {
        state.checking = false;
        if (up) {
          this.#down.delete(replica);
          this.#emit({ replica: this.replicas.indexOf(replica), state: 'up' });
          return;
        }
        state.wait = Math.min(state.wait * 2, settings.maxInterval);
        state.due = performance.now() + state.wait;
      });
    }
  }

  #emit(event: ReplicaHealthEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure must not fail the request that noticed the change.
      }
    }
  }
}

/** What a health check calls on a MikroORM connection. */
interface Checkable {
  ensureConnection?(): Promise<void>;
  checkConnection?(): Promise<{ ok: boolean }>;
}

/**
 * Whether a connection answers `select 1` within `timeout` milliseconds: MikroORM's checkConnection(), after
 * ensureConnection() (a connection never used has no client yet, and checkConnection() would say so forever).
 */
async function answers(connection: Checkable, timeout: number): Promise<boolean> {
  if (typeof connection.checkConnection !== 'function') return true;
  const check = async () => {
    await connection.ensureConnection?.();
    return (await connection.checkConnection?.())?.ok === true;
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeout);
    timer.unref?.();
  });
  try {
    return await Promise.race([check().catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}
