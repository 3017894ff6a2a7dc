/**
 * Type fixture of `listql/client` (`npm run typecheck`; never run): requests built from a policy's type, imported
 * type-only as a front end does. Paths, operators, values, sort keys, selections and nested lists are checked against
 * what the policy type records, and the items follow the selection as JSON carries them. Each `@ts-expect-error`
 * line must fail to compile.
 */
import type { Collection, Ref } from '@mikro-orm/core';
import type { authorPolicy, bookPolicy } from '../../examples/bookstore/policies.ts';
import {
  client,
  decimal,
  type Filter,
  type FilterBuilder,
  type ItemsOf,
  type ListRequest,
  listClient,
  type SortKey,
} from '../../src/client/index.ts';
import { filterable, type Policy, schema, selectable, sortable } from '../../src/index.ts';

/** Exact type equality, so a fixture fails when a type grows or shrinks. */
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
function expectType<A, B>(_proof: Equal<A, B>): void {}

const books = client<typeof bookPolicy>();

// Comparisons: paths through to-one relations, operators by the field's type, values by the field's type.
books.filter((b) => b('title', 'eq', 'Dune'));
books.filter((b) => b('year', 'gte', 1970));
books.filter((b) => b('price', 'lt', decimal('19.99')));
books.filter((b) => b('author/name', 'startswith', 'Le'));
books.filter((b) => b('author/born', 'in', [1929, 1923n]));
books.filter((b) => b('publisher', 'is null'));
books.filter((b) => b('publisher/name', 'not in', ['Faber']));
books.filter((b) => b('title', 'is not null'));
books.filter((b) => b.and(b('year', 'gte', 1970), b.or(b('title', 'contains', 'a'), b.not(b('year', 'eq', 1984)))));
books.filter((b) => b.and(undefined, false, b('year', 'gte', 1970)));
// @ts-expect-error: 'titel' is not a field of bookPolicy
books.filter((b) => b('titel', 'eq', 'Dune'));
// @ts-expect-error: 'tenant' is a property of Book the policy does not expose
books.filter((b) => b('tenant', 'eq', 1));
// @ts-expect-error: 'contains' is a text operator, 'year' is a number
books.filter((b) => b('year', 'contains', '19'));
// @ts-expect-error: a number field is compared with numbers
books.filter((b) => b('year', 'eq', '1970'));
// @ts-expect-error: 'in' takes a list
books.filter((b) => b('year', 'in', 1970));
// @ts-expect-error: a null check takes no value
books.filter((b) => b('title', 'is null', 'x'));
// @ts-expect-error: the author's policy exposes id, name and born only
books.filter((b) => b('author/tenant', 'eq', 1));
// @ts-expect-error: 'reviews' is to-many: reached only through a quantifier
books.filter((b) => b('reviews/stars', 'gte', 4));
// @ts-expect-error: a relation takes null checks only
books.filter((b) => b('author', 'eq', 1));
// @ts-expect-error: 'nope' is not a relation of bookPolicy
books.filter((b) => b('nope/name', 'eq', 'x'));

// Quantifiers: typed variables over the nested policy, outer variables usable inside, the top level not.
books.filter((b) => b.any('reviews', 'r', (r) => r('stars', 'gte', 4)));
books.filter((b) => b.all('tags', 't', (t) => t('name', 'ne', 'classic')));
books.filter((b) => b.any('reviews', 'r', (r) => r.and(r('stars', 'gte', 4), r('reviewer', 'eq', 'ana'))));
const authors = client<typeof authorPolicy>();
authors.filter((a) => a.any('books', 'b', (b) => b.and(b('year', 'lt', 1970), b('title', 'startswith', 'The'))));
// @ts-expect-error: 'stars' is a field of reviews, not of the variable's policy (tags)
books.filter((b) => b.any('tags', 't', (t) => t('stars', 'gte', 4)));
// @ts-expect-error: inside a quantifier every path starts with a variable: b is the top level
books.filter((b) => b.any('reviews', 'r', () => b('year', 'gt', 1)));
// @ts-expect-error: the same, mixed with a variable's comparison
books.filter((b) => b.any('reviews', 'r', (r) => r.and(r('stars', 'gte', 4), b('year', 'gt', 1))));
// @ts-expect-error: the variable's comparison outside its quantifier
books.filter((b) => b.and(b('year', 'gt', 1), b.any('reviews', 'r', (r) => r('stars', 'gte', 1)) && savedOutside!));
// @ts-expect-error: 'author' is to-one: no quantifier
books.filter((b) => b.any('author', 'a', (a) => a('name', 'eq', 'x')));
// @ts-expect-error: a reserved word cannot name a variable
books.filter((b) => b.any('reviews', 'any', (r) => r('stars', 'gte', 4)));
declare const savedOutside: Filter<'r'>;

// Sort: fields and to-one paths, '-' for descending.
books.sort('-year', 'title', 'author/name');
// @ts-expect-error: 'yaer' is not a field
books.sort('-yaer');
// @ts-expect-error: a relation itself is not a sort key
books.sort('author');
// @ts-expect-error: to-many relations are not sort keys
books.sort('reviews/stars');
expectType<Equal<'-author/born' extends SortKey<typeof bookPolicy> ? true : false, true>, true>(true);
// Aggregates of to-many relations (which ones the policy allows, the server checks).
books.sort('-reviews/count()', 'reviews/avg(stars):nullsfirst', '-reviews/count(r: r/stars gte 4)');
// @ts-expect-error: a to-one relation has no aggregates
books.sort('author/count()');
// @ts-expect-error: :ci does not apply to an aggregate
books.sort('reviews/count():ci');

// Fields and items: typed by the selection, as JSON carries them.
const picked = books.fields('title', { author: ['name'] }, { best: { reviews: ['reviewer', 'stars'] } });
type Picked = ItemsOf<typeof picked>;
expectType<
  Picked,
  {
    id: number;
    title: string;
    author: { id: number; name: string } | null;
    best: {
      readonly items: { id: number; reviewer: string; stars: number }[];
      readonly page: {
        readonly limit: number;
        readonly offset: number;
        readonly hasMore: boolean;
        readonly nextCursor?: string;
        readonly prevCursor?: string;
        readonly count?: number;
      };
    };
  }
>(true);
// @ts-expect-error: 'titel' is not a field of bookPolicy
books.fields('titel');
// @ts-expect-error: the author's policy exposes id, name and born only
books.fields({ author: ['tenant'] });

// Nested lists: on the paths the selection opens as lists, over the nested policy.
picked.nested('best', (r) =>
  r
    .filter((x) => x('stars', 'gte', 4))
    .sort('-stars')
    .limit(3)
    .count(),
);
// @ts-expect-error: 'reviews' is not an output key of this selection (its alias is 'best')
picked.nested('reviews', (r) => r.limit(3));
// @ts-expect-error: 'author' is to-one: it takes no list parameters
picked.nested('author', (r) => r.limit(3));
// @ts-expect-error: 'year' is a field of books, not of reviews
picked.nested('best', (r) => r.filter((x) => x('year', 'gte', 4)));
// @ts-expect-error: without fields no list is open
books.nested('reviews', (r) => r.limit(3));
// @ts-expect-error: a nested count is true or false
picked.nested('best', (r) => r.count('estimated'));
books.count('estimated').limit(20).offset(40).cursor(undefined).search('dune');

// Without fields, items are the whole entity as JSON.
type Whole = ItemsOf<typeof books>;
expectType<Whole['price'], number>(true);
expectType<Whole['author'], number>(true);

// Helpers written over a builder type.
const recent = (b: FilterBuilder<typeof bookPolicy>) => b('year', 'gte', 2000);
books.filter((b) => b.or(recent(b), b('title', 'eq', 'Dune')));

// More field types: dates, booleans, string unions, bigints, decimals typed as strings, a scalar reference.
class Shelf {
  id!: number;
  label!: string;
  books!: Collection<Event>;
}
class Event {
  id!: number;
  at!: Date;
  day!: string;
  open!: boolean;
  status!: 'draft' | 'live';
  views!: bigint;
  amount!: string;
  note?: string | null;
  shelf!: Ref<Shelf>;
}
const eventPolicy = schema(Event)
  .expose('at', filterable(), sortable())
  .expose('day')
  .expose('open', filterable())
  .expose('status', filterable())
  .expose('views')
  .expose('amount')
  .expose('note')
  .relation('shelf', schema(Shelf).expose('label'), selectable());
const events = client<typeof eventPolicy>();
events.filter((e) =>
  e.and(e('at', 'gte', new Date()), e('at', 'lt', '2025-01-01T00:00:00Z'), e('day', 'eq', '2024-01-15')),
);
events.filter((e) => e.and(e('open', 'eq', true), e('status', 'in', ['draft', 'live']), e('views', 'gt', 10n)));
events.filter((e) => e.and(e('amount', 'gte', decimal('10.50')), e('note', 'is null'), e('shelf/label', 'ieq', 'a')));
// @ts-expect-error: booleans take no ordering operators
events.filter((e) => e('open', 'gt', false));
// @ts-expect-error: 'archived' is not a status
events.filter((e) => e('status', 'eq', 'archived'));
// @ts-expect-error: dates take no text operators
events.filter((e) => e('at', 'contains', '2024'));
type EventItem = ItemsOf<ReturnType<typeof events.fields<['at', 'views', { shelf: ['label'] }]>>>;
expectType<EventItem, { id: number; at: string; views: string; shelf: { id: number; label: string } | null }>(true);

// Nested quantifiers: the outer variable's builder stays usable inside, the names may not repeat.
class Item {
  id!: number;
  sku!: string;
}
class Order {
  id!: number;
  paid!: boolean;
  items!: Collection<Item>;
}
class Customer {
  id!: number;
  name!: string;
  orders!: Collection<Order>;
}
const customerPolicy = schema(Customer)
  .expose('name', filterable())
  .relation(
    'orders',
    schema(Order).expose('paid', filterable()).relation('items', schema(Item).expose('sku', filterable())),
  );
const customers = client<typeof customerPolicy>();
customers.filter((c) =>
  c.any('orders', 'o', (o) => o.any('items', 'i', (i) => i.and(i('sku', 'eq', 'X1'), o('paid', 'eq', true)))),
);
// @ts-expect-error: 'o' is active: a nested quantifier may not reuse it
customers.filter((c) => c.any('orders', 'o', (o) => o.any('items', 'o', (i) => i('sku', 'eq', 'X1'))));
// @ts-expect-error: 'paid' belongs to orders, not to items
customers.filter((c) => c.any('orders', 'o', (o) => o.any('items', 'i', (i) => i('paid', 'eq', true))));
// @ts-expect-error: the orders are not selectable (no selectable() in relation())
customers.fields({ orders: ['paid'] });

// A policy typed `Policy<Book>` records nothing: any property of the entity, still typed by it.
declare const loose: Policy<Event>;
client<typeof loose>().filter((e) => e('views', 'gte', 1));
// @ts-expect-error: still only the entity's properties
client<typeof loose>().filter((e) => e('nope', 'eq', 1));

// The fetch wrapper: pages typed by the request.
async function walk(): Promise<void> {
  const api = listClient('https://example.test/books', { headers: { 'x-tenant': '1' } });
  const page = await api.list(picked.limit(2));
  const first: string | undefined = page.items[0]?.best.items[0]?.reviewer;
  for await (const book of api.items(books.fields('title'))) {
    const title: string = book.title;
    // @ts-expect-error: 'year' was not selected
    void book.year;
    void title;
  }
  void first;
}
void walk;
void (null as unknown as ListRequest);
