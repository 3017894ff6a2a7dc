/**
 * What clients of the bookstore may filter, sort, traverse and select. Policies cannot form cycles, so each
 * endpoint's root policy reaches related entities through small nested policies of their own.
 *
 * Relations opted in with `selectable(…)` can also be selected as nested objects (docs/selection.md):
 * `/books?fields=title,author(name),reviews(reviewer,stars)&reviews.limit=2`. A nested level picks, filters and
 * sorts exactly what its own policy exposes; a relation without `selectable(…)` is still filtered through
 * (`reviews/any(…)`), never selected.
 */
import { filterable, schema, selectable, sortable } from '../../src/index.ts';
import { Author, Book, Publisher, Review, Tag } from './entities.ts';

const authorFields = schema(Author)
  .expose('id')
  .expose('name', filterable('eq', 'contains', 'startswith'), sortable())
  .expose('born', filterable(), sortable());

const publisherFields = schema(Publisher).expose('name', filterable('eq', 'in'), sortable());
const reviewFields = schema(Review)
  .expose('reviewer', filterable('eq'), sortable())
  .expose('stars', filterable(), sortable());
const tagFields = schema(Tag).expose('name', filterable('eq', 'ne', 'in'), sortable());
const bookFields = schema(Book)
  .expose('title', filterable('eq', 'contains', 'startswith'), sortable())
  .expose('year', filterable(), sortable());

/** `/books`: every field a client sees, and the relations to its author, publisher, reviews and tags. */
export const bookPolicy = schema(Book)
  .expose('id', filterable('eq', 'in'), sortable())
  .expose('title', filterable('eq', 'ne', 'contains', 'startswith', 'in'), sortable())
  .expose('year', filterable(), sortable())
  .expose('price', filterable('eq', 'gt', 'gte', 'lt', 'lte'), sortable())
  // to-one: author/name eq '…', sort=author/name, fields=author(name)
  .relation('author', authorFields, selectable())
  // nullable to-one: publisher/name in ('Faber'), fields=publisher(name) (null for a book without one)
  .relation('publisher', publisherFields, selectable())
  // to-many: reviews/any(r: r/stars gte 4), fields=reviews(reviewer,stars): the best three of each book by default
  .relation(
    'reviews',
    reviewFields,
    selectable({ maxLimit: 20, defaultLimit: 3, defaultSort: '-stars', allowCount: true }),
  )
  // many-to-many: tags/all(t: t/name ne 'classic'), fields=tags(name): every tag of a book, by name
  .relation('tags', tagFields, selectable({ maxLimit: 10, defaultLimit: 10, defaultSort: 'name' }));

/** `/authors`: authors, and their books as a to-many relation (fields=name,books(title,year)). */
export const authorPolicy = schema(Author)
  .expose('id', sortable())
  .expose('name', filterable('eq', 'contains', 'startswith'), sortable())
  .expose('born', filterable(), sortable())
  // books/any(b: b/year lt 1970); fields=books(title): the first five of each author by year
  .relation('books', bookFields, selectable({ maxLimit: 20, defaultLimit: 5, defaultSort: 'year', allowCount: true }));
