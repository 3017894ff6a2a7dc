/**
 * What clients of the bookstore may filter, sort and traverse. Policies cannot form cycles, so each endpoint's
 * root policy reaches related entities through small nested policies of their own.
 */
import { filterable, schema, sortable } from '../../src/index.ts';
import { Author, Book, Publisher, Review, Tag } from './entities.ts';

const authorFields = schema(Author)
  .expose('id')
  .expose('name', filterable('eq', 'contains', 'startswith'), sortable())
  .expose('born', filterable(), sortable());

const publisherFields = schema(Publisher).expose('name', filterable('eq', 'in'), sortable());
const reviewFields = schema(Review).expose('reviewer', filterable('eq')).expose('stars', filterable());
const tagFields = schema(Tag).expose('name', filterable('eq', 'ne', 'in'));
const bookFields = schema(Book)
  .expose('title', filterable('eq', 'contains', 'startswith'))
  .expose('year', filterable());

/** `/books`: every field a client sees, and the relations to its author, publisher, reviews and tags. */
export const bookPolicy = schema(Book)
  .expose('id', filterable('eq', 'in'), sortable())
  .expose('title', filterable('eq', 'ne', 'contains', 'startswith', 'in'), sortable())
  .expose('year', filterable(), sortable())
  .expose('price', filterable('eq', 'gt', 'gte', 'lt', 'lte'), sortable())
  .relation('author', authorFields) // to-one: author/name eq '…', sort=author/name
  .relation('publisher', publisherFields) // nullable to-one: publisher/name in ('Faber')
  .relation('reviews', reviewFields) // to-many: reviews/any(r: r/stars gte 4)
  .relation('tags', tagFields); // many-to-many: tags/all(t: t/name ne 'classic')

/** `/authors`: authors, and their books as a to-many relation. */
export const authorPolicy = schema(Author)
  .expose('id', sortable())
  .expose('name', filterable('eq', 'contains', 'startswith'), sortable())
  .expose('born', filterable(), sortable())
  .relation('books', bookFields); // books/any(b: b/year lt 1970)
