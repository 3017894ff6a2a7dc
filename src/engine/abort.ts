import { ListError } from '../errors.ts';
import type { AnyQueryBuilder } from '../plan/apply-resolved.ts';
import type { Dialect } from '../plan/dialect.ts';

/** Build the error a cancelled list operation rejects with: `execution_failed`, the signal's reason as cause. */
function abortedError(signal: AbortSignal): ListError {
  return new ListError('execution_failed', 'the list operation was aborted', { cause: signal.reason });
}

/** Reject before any further query when the caller has aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError(signal);
}

/**
 * Make a QueryBuilder's query stop when `signal` aborts: PostgreSQL cancels it on the server
 * (`pg_cancel_backend`); SQLite runs queries synchronously, so there the signal takes effect between queries.
 */
export function abortWith(qb: AnyQueryBuilder, signal: AbortSignal | undefined, dialect: Dialect): void {
  if (!signal) return;
  const strategy = dialect === 'postgresql' ? 'cancel query' : 'ignore query';
  qb.setAbortOptions({ signal, inflightQueryAbortStrategy: strategy });
}

/** Run a query; when it fails because the caller aborted, reject with the abort error instead of the driver's. */
export async function runAbortable<T>(signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
  throwIfAborted(signal);
  try {
    return await run();
  } catch (err) {
    if (signal?.aborted) throw abortedError(signal);
    throw err;
  }
}
