/**
 * The bookstore model. Every table but `tag` carries a `tenant` column, hidden from serialization (so clients
 * can neither see nor filter it); books, authors and reviews are soft-deleted through `deletedAt` and the
 * `softDelete` filter, which MikroORM turns on by default.
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

export class Review {
  id!: number;
  tenant!: number;
  book!: Book;
  reviewer!: string;
  stars!: number;
  deletedAt?: Date | null;
}

const id = { type: 'integer', primary: true, autoincrement: false } as const;
const tenant = { type: 'integer', hidden: true, index: true } as const;
const deletedAt = { type: 'datetime', nullable: true, hidden: true } as const;

export const PublisherSchema = new EntitySchema<Publisher>({
  class: Publisher,
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
  properties: {
    id,
    tenant,
    title: { type: 'string' },
    year: { type: 'integer' },
    price: { type: 'decimal', precision: 8, scale: 2, runtimeType: 'number' },
    author: { kind: 'm:1', entity: () => Author },
    publisher: { kind: 'm:1', entity: () => Publisher, nullable: true },
    reviews: { kind: '1:m', entity: () => Review, mappedBy: 'book' },
    tags: { kind: 'm:n', entity: () => Tag, owner: true, inversedBy: 'books' },
    deletedAt,
  },
});

export const ReviewSchema = new EntitySchema<Review>({
  class: Review,
  filters: softDelete,
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
export const ENTITIES = [PublisherSchema, AuthorSchema, TagSchema, BookSchema, ReviewSchema];
