/**
 * Tell whether no two of a page's identities are the same value, as a `Set` tells (SameValueZero): the row loops
 * leave a page whose rows repeat an identity to the mapped path (em.map() would make them one entity).
 *
 * A `Set` of a page's identities costs a hash insertion per row, more than the rest of the row's checks together. A
 * keyset page ordered by its primary key holds identities in strictly increasing (or decreasing) order, which proves
 * them distinct with one comparison per row; numbers in any other order are sorted as doubles and compared with their
 * neighbours. Only the rest (strings or bigints out of order, mixed types, NaN) are counted in a `Set`.
 */
export function distinctIds(ids: readonly unknown[]): boolean {
  const n = ids.length;
  if (n < 2) return true;
  const type = typeof ids[0];
  if ((type === 'number' || type === 'string' || type === 'bigint') && strictlyOrdered(ids as readonly Ordered[], type))
    return true;
  if (type === 'number') {
    const sorted = numbersOf(ids);
    if (sorted) {
      sorted.sort();
      // -0 and 0 sort side by side and are equal here, as a Set counts them once.
      for (let i = 1; i < n; i++) if (sorted[i] === sorted[i - 1]) return false;
      return true;
    }
  }
  return new Set(ids).size === n;
}

type Ordered = number | string | bigint;

/**
 * Whether the values are all of `type` and each is strictly after the one before it, in one direction: then no two
 * are equal (a strict order of one type never returns to a value it passed).
 */
function strictlyOrdered(ids: readonly Ordered[], type: string): boolean {
  const n = ids.length;
  let before = ids[0]!;
  const second = ids[1]!;
  if (typeof second !== type) return false;
  const up = second > before;
  if (!up && !(second < before)) return false;
  before = second;
  for (let i = 2; i < n; i++) {
    const value = ids[i]!;
    if (typeof value !== type || (up ? !(value > before) : !(value < before))) return false;
    before = value;
  }
  return true;
}

/** The values as doubles, or undefined when one is not a number or is NaN (a Set counts NaNs once; sorting would not). */
function numbersOf(ids: readonly unknown[]): Float64Array | undefined {
  const out = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const value = ids[i];
    if (typeof value !== 'number' || Number.isNaN(value)) return undefined;
    out[i] = value;
  }
  return out;
}
