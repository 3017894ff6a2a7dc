import type { Selection } from '../engine/item-type.ts';
import type { Policy } from '../policy/schema.ts';
import { fieldsText } from './fields.ts';
import { type Filter, type FilterBuilder, filterBuilder, filterText, type Skip } from './filter.ts';
import type { ItemOf, NestedPath, PolicyAt } from './item-types.ts';
import { sendable } from './literal.ts';
import { isIdentifier, pathText } from './names.ts';
import type { FacetName, SortKey } from './types.ts';

/**
 * The list parameters a top-level list and a nested one share: `filter`, `sort`, `limit`, `offset` and `cursor`.
 * Immutable: every method returns a new request, so one request can be the start of many.
 */
abstract class ListParameters<P> {
  /** The parameters written so far, by name, in the order first given. */
  protected readonly values: ReadonlyMap<string, string>;

  constructor(values: ReadonlyMap<string, string> = new Map()) {
    this.values = values;
    Object.freeze(this);
  }

  /** A copy with parameter `name` set (or removed, when `value` is undefined) and parameter `drop` removed. */
  protected with(name: string, value: string | undefined, drop?: string): this {
    const next = new Map(this.values);
    if (value === undefined) next.delete(name);
    else next.set(name, value);
    if (drop !== undefined) next.delete(drop);
    return new (this.constructor as new (values: ReadonlyMap<string, string>) => this)(next);
  }

  /**
   * Filter by the expression `build` returns from the policy's filter builder; an empty expression (`b.and()` of
   * nothing but skipped operands) removes the filter.
   *
   * @example books.filter((b) => b.and(b('year', 'gte', 1970), b('author/name', 'startswith', 'Le')))
   */
  filter(build: (b: FilterBuilder<P>) => Filter<''> | Skip): this {
    const built = build(filterBuilder(''));
    return this.with(
      'filter',
      built === undefined || built === null || built === false ? undefined : filterText(built),
    );
  }

  /**
   * Sort by these keys in order, `-` before a key for descending, `:ci` and `:nullsfirst` / `:nullslast` after it;
   * no keys removes the sort.
   */
  sort(...keys: readonly SortKey<P>[]): this {
    const text = keys.map((key: string) => sortKeyText(key));
    return this.with('sort', text.length === 0 ? undefined : text.join(','));
  }

  /** Items per page (per parent, for a nested list); `undefined` leaves it to the server's default. */
  limit(count: number | undefined): this {
    return this.with('limit', unsigned('limit', count));
  }

  /** Rows to skip; replaces a cursor, which cannot go with an offset. */
  offset(count: number | undefined): this {
    return this.with('offset', unsigned('offset', count), 'cursor');
  }

  /** Continue at a page's `nextCursor` (or go back with its `prevCursor`); replaces an offset. */
  cursor(cursor: string | undefined): this {
    if (cursor !== undefined && (typeof cursor !== 'string' || cursor === ''))
      throw new TypeError('a cursor is the string a page gave');
    return this.with('cursor', cursor, cursor === undefined ? undefined : 'offset');
  }
}

function unsigned(name: string, count: number | undefined): string | undefined {
  if (count !== undefined && !(Number.isSafeInteger(count) && count >= 0))
    throw new RangeError(`${name} is an integer from 0 to 2^53 - 1`);
  return count === undefined ? undefined : String(count);
}

/** A `fields` selection of policy P, as the engine's types check it; any list of entries when P is `any`. */
type SelectionOf<P> = 0 extends 1 & P ? readonly [unknown, ...unknown[]] : Selection<P>;

/** The parameters of one nested list (`reviews.limit`, `reviews.filter`, …), over the nested policy P. */
export class NestedList<P = Policy> extends ListParameters<P> {
  /** Ask for each parent's count of matching rows (the relation's `allowCount`); `false` removes it. */
  count(count = true): this {
    return this.with('count', count ? 'true' : undefined);
  }

  /** The parameters as written, by name without the path. */
  entries(): ReadonlyMap<string, string> {
    return this.values;
  }
}

/**
 * A list request for an endpoint of policy P, built step by step and written as the query parameters of the REST
 * grammar (docs/client.md). `S` is the `fields` selection given, which types the items and the nested lists.
 */
export class ListRequest<P = Policy, S extends readonly unknown[] | undefined = undefined> extends ListParameters<P> {
  /** Types only: the item type of the pages this request answers with. */
  declare readonly '~item'?: ItemOf<P, S>;

  /**
   * Pick the fields items carry: names, `{ relation: [ … ] }` for a selectable relation's objects, `{ alias: {
   * relation: [ … ] } }` to select one relation twice; the items are typed by the selection.
   *
   * @example books.fields('title', { author: ['name'] }, { best: { reviews: ['stars'] } })
   */
  fields<const X extends SelectionOf<P>>(...selection: X): ListRequest<P, X> {
    return this.with('fields', fieldsText(selection)) as unknown as ListRequest<P, X>;
  }

  /** Ask for the total (`true`), the planner's estimate (`'estimated'`), or nothing (`false`, which removes it). */
  count(count: boolean | 'estimated' = true): this {
    return this.with('count', count === false ? undefined : String(count));
  }

  /**
   * Ask for facets beside the page (docs/facets.md): names, each optionally with its number of values (`'year:5'`);
   * no names removes them.
   *
   * @example books.facets('author', 'year:5').limit(0)
   */
  facets(...names: readonly FacetName<P>[]): this {
    for (const name of names as readonly string[])
      if (typeof name !== 'string' || !FACET.test(name)) throw new TypeError(`${JSON.stringify(name)} is not a facet`);
    return this.with('facets', names.length === 0 ? undefined : names.join(','));
  }

  /** Free text for the endpoint's search; an empty text removes it. */
  search(text: string | undefined): this {
    return this.with('search', text === '' || text === undefined ? undefined : sendable(text, 'search', false));
  }

  /**
   * Set the parameters of the nested list at `path` (an output key of `fields`, dotted below the top: `reviews`,
   * `best`, `author.books`): `build` receives the list's parameters so far and returns the new ones.
   *
   * @example request.nested('reviews', (r) => r.filter((x) => x('stars', 'gte', 4)).sort('-stars').limit(3))
   */
  nested<const K extends NestedPath<P, S>>(
    path: K,
    build: (list: NestedList<PolicyAt<P, S, K>>) => NestedList<PolicyAt<P, S, K>>,
  ): this {
    if (typeof path !== 'string' || !path.split('.').every(isIdentifier))
      throw new TypeError(`${JSON.stringify(path)} is not the path of a nested list`);
    const prefix = `${path}.`;
    const own = new Map<string, string>();
    for (const [name, value] of this.values)
      if (name.startsWith(prefix) && !name.includes('.', prefix.length)) own.set(name.slice(prefix.length), value);
    const built = build(new NestedList(own));
    if (!(built instanceof NestedList)) throw new TypeError('nested(): return the list the callback received, changed');
    const next = new Map(
      [...this.values].filter(([name]) => !own.has(name.slice(prefix.length)) || !name.startsWith(prefix)),
    );
    for (const [name, value] of built.entries()) next.set(prefix + name, value);
    return new (this.constructor as new (values: ReadonlyMap<string, string>) => this)(next);
  }

  /** The parameters as a plain object (`{ fields: 'title', limit: '20' }`), for `engine.list()` or a router. */
  toParams(): Record<string, string> {
    return Object.fromEntries(this.values);
  }

  /** The parameters as URLSearchParams, ready for a URL's `search` or a `fetch`. */
  toSearchParams(): URLSearchParams {
    return new URLSearchParams([...this.values]);
  }

  /** The encoded query string, without `?` (`fields=title&filter=year+gte+1970`). */
  override toString(): string {
    return this.toSearchParams().toString();
  }
}

/**
 * Start a request for an endpoint of the policy whose type is P, imported type-only from the server code so that
 * nothing of the server reaches the bundle: `import type { bookPolicy } from '../server/policies'`.
 *
 * @example const books = client<typeof bookPolicy>(); const request = books.fields('title').sort('-year').limit(20);
 */
export function client<P = Policy>(): ListRequest<P> {
  return new ListRequest<P>();
}

const MODIFIER = /^(ci|nullsfirst|nullslast)$/;
const FACET = /^[A-Za-z_][A-Za-z0-9_]*(:[1-9][0-9]*)?$/;

/** Check one sort key as written (`-path:modifier…`); the server checks the rest (repeats, what the policy allows). */
function sortKeyText(key: string): string {
  // An aggregate key (`-reviews/count(r: r/stars gte 4):nullsfirst`): its call is the server's to check.
  const close = key.lastIndexOf(')');
  if (close >= 0) {
    const modifiers = key
      .slice(close + 1)
      .split(':')
      .slice(1);
    for (const m of modifiers)
      if (!MODIFIER.test(m)) throw new TypeError(`${JSON.stringify(key)}: unknown sort modifier ':${m}'`);
    return key;
  }
  const [body = '', ...modifiers] = key.split(':');
  for (const m of modifiers)
    if (!MODIFIER.test(m)) throw new TypeError(`${JSON.stringify(key)}: unknown sort modifier ':${m}'`);
  const path = body.startsWith('-') ? `-${pathText(body.slice(1))}` : pathText(body);
  return [path, ...modifiers].join(':');
}
