/**
 * Type fixture of `fields` selections written in code (`npm run typecheck`; never run): a policy's type records what
 * it exposes, a selection given to select() is checked against it at every level, the selected scope's requests
 * against the lists it opens, and the items follow the selection; list() stays a plain method. Each
 * `@ts-expect-error` line must fail to compile.
 */
import type { Collection, MikroORM, Ref } from '@mikro-orm/core';
import {
  createEngine,
  type Engine,
  type ExposedFields,
  type ExposedRelations,
  filterable,
  type ListContext,
  type ListItem,
  type NestedItems,
  type Policy,
  PublicNames,
  type ScopedEngine,
  type SelectedItem,
  type SelectedScope,
  type Selection,
  schema,
  selectable,
  sortable,
} from '../../src/index.ts';
import type { AnyQueryBuilder } from '../../src/plan/plan-query.ts';

/** Exact type equality, so a fixture fails when an item type grows or shrinks. */
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
function expectType<A, B>(_proof: Equal<A, B>): void {}

class Publisher {
  id!: number;
  name!: string;
}

class Author {
  id!: number;
  name!: string;
  born?: Date | null;
  secret?: string;
  publisher?: Ref<Publisher> | null;
  books!: Collection<Book>;
}

class Review {
  id!: number;
  stars!: number;
  body!: string;
  book!: Ref<Book>;
  reviewer!: Author;
}

class Book {
  declare [PublicNames]?: { isbn: 'code' };
  id!: number;
  title!: string;
  isbn!: string;
  price!: number;
  author!: Author;
  coAuthor?: Author | null;
  reviews!: Collection<Review>;
}

declare const orm: MikroORM;
declare const qb: AnyQueryBuilder;

const publisherPolicy = schema(Publisher).expose('name');
const authorPolicy = schema(Author)
  .expose('name', filterable())
  .expose('born')
  .relation('publisher', publisherPolicy, selectable());
const reviewPolicy = schema(Review)
  .expose('stars', sortable())
  .expose('body')
  .relation('reviewer', schema(Author).expose('name'), { select: true });
const bookPolicy = schema(Book)
  .expose('title', filterable(), sortable())
  .expose('code')
  .relation('author', authorPolicy, selectable())
  .relation('reviews', reviewPolicy, selectable({ maxLimit: 20, defaultSort: '-stars' }))
  .relation('writer', authorPolicy, { property: 'coAuthor' });

// What the policy's type records.
expectType<ExposedFields<typeof bookPolicy>, 'title' | 'code'>(true);
expectType<keyof ExposedRelations<typeof bookPolicy>, 'author' | 'reviews' | 'writer'>(true);
expectType<ExposedRelations<typeof bookPolicy>['writer']['property'], 'coAuthor'>(true);
expectType<ExposedRelations<typeof bookPolicy>['reviews']['many'], true>(true);
expectType<ExposedRelations<typeof bookPolicy>['writer']['selectable'], false>(true);
// @ts-expect-error a misspelt relation option is not taken for a selection flag
schema(Book).relation('author', authorPolicy, { select: true, nulCheck: true });
// @ts-expect-error a misspelt option beside property
schema(Book).relation('writer', authorPolicy, { property: 'coAuthor', selct: true });

type Reviewer = { id: number; name: string };
type FullItem = {
  id: number;
  title: string;
  coAuthor?: number | null;
  author: { id: number; name: string; publisher: { id: number; name: string } | null } | null;
  reviews: NestedItems<{ id: number; stars: number; reviewer: Reviewer | null }>;
  best: NestedItems<{ id: number; body: string }>;
};

async function selections(): Promise<void> {
  const books = createEngine(orm, { policy: bookPolicy }).from(qb);

  // Picked scalars, the key always, a bare to-one as its key (under its property's name), nested to-one and to-many.
  const full = books.select([
    'title',
    'writer',
    { author: ['name', { publisher: ['name'] }] },
    { reviews: ['stars', { reviewer: ['name'] }] },
    { best: { reviews: ['body'] } },
  ]);
  const page = await full.list({ 'reviews.limit': '3', 'reviews.sort': '-stars', 'best.count': 'true', limit: '20' });
  expectType<(typeof page.items)[number], FullItem>(true);
  // Public names ([PublicNames]): `code`, never `isbn`.
  const coded = await books.select(['code', { author: ['name'], reviews: ['stars'] }]).list();
  expectType<
    (typeof coded.items)[number],
    {
      id: number;
      code: string;
      author: { id: number; name: string } | null;
      reviews: NestedItems<{ id: number; stars: number }>;
    }
  >(true);
  // Nested list parameters deeper down, by output key.
  await books
    .select([{ author: [{ publisher: ['name'] }] }, { top: { reviews: ['stars'] } }])
    .list({ 'top.limit': '1' });
  // pages(), items() and explain() take and type the same.
  for await (const p of books.select(['title']).pages())
    expectType<(typeof p.items)[number], { id: number; title: string }>(true);
  for await (const item of books.select([{ author: ['born'] }]).items({ sort: 'title' }, undefined, { pageSize: 50 }))
    expectType<typeof item, { id: number; author: { id: number; born?: Date | null } | null }>(true);
  await books.select(['title']).explain({ sort: 'title' });

  // A selection kept in a constant, and the item type named.
  const fields = ['title', { author: ['name'] }] as const satisfies Selection<typeof bookPolicy>;
  const kept = await books.select(fields).list();
  expectType<(typeof kept.items)[number], SelectedItem<typeof bookPolicy, typeof fields>>(true);
  const named: SelectedScope<ListContext, SelectedItem<typeof bookPolicy, typeof fields>, never> = books.select(fields);
  void named;

  // list() itself still takes `fields` in any form, the object form included, and answers with the entity's items.
  const objects = await books.list({ fields: ['title', { reviews: ['stars'] }], 'reviews.limit': '3' });
  expectType<(typeof objects.items)[number], ListItem<Book>>(true);
  const text = await books.list({ fields: 'title,author(name)', 'author.limit': '1' });
  expectType<(typeof text.items)[number], ListItem<Book>>(true);
  const names: string[] = ['title'];
  const built = await books.list({ fields: names });
  expectType<(typeof built.items)[number], ListItem<Book>>(true);
  const own = await books.list(new URLSearchParams('fields=title'));
  expectType<(typeof own.items)[number], ListItem<Book>>(true);
}

/**
 * The pagination loop whose request takes the previous page's cursor, with `prev` declared bare (its type evolves,
 * under noImplicitAny as everywhere here): list() and a selected scope's list() are plain methods, so the page's type
 * does not wait on the request's.
 */
async function loops(): Promise<void> {
  const scoped = createEngine(orm, { policy: bookPolicy }).from(qb);
  // biome-ignore lint/suspicious/noImplicitAnyLet: the loop as users write it; its type evolves from its assignments.
  let prev;
  for (;;) {
    const page = await scoped.list({ cursor: prev });
    prev = page.page.nextCursor;
    expectType<(typeof page.items)[number], ListItem<Book>>(true);
    if (prev === undefined) break;
  }
  // biome-ignore lint/suspicious/noImplicitAnyLet: as above, with a selected scope.
  let after;
  for (;;) {
    const page = await scoped.select(['title', { reviews: ['stars'] }]).list({ cursor: after, 'reviews.limit': '3' });
    after = page.page.nextCursor;
    expectType<
      (typeof page.items)[number],
      { id: number; title: string; reviews: NestedItems<{ id: number; stars: number }> }
    >(true);
    if (after === undefined) break;
  }
  const titles = scoped.select(['title']);
  // biome-ignore lint/suspicious/noImplicitAnyLet: as above, the scope selected once.
  let next;
  do {
    const page = await titles.list({ cursor: next, limit: '100' });
    next = page.page.nextCursor;
    for (const book of page.items) expectType<typeof book, { id: number; title: string }>(true);
  } while (next !== undefined);
}

async function refusals(): Promise<void> {
  const books = createEngine(orm, { policy: bookPolicy }).from(qb);
  // @ts-expect-error a misspelt field
  books.select(['titel']);
  // @ts-expect-error a field the policy does not expose
  books.select(['price']);
  // @ts-expect-error the property behind a public name
  books.select(['isbn']);
  // @ts-expect-error a relation not opted in to selection
  books.select([{ writer: ['name'] }]);
  // @ts-expect-error a to-many relation named bare (its items carry no key for it)
  books.select(['reviews']);
  // @ts-expect-error a misspelt nested field
  books.select([{ author: ['nam'] }]);
  // @ts-expect-error a field the nested policy does not expose (authorPolicy exposes name, born)
  books.select([{ author: ['secret'] }]);
  // @ts-expect-error two levels down: the reviewer policy exposes only name
  books.select([{ reviews: [{ reviewer: ['born'] }] }]);
  // @ts-expect-error a misspelt relation beside a good one
  books.select([{ author: ['name'], autor: ['name'] }]);
  // @ts-expect-error an alias of a misspelt relation
  books.select([{ best: { revews: ['stars'] } }]);
  // @ts-expect-error an empty selection
  books.select([]);
  // @ts-expect-error an empty nested selection
  books.select([{ author: [] }]);
  // @ts-expect-error text is for list(): select() takes the object form
  books.select('title');
  // @ts-expect-error a misspelt list parameter
  await books.select(['title']).list({ sort: 'title', page: '2' });
  // @ts-expect-error a nested list parameter of a path the selection does not open
  await books.select(['title']).list({ 'reviews.limit': '3' });
  // @ts-expect-error a to-one takes no list parameters
  await books.select([{ author: ['name'] }]).list({ 'author.limit': '3' });
  // @ts-expect-error a nested parameter that is not a list parameter of nested lists
  await books.select([{ reviews: ['stars'] }]).list({ 'reviews.fields': 'stars' });
  const titles = books.select(['title']);
  // @ts-expect-error the selection is the request's fields
  await titles.list({ fields: 'title,code' });
  // @ts-expect-error the selection is the request's fields, in the object form too
  await titles.explain({ fields: ['code'] });
  // @ts-expect-error pages() checks the same
  titles.pages({ fields: 'code' });
  // @ts-expect-error items() checks the same
  titles.items({ limt: '5' });
  // @ts-expect-error a request of a selected scope is the object form
  await titles.list('limit=5');
  // @ts-expect-error the items are the selection's: no field it leaves out
  (await titles.list()).items[0]?.code;
}

async function wider(): Promise<void> {
  // A policy typed `Policy<Book>` records nothing: the entity's fields and relations are allowed, typed by entity.
  const loose: Policy<Book> = bookPolicy;
  const books = createEngine(orm, { policy: loose }).from(qb);
  const page = await books
    .select(['price', { coAuthor: ['born'] }, { reviews: ['body'] }])
    .list({ 'reviews.limit': '1' });
  expectType<
    (typeof page.items)[number],
    {
      id: number;
      price: number;
      coAuthor: { id: number; born?: Date | null } | null;
      reviews: NestedItems<{ id: number; body: string }>;
    }
  >(true);
  // @ts-expect-error still not a property of Book
  books.select(['pages']);

  // An untyped policy gives plain records, and takes any names and any nested paths below them.
  const untyped: Policy = bookPolicy;
  const any = await createEngine(orm, { policy: untyped })
    .from(qb)
    .select(['whatever', { any: ['thing'] }])
    .list({ 'any.limit': '2', 'any.deeper.sort': 'x' });
  expectType<(typeof any.items)[number], Record<string, unknown>>(true);

  // Engines, scopes and policies stay assignable as before: to `Engine` and `ScopedEngine`, and policies of one
  // entity to each other.
  const typed: Engine = createEngine(orm, { policy: bookPolicy });
  const scope: ScopedEngine = createEngine(orm, { policy: bookPolicy }).from(qb);
  const looseScope: ScopedEngine = books;
  const lines = (policy = bookPolicy) => createEngine(orm, { policy });
  lines(schema(Book).expose('price'));
  const folded = (['title', 'price'] as const).reduce((p, name) => p.expose(name), schema(Book));
  void [typed, scope, looseScope, folded];
}

void [selections, loops, refusals, wider];
