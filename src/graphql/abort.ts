import type { GraphQLResolveInfo } from 'graphql';

/**
 * Find the signals that cancel this execution: the one the server gave graphql-js (graphql 17's
 * `info.getAbortSignal()`), the GraphQL context's `signal`, and the context's `request.signal` (GraphQL Yoga, and
 * any server whose context carries the Fetch API request).
 */
export function executionSignals(context: unknown, info: GraphQLResolveInfo): AbortSignal[] {
  const found = [
    (info as { getAbortSignal?: () => unknown }).getAbortSignal?.(),
    (context as { signal?: unknown } | null | undefined)?.signal,
    (context as { request?: { signal?: unknown } } | null | undefined)?.request?.signal,
  ];
  return [...new Set(found.filter((s): s is AbortSignal => s instanceof AbortSignal))];
}

/**
 * Give the engine's ctx the execution's signals: the scope's ctx as it is when there are none, else a copy whose
 * `signal` aborts when any of them (or the scope's own ctx.signal) does.
 */
export function withSignals(ctx: object | undefined, signals: readonly AbortSignal[]): object {
  if (signals.length === 0) return ctx ?? {};
  const own = (ctx as { signal?: unknown } | undefined)?.signal;
  const all = own instanceof AbortSignal && !signals.includes(own) ? [own, ...signals] : signals;
  return { ...ctx, signal: all.length === 1 ? all[0] : AbortSignal.any([...all]) };
}
