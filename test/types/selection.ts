/**
 * Type fixture of `fields` selections written in code (`npm run typecheck`; never run): a policy's type records what
 * it exposes, a `fields` array is checked against it at every level, and the items follow the selection. Each
 * `@ts-expect-error` line must fail to compile.
 */
import type { Collection, MikroORM, Ref } from '@mikro-orm/core';
import {
  createEngine,
  type Engine,
  type ExposedFields,
  type ExposedRelations,
  filterable,
  type ListItem,
  type NestedItems,
  type Policy,
  PublicNames,
  type SelectedItem,
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
  const page = await books.list({
    fields: [
      'title',
      'writer',
      { author: ['name', { publisher: ['name'] }] },
      { reviews: ['stars', { reviewer: ['name'] }] },
      { best: { reviews: ['body'] } },
    ],
    'reviews.limit': '3',
    'reviews.sort': '-stars',
    'best.count': 'true',
    limit: '20',
  });
  expectType<(typeof page.items)[number], FullItem>(true);
  // Public names ([PublicNames]): `code`, never `isbn`.
  const coded = await books.list({ fields: ['code', { author: ['name'], reviews: ['stars'] }] });
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
  await books.list({
    fields: [{ author: [{ publisher: ['name'] }] }, { top: { reviews: ['stars'] } }],
    'top.limit': '1',
  });
  // pages(), items() and explain() take and type the same.
  for await (const p of books.pages({ fields: ['title'] }))
    expectType<(typeof p.items)[number], { id: number; title: string }>(true);
  for await (const item of books.items({ fields: [{ author: ['born'] }] }))
    expectType<typeof item, { id: number; author: { id: number; born?: Date | null } | null }>(true);
  await books.explain({ fields: ['title'], sort: 'title' });

  // A selection kept in a constant, and the item type named.
  const fields = ['title', { author: ['name'] }] as const satisfies Selection<typeof bookPolicy>;
  const kept = await books.list({ fields });
  expectType<(typeof kept.items)[number], SelectedItem<typeof bookPolicy, typeof fields>>(true);

  // Strings, string arrays built at run time and a request's own values keep the item type of the entity.
  const text = await books.list({ fields: 'title,author(name)', 'author.limit': '1' });
  expectType<(typeof text.items)[number], ListItem<Book>>(true);
  const names: string[] = ['title'];
  const built = await books.list({ fields: names });
  expectType<(typeof built.items)[number], ListItem<Book>>(true);
  const own = await books.list(new URLSearchParams('fields=title'));
  expectType<(typeof own.items)[number], ListItem<Book>>(true);
}

async function refusals(): Promise<void> {
  const books = createEngine(orm, { policy: bookPolicy }).from(qb);
  // @ts-expect-error a misspelt field
  await books.list({ fields: ['titel'] });
  // @ts-expect-error a field the policy does not expose
  await books.list({ fields: ['price'] });
  // @ts-expect-error the property behind a public name
  await books.list({ fields: ['isbn'] });
  // @ts-expect-error a relation not opted in to selection
  await books.list({ fields: [{ writer: ['name'] }] });
  // @ts-expect-error a to-many relation named bare (its items carry no key for it)
  await books.list({ fields: ['reviews'] });
  // @ts-expect-error a misspelt nested field
  await books.list({ fields: [{ author: ['nam'] }] });
  // @ts-expect-error a field the nested policy does not expose (authorPolicy exposes name, born)
  await books.list({ fields: [{ author: ['secret'] }] });
  // @ts-expect-error two levels down: the reviewer policy exposes only name
  await books.list({ fields: [{ reviews: [{ reviewer: ['born'] }] }] });
  // @ts-expect-error a misspelt relation beside a good one
  await books.list({ fields: [{ author: ['name'], autor: ['name'] }] });
  // @ts-expect-error an alias of a misspelt relation
  await books.list({ fields: [{ best: { revews: ['stars'] } }] });
  // @ts-expect-error an empty selection
  await books.list({ fields: [] });
  // @ts-expect-error an empty nested selection
  await books.list({ fields: [{ author: [] }] });
  // @ts-expect-error a misspelt list parameter beside fields
  await books.list({ fields: ['title'], sort: 'title', page: '2' });
  // @ts-expect-error a nested list parameter of a path the selection does not open
  await books.list({ fields: ['title'], 'reviews.limit': '3' });
  // @ts-expect-error a to-one takes no list parameters
  await books.list({ fields: [{ author: ['name'] }], 'author.limit': '3' });
  // @ts-expect-error a nested parameter that is not a list parameter of nested lists
  await books.list({ fields: [{ reviews: ['stars'] }], 'reviews.fields': 'stars' });
  // @ts-expect-error pages() checks the same
  books.pages({ fields: ['titel'] });
}

async function wider(): Promise<void> {
  // A policy typed `Policy<Book>` records nothing: the entity's fields and relations are allowed, typed by entity.
  const loose: Policy<Book> = bookPolicy;
  const books = createEngine(orm, { policy: loose }).from(qb);
  const page = await books.list({ fields: ['price', { coAuthor: ['born'] }, { reviews: ['body'] }] });
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
  await books.list({ fields: ['pages'] });

  // An untyped policy gives plain records, and takes any names.
  const untyped: Policy = bookPolicy;
  const any = await createEngine(orm, { policy: untyped })
    .from(qb)
    .list({ fields: ['whatever', { any: ['thing'] }], 'any.limit': '2' });
  expectType<(typeof any.items)[number], Record<string, unknown>>(true);

  // Engines and policies stay assignable as before: to `Engine`, and policies of one entity to each other.
  const typed: Engine = createEngine(orm, { policy: bookPolicy });
  const lines = (policy = bookPolicy) => createEngine(orm, { policy });
  lines(schema(Book).expose('price'));
  const folded = (['title', 'price'] as const).reduce((p, name) => p.expose(name), schema(Book));
  void [typed, folded];
}

void [selections, refusals, wider];
