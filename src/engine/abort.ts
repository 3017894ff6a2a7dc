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
 * instead of the driver's. An already-aborted signal is refused here, before the statement; one that aborts while it
 * runs cancels it (the dialect's executor listens to the signal). `inProcess` (SQLite, the default): statements run
 * synchronously and hold the event loop, so with a signal the loop turns first and an abort that arrived meanwhile
 * is seen before the next query starts. A dialect whose statements run on a server awaits each one, so the loop has
 * turned since the previous: no turn is taken, and an abort still pending in it cancels the statement it meets.
 */
export async function runAbortable<T>(
  signal: AbortSignal | undefined,
  run: () => Promise<T>,
  inProcess = true,
): Promise<T> {
  if (signal && inProcess) await turnEventLoop();
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
