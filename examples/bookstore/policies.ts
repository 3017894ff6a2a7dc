/**
 * What clients of the bookstore may filter, sort, traverse and select. Policies cannot form cycles, so each
 * endpoint's root policy reaches related entities through small nested policies of their own.
 *
 * Relations opted in with `select` can also be selected as nested objects (docs/selection.md):
 * `/books?fields=title,author(name),reviews(reviewer,stars)&reviews.limit=2`. A nested level picks, filters and
 * sorts exactly what its own policy exposes; a relation without `select` is still filtered through
 * (`reviews/any(…)`), never selected.
 *
 * Aggregates over a to-many relation (docs/policy.md): `/books?filter=reviews/count() gt 1&sort=-reviews/avg(stars)`
 * keeps the books with more than one review, best rated first; `/authors?filter=books/count() gt 1` the authors of
 * more than one book.
 *
 * A search page's facets (docs/facets.md): `/books?facets=author,year:5,tags` answers, beside the page, the most
 * frequent years, authors and tags with how many books each would give under the rest of the filter. Authors,
 * publishers and tags come back as keys with their names as labels.
 */
import { facetable, filterable, schema, sortable } from '../../src/index.ts';
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
  // facets=year:5: the five most frequent years under the rest of the filter
  .expose('year', filterable(), sortable(), facetable())
  .expose('price', filterable('eq', 'gt', 'gte', 'lt', 'lte'), sortable())
  // to-one: author/name eq '…', sort=author/name, fields=author(name); facets=author: author ids labelled by name
  .relation('author', authorFields, { select: true, facet: { label: 'name' } })
  // nullable to-one: publisher/name in ('Faber'), fields=publisher(name) (null for a book without one); its facet
  // has a NULL bucket for the books without a publisher
  .relation('publisher', publisherFields, { select: true, facet: { label: 'name' } })
  // to-many: reviews/any(r: r/stars gte 4), fields=reviews(reviewer,stars): the best three of each book by default;
  // aggregates: reviews/count() gt 1, sort=-reviews/avg(stars), reviews/max(stars) eq 5
  .relation('reviews', reviewFields, {
    select: { maxLimit: 20, defaultLimit: 3, defaultSort: '-stars', allowCount: true },
    aggregates: { count: true, avg: ['stars'], max: ['stars'] },
  })
  // many-to-many: tags/all(t: t/name ne 'classic'), fields=tags(name): every tag of a book, by name; facets=tags
  // counts a book once under each of its tags
  .relation('tags', tagFields, {
    select: { maxLimit: 10, defaultLimit: 10, defaultSort: 'name' },
    facet: { label: 'name' },
  });

/** `/authors`: authors, and their books as a to-many relation (fields=name,books(title,year)). */
export const authorPolicy = schema(Author)
  .expose('id', sortable())
  .expose('name', filterable('eq', 'contains', 'startswith'), sortable())
  .expose('born', filterable(), sortable())
  // books/any(b: b/year lt 1970); fields=books(title): the first five of each author by year; books/count() gt 1,
  // sort=-books/count()
  .relation('books', bookFields, {
    select: { maxLimit: 20, defaultLimit: 5, defaultSort: 'year', allowCount: true },
    aggregates: { count: true },
  });
