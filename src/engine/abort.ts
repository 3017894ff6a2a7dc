import { executionFailed, type ListError } from '../errors.ts';

/** Build the error a cancelled list operation rejects with: `execution_failed`, the signal's reason as cause. */
function abortedError(signal: AbortSignal): ListError {
  return executionFailed('the list operation was aborted', signal.reason);
}

/** Reject before any further query when the caller has aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError(signal);
}

/**
 * Run a query unless the caller has aborted; when it fails because the caller aborted, reject with the abort error
 * instead of the driver's. With a signal, the event loop turns first, so an abort that arrived while the previous
 * query held it (a SQLite statement runs synchronously) is seen before the next query starts.
 */
export async function runAbortable<T>(signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
  if (signal) await turnEventLoop();
  throwIfAborted(signal);
  try {
    return await run();
  } catch (err) {
    if (signal?.aborted) throw abortedError(signal);
    throw err;
  }
}

/**
 * Let every phase of the event loop run once (timers, I/O such as a closed client socket): two `setImmediate` hops
 * pass through the timers and poll phases from wherever the caller is. Costs microseconds when the loop is idle.
 */
function turnEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
