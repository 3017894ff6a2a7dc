/**
 * A comparable text for plain data (objects with Object or null prototypes, arrays, strings, numbers, bigints,
 * booleans, null, Dates), such as a MikroORM filter condition; undefined when it holds anything else (class
 * instances, functions, symbols, symbol keys such as MikroORM's raw-fragment keys). Types are kept apart: the
 * string '1' and the number 1 give different texts, and so do a Date and its ISO string.
 */
export function plainKey(value: unknown): string | undefined {
  let ok = true;
  const text = JSON.stringify(value ?? null, function (this: Record<string, unknown>, key, item: unknown) {
    const original = key === '' ? value : this[key];
    if (original instanceof Date) return `D${original.toISOString()}`;
    if (typeof item === 'bigint') return `${item}n`;
    if (typeof item === 'string') return `s${item}`;
    if (typeof item === 'number' && !Number.isFinite(item)) ok = false;
    if (item === undefined && key !== '') ok = false;
    if (typeof item === 'function' || typeof item === 'symbol') ok = false;
    if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      const proto = Object.getPrototypeOf(item);
      if (proto !== Object.prototype && proto !== null) ok = false;
      if (Object.getOwnPropertySymbols(item).length > 0) ok = false;
    }
    return item;
  });
  return ok ? text : undefined;
}

/** A value a compiled statement may keep as a constant parameter: null, a string, number, bigint, boolean or Date. */
export function isPlainValue(value: unknown): boolean {
  return value === null || ['string', 'number', 'bigint', 'boolean'].includes(typeof value) || value instanceof Date;
}
