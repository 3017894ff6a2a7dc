import { type ListError, overloaded } from '../errors.ts';
import { throwIfAborted } from './abort.ts';

/**
 * The numbers an admission works with, every default filled in (admission-settings.ts derives them from the pool).
 * `maxCheap` is Infinity when cheap requests have no share of their own.
 */
export interface AdmissionSettings {
  /** Expensive requests (or GraphQL documents' list fields) that may hold a connection at once. */
  readonly maxExpensive: number;
  /** A request whose weight is above this is expensive (admission-weight.ts). */
  readonly expensiveAbove: number;
  /** Requests that may wait for a turn in each share once it is full; past that they are refused at once. */
  readonly queue: number;
  /** Milliseconds a request waits for a turn before it is refused. */
  readonly queueTimeout: number;
  /** Cheap requests that may run at once (Infinity: as many as come; the pool's own queue orders them). */
  readonly maxCheap: number;
  /** Seconds a refused client is told to wait (`Retry-After`). */
  readonly retryAfter: number;
}

/** The time source of an admission: `performance.now()` and timers, or a hand-driven clock in tests. */
export interface AdmissionClock {
  now(): number;
  setTimer(run: () => void, ms: number): unknown;
  clearTimer(timer: unknown): void;
}

/** What one share (expensive or cheap) holds now: the slots taken, and the requests waiting for one. */
export interface ShareStats {
  readonly running: number;
  readonly queued: number;
}

/** What an admission holds now; both zero when it is idle (so a test or a soak can prove nothing leaked). */
export interface AdmissionStats {
  readonly expensive: ShareStats;
  readonly cheap: ShareStats;
}

/** Give back what enter() took; calling it again does nothing. */
export type Release = () => void;

/**
 * Shares the database between requests by their cost, for the engines of one ORM with the same settings: every
 * request is weighed before its first statement; an expensive one takes one of `maxExpensive` slots, waits in a
 * short queue for one, or is refused with `overloaded`; a cheap one never waits behind them (docs/security.md,
 * Fair share).
 */
export interface Admission {
  readonly settings: AdmissionSettings;
  /**
   * Wait for a turn for work of `weight` holding up to `slots` connections at once (a GraphQL document's fields run
   * side by side), and resolve with its release. Rejects with `overloaded` (queue full, or waited `queueTimeout`),
   * or with the abort error when `signal` aborts first; nothing is held then.
   */
  enter(weight: number, signal?: AbortSignal, slots?: number): Promise<Release>;
  /** What is held and waiting now. */
  stats(): AdmissionStats;
}

/** The clock of a running server: performance.now() and Node's timers. */
export const SYSTEM_CLOCK: AdmissionClock = Object.freeze({
  now: () => performance.now(),
  setTimer: (run: () => void, ms: number) => setTimeout(run, ms),
  clearTimer: (timer: unknown) => clearTimeout(timer as ReturnType<typeof setTimeout>),
});

/** Build an admission with its own slots (admission-settings.ts shares one per ORM and settings). */
export function createAdmission(settings: AdmissionSettings, clock: AdmissionClock = SYSTEM_CLOCK): Admission {
  const expensive = new Share(settings.maxExpensive, settings, clock, 'with expensive requests');
  const cheap = new Share(settings.maxCheap, settings, clock, '');
  return Object.freeze({
    settings,
    enter: (weight: number, signal?: AbortSignal, slots = 1) =>
      (weight > settings.expensiveAbove ? expensive : cheap).enter(slots, signal),
    stats: () => ({ expensive: expensive.stats(), cheap: cheap.stats() }),
  });
}

/**
 * Run `work` inside a turn of `admission` for a request of `weight` holding up to `slots` connections at once (its
 * nested levels side by side): released when it settles, whatever the outcome.
 * Without an admission, or without a weight (a request its own checks will refuse before any statement), it runs
 * at once.
 */
export async function admitted<T>(
  admission: Admission | undefined,
  weight: number | undefined,
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
  slots = 1,
): Promise<T> {
  if (admission === undefined || weight === undefined) return work();
  const release = await admission.enter(weight, signal, slots);
  try {
    return await work();
  } finally {
    release();
  }
}

/** A request waiting for its turn. */
interface Waiter {
  readonly slots: number;
  readonly deadline: number;
  readonly resolve: (release: Release) => void;
  readonly reject: (err: unknown) => void;
  readonly signal: AbortSignal | undefined;
  timer?: unknown;
  onAbort?: () => void;
}

/**
 * One share: up to `max` slots held at once, then up to `queue` waiters served first come, first served (a waiter
 * needing more slots than are free keeps those behind it waiting, so a document is never starved by single
 * requests), each refused after `queueTimeout`.
 */
class Share {
  #running = 0;
  readonly #waiting: Waiter[] = [];
  readonly #max: number;
  readonly #settings: AdmissionSettings;
  readonly #clock: AdmissionClock;
  readonly #busyWith: string;

  constructor(max: number, settings: AdmissionSettings, clock: AdmissionClock, busyWith: string) {
    this.#max = max;
    this.#settings = settings;
    this.#clock = clock;
    this.#busyWith = busyWith;
  }

  enter(wanted: number, signal: AbortSignal | undefined): Promise<Release> {
    try {
      throwIfAborted(signal);
    } catch (err) {
      return Promise.reject(err);
    }
    const slots = Math.max(1, Math.min(Math.floor(wanted), this.#max));
    if (this.#waiting.length === 0 && this.#running + slots <= this.#max) return Promise.resolve(this.#take(slots));
    if (this.#waiting.length >= this.#settings.queue) return Promise.reject(this.#refusal(false));
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        slots,
        deadline: this.#clock.now() + this.#settings.queueTimeout,
        resolve,
        reject,
        signal,
      };
      waiter.timer = this.#clock.setTimer(() => this.#leave(waiter, this.#refusal(true)), this.#settings.queueTimeout);
      if (signal) {
        waiter.onAbort = () => this.#leave(waiter, abortError(signal));
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#waiting.push(waiter);
    });
  }

  stats(): ShareStats {
    return { running: this.#running, queued: this.#waiting.length };
  }

  #take(slots: number): Release {
    this.#running += slots;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running -= slots;
      this.#serve();
    };
  }

  /** Hand freed slots to the waiters at the head of the queue; one whose time ran out meanwhile is refused. */
  #serve(): void {
    while (this.#waiting.length > 0) {
      const head = this.#waiting[0]!;
      const late = this.#clock.now() >= head.deadline;
      if (!late && this.#running + head.slots > this.#max) return;
      this.#waiting.shift();
      this.#forget(head);
      if (late) head.reject(this.#refusal(true));
      else head.resolve(this.#take(head.slots));
    }
  }

  /** Take a waiter out of the queue (its time ran out, or its caller went away) and reject it. */
  #leave(waiter: Waiter, err: ListError): void {
    const at = this.#waiting.indexOf(waiter);
    if (at < 0) return;
    this.#waiting.splice(at, 1);
    this.#forget(waiter);
    waiter.reject(err);
    // The head may have left: whoever is next may fit now.
    this.#serve();
  }

  #forget(waiter: Waiter): void {
    if (waiter.timer !== undefined) this.#clock.clearTimer(waiter.timer);
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
  }

  #refusal(waited: boolean): ListError {
    const { retryAfter, queueTimeout } = this.#settings;
    const busy = `the server is busy${this.#busyWith ? ` ${this.#busyWith}` : ''}`;
    const why = waited ? `${busy} and no turn came within ${queueTimeout} ms` : busy;
    const cheaper = this.#busyWith
      ? ', or send a cheaper request (a narrower filter, fewer relationship conditions or sort keys, no count)'
      : '';
    return overloaded(`${why}: retry after ${retryAfter} s${cheaper}`, retryAfter);
  }
}

/** The error of a request whose caller aborted while it waited: the same as any aborted list operation. */
function abortError(signal: AbortSignal): ListError {
  try {
    throwIfAborted(signal);
  } catch (err) {
    return err as ListError;
  }
  throw new Error('listql: abortError of a signal that has not aborted');
}
