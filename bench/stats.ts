/** Timing helpers for `npm run bench`: medians over repeated runs, with the spread stated as noise. */
import { performance } from 'node:perf_hooks';

/** A measured distribution, in the unit of its samples. */
export interface Sample {
  readonly median: number;
  readonly p25: number;
  readonly p75: number;
  readonly runs: number;
}

/** Summarize raw timings. */
export function summarize(values: readonly number[]): Sample {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))] ?? Number.NaN;
  return { median: at(0.5), p25: at(0.25), p75: at(0.75), runs: sorted.length };
}

/** Relative spread of a sample: the interquartile range over the median. */
export function noise(s: Sample): string {
  return `±${((100 * (s.p75 - s.p25)) / 2 / s.median).toFixed(1)}%`;
}

/** Time a synchronous function in microseconds per call, over `runs` batches of `batch` calls. */
export function microsPerCall(fn: () => unknown, runs = 30, batch = 200): Sample {
  for (let i = 0; i < batch; i++) fn(); // warm up
  const values: number[] = [];
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    for (let i = 0; i < batch; i++) fn();
    values.push(((performance.now() - start) * 1000) / batch);
  }
  return summarize(values);
}

/**
 * Run `fn` for about `ms` milliseconds (at most `max` calls) before it is timed: the per-call figures are a running
 * server's, not those of its first calls, which V8 runs while it is still compiling the path (a few thousand calls on
 * a busy 2-core machine). Where the first calls matter, the bench prints them apart as a report line.
 */
export function warmUp(fn: () => unknown, ms = 400, max = Number.POSITIVE_INFINITY): number {
  const until = performance.now() + ms;
  let calls = 0;
  while (calls < max && (calls % 16 !== 0 || performance.now() < until)) {
    fn();
    calls++;
  }
  return calls;
}

/** warmUp() for an async call: each call is awaited before the next. */
export async function warmUpAsync(
  fn: () => Promise<unknown>,
  ms = 400,
  max = Number.POSITIVE_INFINITY,
): Promise<number> {
  const until = performance.now() + ms;
  let calls = 0;
  while (calls < max && (calls % 16 !== 0 || performance.now() < until)) {
    await fn();
    calls++;
  }
  return calls;
}

/**
 * Time two async operations side by side, alternating A and B in every round so machine noise hits both alike.
 * Returns both samples (milliseconds per call) and the per-round ratio A/B.
 */
export async function sideBySide(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  rounds = 15,
  warmup = 3,
): Promise<{ a: Sample; b: Sample; ratio: Sample }> {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  const ratio: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const first = r % 2 === 0;
    const [x, y] = first ? [a, b] : [b, a];
    const t0 = performance.now();
    await x();
    const t1 = performance.now();
    await y();
    const t2 = performance.now();
    const [da, db] = first ? [t1 - t0, t2 - t1] : [t2 - t1, t1 - t0];
    ta.push(da);
    tb.push(db);
    ratio.push(da / db);
  }
  return { a: summarize(ta), b: summarize(tb), ratio: summarize(ratio) };
}

/** Format a number with a unit and sensible precision. */
export function fmt(value: number, unit: string): string {
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

/** A target a figure is judged against: an upper or a lower bound on its value, or only reported. */
export type Target = { readonly max: number } | { readonly min: number } | 'report';

/** Print a target and whether a value meets it: `target ≤ 1.15x  met`, or `report` when there is none. */
export function verdict(value: number, target: Target, unit = 'x'): string {
  if (target === 'report') return 'report';
  if ('max' in target) return `target ≤ ${target.max}${unit}  ${value <= target.max ? 'met' : 'MISSED'}`;
  return `target ≥ ${target.min}${unit}  ${value >= target.min ? 'met' : 'MISSED'}`;
}
