import { RawQueryFragment } from '@mikro-orm/core';

/**
 * Copies of QueryBuilder state members, made as MikroORM's clone() makes them (its generic deep copy, `Utils.copy`):
 * plain objects (symbol keys included), arrays, sets, maps and dates copied, objects whose own `clone()` returns
 * themselves (entity metadata, raw fragments) and functions (entity classes) shared. Anything else is refused.
 */

type Members = Record<PropertyKey, unknown>;

/**
 * Makes one copy per call; `params` are the values of the filter's raw fragment (see copierOf), `sql` its text when
 * it differs from the one the state was planned with (see builderOf).
 */
export type Copier = (params: readonly unknown[], sql?: string) => unknown;

export function isPlainObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** An object whose clone() returns itself, which MikroORM's copy shares (entity metadata, raw fragments). */
function sharedByClone(value: object): boolean {
  if (isPlainObject(value)) return false;
  const clone = (value as { clone?: unknown }).clone;
  return typeof clone === 'function' && clone.constructor.name !== 'AsyncFunction' && clone.call(value) === value;
}

/** What a copy does with an object: copies it by kind, shares it, or cannot copy it (undefined). */
function kindOf(value: object): 'plain' | 'array' | 'set' | 'map' | 'date' | 'shared' | undefined {
  const proto = Object.getPrototypeOf(value);
  // MikroORM's copy asks an object with a clone() method for its copy before anything else.
  const cloned = typeof (value as { clone?: unknown }).clone === 'function';
  if (proto === Object.prototype || proto === null) return cloned ? undefined : 'plain';
  if (cloned) return sharedByClone(value) ? 'shared' : undefined;
  if (Array.isArray(value)) return dense(value) ? 'array' : undefined;
  if (Object.getOwnPropertySymbols(value).length > 0 || Object.keys(value).length > 0) return undefined;
  if (value instanceof Date) return 'date';
  if (value instanceof Set) return 'set';
  return value instanceof Map ? 'map' : undefined;
}

/** An array with an element at every index and no other own members. */
function dense(value: readonly unknown[]): boolean {
  let members = 0;
  for (const _ in value) members++;
  for (let i = 0; i < value.length; i++) if (!(i in value)) return false;
  return members === value.length && Object.getOwnPropertySymbols(value).length === 0;
}

/**
 * Walk what a copy of `value` copies, collecting its objects and the raw fragments keying its plain objects. False
 * when it holds something a copy cannot make, or reaches an object twice (its copies would have to be shared).
 */
export function reach(value: unknown, objects: Set<object>, symbols: symbol[]): boolean {
  if (typeof value === 'symbol') return false;
  if (typeof value !== 'object' || value === null) return true;
  const kind = kindOf(value);
  if (kind === 'shared') return true;
  if (kind === undefined || objects.has(value)) return false;
  objects.add(value);
  if (kind === 'set' || kind === 'map') return [...(value as Set<unknown>)].every((e) => reach(e, objects, symbols));
  if (kind === 'date') return true;
  for (const key of Object.keys(value)) if (!reach((value as Members)[key], objects, symbols)) return false;
  for (const symbol of Object.getOwnPropertySymbols(value)) {
    if (!Object.getOwnPropertyDescriptor(value, symbol)?.enumerable) return false;
    if (!RawQueryFragment.isKnownFragmentSymbol(symbol)) return false;
    symbols.push(symbol);
    if (!reach((value as Members)[symbol], objects, symbols)) return false;
  }
  return true;
}

/**
 * A copier of `value`, which reach() accepted. Raw-fragment keys: `filter` gets a fresh fragment with the call's
 * params (and the call's SQL, when given); a fragment with values of its own a fresh one with them; one without values (an order term) is shared, as
 * MikroORM's clone() shares every fragment.
 */
export function copierOf(value: unknown, filter: symbol | undefined): Copier {
  if (typeof value !== 'object' || value === null) return () => value;
  const kind = kindOf(value);
  if (kind === 'date') {
    const time = (value as Date).getTime();
    return () => new Date(time);
  }
  if (kind === 'array' || kind === 'set' || kind === 'map') {
    const items = [...(value as unknown[])].map((item) => copierOf(item, filter));
    const copyItems = (params: readonly unknown[], sql?: string) => items.map((item) => item(params, sql));
    if (kind === 'array') return copyItems;
    return kind === 'set'
      ? (p, sql) => new Set(copyItems(p, sql))
      : (p, sql) => new Map(copyItems(p, sql) as [unknown, unknown][]);
  }
  if (kind !== 'plain') return () => value;
  const keys = Object.keys(value);
  const values = keys.map((key) => copierOf((value as Members)[key], filter));
  const symbols = Object.getOwnPropertySymbols(value);
  const keysOf = symbols.map((symbol) => keyCopier(symbol, filter));
  const symbolValues = symbols.map((symbol) => copierOf((value as Members)[symbol], filter));
  const bare = Object.getPrototypeOf(value) === null;
  return (params, sql) => {
    const out: Members = bare ? Object.create(null) : {};
    for (let i = 0; i < keys.length; i++) out[keys[i] as string] = (values[i] as Copier)(params, sql);
    for (let i = 0; i < symbols.length; i++)
      out[(keysOf[i] as KeyCopier)(params, sql)] = (symbolValues[i] as Copier)(params, sql);
    return out;
  };
}

type KeyCopier = (params: readonly unknown[], sql?: string) => symbol;

function keyCopier(symbol: symbol, filter: symbol | undefined): KeyCopier {
  const { sql, params: own } = RawQueryFragment.getKnownFragment(symbol) as RawQueryFragment;
  if (symbol === filter) return (params, text) => new RawQueryFragment(text ?? sql, [...params]).key;
  return own.length === 0 ? () => symbol : () => new RawQueryFragment(sql, [...own]).key;
}

/**
 * Whether `a` (a planned state's member) and `b` (a fresh state's) are alike: equal primitives, the same shared
 * objects, and objects of the same shape shared alike. `pairs` maps each object of `a` met so far to its counterpart
 * in `b`, `back` the other way; the objects paired by this call are added to `journal`.
 */
export function sameShape(
  a: unknown,
  b: unknown,
  pairs: Map<object, object>,
  back: Map<object, object>,
  journal: object[],
): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  const paired = pairs.get(a);
  if (paired !== undefined || back.has(b)) return paired === b;
  const kind = kindOf(a);
  if (kind === undefined || kind !== kindOf(b)) return false;
  if (kind === 'shared') return a === b;
  if (kind === 'date') return (a as Date).getTime() === (b as Date).getTime();
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (Object.getOwnPropertySymbols(a).length > 0 || Object.getOwnPropertySymbols(b).length > 0) return false;
  pairs.set(a, b);
  back.set(b, a);
  journal.push(a);
  if (kind === 'set' || kind === 'map')
    return sameShape([...(a as Set<unknown>)], [...(b as Set<unknown>)], pairs, back, journal);
  const keys = Object.keys(a);
  const other = Object.keys(b);
  if (keys.length !== other.length || keys.some((key, i) => key !== other[i])) return false;
  return keys.every((key) => sameShape((a as Members)[key], (b as Members)[key], pairs, back, journal));
}
