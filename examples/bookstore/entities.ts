/**
 * The bookstore model. Every table but `tag` carries a `tenant` column, hidden from serialization (so clients
 * can neither see nor filter it); books, authors and reviews are soft-deleted through `deletedAt` and the
 * `softDelete` filter, which MikroORM turns on by default.
 *
 * Indexes: every list is scoped to a tenant, so each tenant table leads an index with `tenant` (then the primary
 * key, the default order). Relation filters run correlated sub-queries that look rows up by foreign key once per
 * outer row (`reviews/any(…)` by `review.book_id`, `books/any(…)` by `book.author_id`, `tags/any(…)` through
 * `book_tags`), and PostgreSQL creates no index for a foreign key by itself: each such column gets one here.
 * `review(book_id, stars)` also covers the aggregates over a book's reviews (`reviews/avg(stars)`, `max(stars)`).
 * `engine.indexes()` lists the same advice for any policy.
 */
import { type Collection, EntitySchema } from '@mikro-orm/core';

const softDelete = { softDelete: { name: 'softDelete', cond: { deletedAt: null }, default: true } };

export class Publisher {
  id!: number;
  tenant!: number;
  name!: string;
  books?: Collection<Book>;
}

export class Author {
  id!: number;
  tenant!: number;
  name!: string;
  born!: number;
  books?: Collection<Book>;
  deletedAt?: Date | null;
}

export class Tag {
  id!: number;
  name!: string;
  books?: Collection<Book>;
}

export class Book {
  id!: number;
  tenant!: number;
  title!: string;
  year!: number;
  price!: number;
  author!: Author;
  publisher?: Publisher | null;
  reviews?: Collection<Review>;
  tags?: Collection<Tag>;
  deletedAt?: Date | null;
}

/** The pivot of Book.tags, declared to give its `tag_id` side an index (its primary key serves `book_id`). */
export class BookTag {
  book!: Book;
  tag!: Tag;
}

export class Review {
  id!: number;
  tenant!: number;
  book!: Book;
  reviewer!: string;
  stars!: number;
  deletedAt?: Date | null;
}

const id = { type: 'integer', primary: true, autoincrement: false } as const;
const tenant = { type: 'integer', hidden: true } as const;
const deletedAt = { type: 'datetime', nullable: true, hidden: true } as const;

export const PublisherSchema = new EntitySchema<Publisher>({
  class: Publisher,
  indexes: [{ properties: ['tenant', 'id'] }],
  properties: {
    id,
    tenant,
    name: { type: 'string' },
    books: { kind: '1:m', entity: () => Book, mappedBy: 'publisher' },
  },
});

export const AuthorSchema = new EntitySchema<Author>({
  class: Author,
  filters: softDelete,
  indexes: [{ properties: ['tenant', 'id'] }],
  properties: {
    id,
    tenant,
    name: { type: 'string' },
    born: { type: 'integer' },
    books: { kind: '1:m', entity: () => Book, mappedBy: 'author' },
    deletedAt,
  },
});

export const TagSchema = new EntitySchema<Tag>({
  class: Tag,
  properties: {
    id,
    name: { type: 'string' },
    books: { kind: 'm:n', entity: () => Book, mappedBy: 'tags' },
  },
});

export const BookSchema = new EntitySchema<Book>({
  class: Book,
  filters: softDelete,
  // author: authors' `books/any(…)`; publisher: a publisher's books. Book's own to-one paths use the target's key.
  indexes: [{ properties: ['tenant', 'id'] }, { properties: ['author'] }, { properties: ['publisher'] }],
  properties: {
    id,
    tenant,
    title: { type: 'string' },
    year: { type: 'integer' },
    price: { type: 'decimal', precision: 8, scale: 2, runtimeType: 'number' },
    author: { kind: 'm:1', entity: () => Author },
    publisher: { kind: 'm:1', entity: () => Publisher, nullable: true },
    reviews: { kind: '1:m', entity: () => Review, mappedBy: 'book' },
    tags: { kind: 'm:n', entity: () => Tag, owner: true, inversedBy: 'books', pivotEntity: () => BookTag },
    deletedAt,
  },
});

export const BookTagSchema = new EntitySchema<BookTag>({
  class: BookTag,
  tableName: 'book_tags',
  // The key (book_id, tag_id) serves `tags/any(…)` from a book; tags' `books/any(…)` looks rows up by tag_id.
  indexes: [{ properties: ['tag'] }],
  properties: {
    book: { kind: 'm:1', entity: () => Book, primary: true, deleteRule: 'cascade' },
    tag: { kind: 'm:1', entity: () => Tag, primary: true, deleteRule: 'cascade' },
  },
});

export const ReviewSchema = new EntitySchema<Review>({
  class: Review,
  filters: softDelete,
  indexes: [{ properties: ['tenant', 'id'] }, { properties: ['book', 'stars'] }],
  properties: {
    id,
    tenant,
    book: { kind: 'm:1', entity: () => Book },
    reviewer: { type: 'string' },
    stars: { type: 'integer' },
    deletedAt,
  },
});

/** Every entity of the bookstore, for `MikroORM.init({ entities })`. */
export const ENTITIES = [PublisherSchema, AuthorSchema, TagSchema, BookSchema, BookTagSchema, ReviewSchema];
