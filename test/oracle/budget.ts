/**
 * How many random cases the property tests run, and with which seed. CI runs a fixed seed and a small budget;
 * `LISTQL_DEEP=1` multiplies the budget and picks a fresh seed (printed) unless `LISTQL_SEED` fixes one.
 */
import fc from 'fast-check';

export const DEEP = process.env.LISTQL_DEEP === '1';

/** The seed of this run: LISTQL_SEED, else fixed in CI, else random in deep mode. */
export const SEED: number = process.env.LISTQL_SEED
  ? Number(process.env.LISTQL_SEED)
  : DEEP
    ? (Date.now() ^ (process.pid << 8)) | 0
    : 20260716;

/** Scale a CI budget up for deep runs (LISTQL_DEEP_FACTOR, default 25). */
export function budget(ci: number): number {
  return DEEP ? ci * Number(process.env.LISTQL_DEEP_FACTOR ?? 25) : ci;
}

/**
 * Run an async property with this run's seed. On failure fast-check reports the seed, the replay path and the
 * shrunk counter-example; the message adds how to replay it.
 */
export async function check<T>(
  arb: fc.Arbitrary<T>,
  runs: number,
  predicate: (value: T) => Promise<void>,
): Promise<void> {
  const details = await fc.check(
    fc.asyncProperty(arb, async (value) => {
      await predicate(value);
    }),
    { seed: SEED, numRuns: runs },
  );
  if (!details.failed) return;
  const report = fc.defaultReportMessage(details) ?? 'property failed';
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`${report}\nError: ${cause}\nReplay: LISTQL_SEED=${SEED} (same budget) reproduces this failure.`);
}

/** Give a generated case a readable form in fast-check's reports. */
export function printable<T extends object>(value: T, print: (value: T) => string): T {
  return Object.assign(value, { [fc.toStringMethod]: () => print(value) });
}
