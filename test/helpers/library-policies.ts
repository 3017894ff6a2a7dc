/**
 * Policies over the library fixture. A policy cannot contain itself, so each nesting level of the category tree
 * and each way back to an entity already on the path gets its own policy object.
 */
import { filterable, type Policy, schema, sortable } from '../../src/policy/index.ts';
import { Author, Book, Category, Country, Profile, Publisher, Review, Tag } from '../fixtures/library.ts';

const f = filterable();
const s = sortable();

const country = schema(Country).expose('code', f, s).expose('name', f, s);
const publisher = schema(Publisher)
  .expose('tenant', f, s)
  .expose('id', f, s)
  .expose('name', f, s)
  .relation('country', country);
const profile = schema(Profile).expose('id', f, s).expose('bio', f, s);
const review = schema(Review).expose('id', f, s).expose('stars', f, s).expose('tenant', f, s);
const tag = schema(Tag).expose('id', f, s).expose('label', f, s);
const categoryLeaf = schema(Category).expose('id', f, s).expose('name', f, s);
const categoryMid = schema(Category)
  .expose('id', f, s)
  .expose('name', f, s)
  .relation('parent', categoryLeaf)
  .relation('children', categoryLeaf);
const authorLeaf = schema(Author).expose('id', f, s).expose('name', f, s).relation('profile', profile);
const bookLeaf = schema(Book).expose('id', f, s).expose('title', f, s).expose('price', f, s);
const bookOfAuthor = bookLeaf
  .relation('reviews', review)
  .relation('publisher', publisher)
  .relation('author', authorLeaf);
const authorOfBook = schema(Author).expose('id', f, s).expose('name', f, s).relation('books', bookLeaf);

/** Books: every kind from the m:1/m:n owner side, with to-one paths and to-many quantifiers. */
export const bookPolicy: Policy = schema(Book)
  .expose('id', f, s)
  .expose('title', f, s)
  .expose('price', f, s)
  .relation('author', authorOfBook)
  .relation('publisher', publisher)
  .relation('category', categoryMid)
  .relation('reviews', review)
  .relation('tags', tag);

/** Authors: 1:1 owner (profile) and 1:m (books), with nested quantifiers. */
export const authorPolicy: Policy = schema(Author)
  .expose('id', f, s)
  .expose('name', f, s)
  .relation('profile', profile)
  .relation('books', bookOfAuthor);

/** Profiles: the 1:1 inverse side. */
export const profilePolicy: Policy = schema(Profile)
  .expose('id', f, s)
  .expose('bio', f, s)
  .relation('author', authorLeaf);

/** Tags: the m:n inverse side. */
export const tagPolicy: Policy = schema(Tag)
  .expose('id', f, s)
  .expose('label', f, s)
  .relation('books', bookLeaf.relation('author', authorLeaf));

/** Categories: the self-referential tree. */
export const categoryPolicy: Policy = schema(Category)
  .expose('id', f, s)
  .expose('name', f, s)
  .relation('parent', categoryMid)
  .relation('children', categoryMid);

/** Publishers: a composite, tenant-relative key referenced by Book's composite FK (1:m side). */
export const publisherPolicy: Policy = schema(Publisher)
  .expose('tenant', f, s)
  .expose('id', f, s)
  .expose('name', f, s)
  .relation('books', bookLeaf)
  .relation('country', country);
