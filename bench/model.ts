/** The benchmark model: authors, books (m:1 author) and reviews (1:m), plain enough to write the same query by hand. */
import { Collection, EntitySchema } from '@mikro-orm/core';

export class Author {
  id!: number;
  name!: string;
}

export class Book {
  id!: number;
  title!: string;
  price!: number;
  score?: number | null;
  createdAt!: Date;
  author!: Author;
  reviews = new Collection<Review>(this);
}

export class Review {
  id!: number;
  stars?: number | null;
  book!: Book;
}

export const AuthorSchema = new EntitySchema<Author>({
  class: Author,
  tableName: 'author',
  properties: {
    id: { type: 'integer', primary: true },
    name: { type: 'string' },
  },
});

export const BookSchema = new EntitySchema<Book>({
  class: Book,
  tableName: 'book',
  indexes: [{ properties: ['score', 'id'] }, { properties: ['createdAt', 'id'] }],
  properties: {
    id: { type: 'integer', primary: true },
    title: { type: 'string' },
    price: { type: 'integer' },
    score: { type: 'integer', nullable: true },
    createdAt: { type: 'datetime' },
    author: { kind: 'm:1', entity: () => Author },
    reviews: { kind: '1:m', entity: () => Review, mappedBy: 'book' },
  },
});

export const ReviewSchema = new EntitySchema<Review>({
  class: Review,
  tableName: 'review',
  properties: {
    id: { type: 'integer', primary: true },
    stars: { type: 'integer', nullable: true },
    book: { kind: 'm:1', entity: () => Book },
  },
});

export const benchEntities = [AuthorSchema, BookSchema, ReviewSchema];
