/**
 * Selectable policies over the library fixture (test/fixtures/library.ts) for the nested-selection tests, the engine
 * they run on, and small helpers to write expected nested pages by hand.
 */
import type { EntityManager, FilterOptions } from '@mikro-orm/core';
import { createEngine, type ListContext, type ScopedEngine } from '../../../src/engine/index.ts';
import { filterable, type Policy, schema, selectable, sortable } from '../../../src/policy/index.ts';
import { Author, Book, Profile, Publisher, Review, Tag } from '../../fixtures/library.ts';

const f = filterable();
const s = sortable();

const profile = schema(Profile).expose('id', f, s).expose('bio', f, s);
const author = schema(Author).expose('id', f, s).expose('name', f, s).relation('profile', profile, selectable());
const publisher = schema(Publisher).expose('tenant', f, s).expose('id', f, s).expose('name', f, s);
const tag = schema(Tag).expose('id', f, s).expose('label', f, s);
const review = schema(Review).expose('id', f, s).expose('stars', f, s);
const reviews = selectable({ maxLimit: 10, defaultLimit: 2, defaultSort: '-stars', allowCount: true });
const book = schema(Book).expose('id', f, s).expose('title', f, s).expose('price', f, s);

/** Books: to-one held by the book (author, composite-keyed publisher), 1:m reviews, m:n tags (owner side). */
export const bookPolicy: Policy = book
  .relation('author', author, selectable())
  .relation('publisher', publisher, selectable())
  .relation('reviews', review, reviews)
  .relation('tags', tag, selectable({ allowCount: true }));

/** Authors: 1:1 owner (profile) and 1:m books, whose reviews and tags nest a level deeper. */
export const authorPolicy: Policy = schema(Author)
  .expose('id', f, s)
  .expose('name', f, s)
  .relation('profile', profile, selectable())
  .relation(
    'books',
    book.relation('publisher', publisher).relation('reviews', review, reviews).relation('tags', tag, selectable()),
    selectable({ defaultSort: 'id', allowCount: true }),
  );

/** Profiles: the 1:1 inverse side (the author row holds the key). */
export const profilePolicy: Policy = schema(Profile)
  .expose('id', f, s)
  .expose('bio', f, s)
  .relation('author', schema(Author).expose('id', f, s).expose('name', f, s), selectable());

/** Tags: m:n from the inverse side, then to-one twice: `books(author(profile(bio)))` is three levels. */
export const tagPolicy: Policy = schema(Tag)
  .expose('id', f, s)
  .expose('label', f, s)
  .relation('books', book.relation('author', author, selectable()), selectable({ defaultSort: 'id' }));

/** Reviews: to-one to their book (a tenant-2 review may point at a tenant-1 book). */
export const reviewPolicy: Policy = schema(Review)
  .expose('id', f, s)
  .expose('stars', f, s)
  .relation('book', schema(Book).expose('id', f, s).expose('title', f, s), selectable());

const ROOTS = {
  book: { entity: Book, alias: 'b', policy: bookPolicy },
  author: { entity: Author, alias: 'a', policy: authorPolicy },
  profile: { entity: Profile, alias: 'p', policy: profilePolicy },
  tag: { entity: Tag, alias: 't', policy: tagPolicy },
  review: { entity: Review, alias: 'r', policy: reviewPolicy },
} as const;

/** The root entity a test lists. */
export type Root = keyof typeof ROOTS;

/** A scoped engine over one root of the fixture, on `em`; `filters` as from(qb, { filters }) takes them. */
export function engineOf(
  em: EntityManager,
  root: Root,
  filters?: FilterOptions,
  config: Record<string, unknown> = {},
): ScopedEngine {
  const { entity, alias, policy } = ROOTS[root];
  const engine = createEngine(em, { policy, allowCount: true, maxLimit: 50, ...config });
  const qb = (em as any).createQueryBuilder(entity, alias);
  return engine.from(qb, filters === undefined ? {} : { filters });
}

/**
 * One engine over one root of the fixture, kept across calls (so its memos see a request sent again): each call is a
 * fresh scope of `em`, with `filters` as from(qb, { filters }) takes them.
 */
export function scopesOf(
  em: EntityManager,
  root: Root,
  config: Record<string, unknown> = {},
): (filters?: FilterOptions) => ScopedEngine<ListContext> {
  const { entity, alias, policy } = ROOTS[root];
  const engine = createEngine(em, { policy, allowCount: true, maxLimit: 50, ...config });
  return (filters) =>
    engine.from((em as any).createQueryBuilder(entity, alias), filters === undefined ? {} : { filters });
}

/** A nested page as written in expectations: cursors are compared as present or absent (`'…'`), not by value. */
export function page(
  items: readonly Record<string, unknown>[],
  limit: number,
  hasMore = false,
  extra: { offset?: number; next?: boolean; prev?: boolean; count?: number } = {},
): Record<string, unknown> {
  return {
    items,
    page: {
      limit,
      offset: extra.offset ?? 0,
      hasMore,
      ...(extra.next || hasMore ? { nextCursor: '…' } : {}),
      ...(extra.prev ? { prevCursor: '…' } : {}),
      ...(extra.count === undefined ? {} : { count: extra.count }),
    },
  };
}

/** A copy of an answer with every cursor string replaced by `'…'`, to compare with expectations written by hand. */
export function withoutCursors(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCursors);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      (k === 'nextCursor' || k === 'prevCursor') && typeof v === 'string' ? '…' : withoutCursors(v),
    ]),
  );
}
