/**
 * Policies over the relations fixture with selectable relations of every kind: m:1 (author, writer through
 * `property`), 1:m (reviews, whose key includes its m:1 book), m:n (tags), owning 1:1 (profile), and one relation
 * exposed for filters only (mentor). Each level is its own policy object, as a policy cannot contain itself.
 */
import { filterable, type Policy, schema, selectable, sortable } from '../../src/policy/index.ts';
import { Author, Book, Profile, Publisher, Review, Tag } from '../fixtures/relations.ts';

const f = filterable();
const s = sortable();

const tagLeaf = schema(Tag).expose('id', f, s).expose('label', f, s);
const authorOfTag = schema(Author).expose('id', f, s).expose('name', f, s).relation('tags', tagLeaf);
/** Tags, with the authors back through m:n for nested quantifiers in `author.tags.filter`. */
export const tagP = schema(Tag).expose('id', f, s).expose('label', f, s).relation('authors', authorOfTag);
const profileP = schema(Profile).expose('id').expose('bio', f);
const publisherP = schema(Publisher).expose('id', f, s).expose('name', f, s);
const mentorP = schema(Author).expose('id').expose('name', f);
const bookOfReview = schema(Book).expose('id', f, s).expose('title', f, s);

/** Reviews: key (book, reviewer); book selectable. */
export const reviewP = schema(Review)
  .expose('reviewer', f, s)
  .expose('stars', f, s)
  .relation('book', bookOfReview, selectable());

/** Authors: a selectable m:1, owning 1:1 and m:n (list options), and a relation for filters only. */
export const authorP: Policy = schema(Author)
  .expose('id', f, s)
  .expose('name', f, s)
  .expose('emailAddress', f, selectable(false))
  .relation('publisher', publisherP, selectable())
  .relation('profile', profileP, { select: true })
  .relation('tags', tagP, selectable({ maxLimit: 5, defaultLimit: 2, defaultSort: '-label' }))
  .relation('mentor', mentorP);

/** Books: author and writer (coAuthor) to-one, reviews to-many with every list option. */
export const bookP: Policy = schema(Book)
  .expose('id', f, s)
  .expose('title', f, s)
  .expose('price', f, s)
  .relation('author', authorP, selectable())
  .relation('writer', authorP, { select: true })
  .relation('reviews', reviewP, selectable({ maxLimit: 20, defaultLimit: 5, defaultSort: '-stars', allowCount: true }));
