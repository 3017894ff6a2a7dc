import { isoString } from './iso-date.ts';

/** A list item as the engine returns it. */
type Item = Record<string, unknown>;

/** What a node's value field reads: the item key holding its value, and whether it writes it as a String's text. */
export interface ItemValue {
  readonly itemKey: string;
  readonly text: boolean;
}

/** The resolvers itemValueResolver() built, and what each reads. */
const reads = new WeakMap<object, ItemValue>();

/**
 * The resolver of a node's value field: the item's value under `itemKey` (as asString writes it for a String field),
 * or null. It reads the item and nothing else, so the compiled path writes such a field from the item itself
 * (compiled-leaf.ts, leafValue), to the same value, without a call per field of each item. A field whose resolver was
 * replaced (a server's middleware wraps resolvers) is not one of these: its resolver is called as graphql-js calls it.
 */
export function itemValueResolver(itemKey: string, text: boolean): (item: Item) => unknown {
  const resolve = text ? (item: Item) => asString(item[itemKey]) : (item: Item) => item[itemKey] ?? null;
  reads.set(resolve, { itemKey, text });
  return resolve;
}

/** What a field's resolver reads, when itemValueResolver() built it. */
export function itemValueOf(resolve: unknown): ItemValue | undefined {
  return typeof resolve === 'function' ? reads.get(resolve) : undefined;
}

/** Write a value as the string a String field carries: dates in ISO 8601, bigints and decimals in full. */
export function asString(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Date) return isoString(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
