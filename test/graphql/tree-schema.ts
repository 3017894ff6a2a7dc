/**
 * A GraphQL schema over the library fixture whose policies let clients select related objects: Book.author (to-one),
 * Book.reviews and Book.tags (to-many), Author.books with its reviews (three levels from a book). Run documents with
 * graphql-js directly, recording what reaches the drivers.
 */
import type { EntityManager } from '@mikro-orm/core';
import { type GraphQLSchema, graphql } from 'graphql';
import { createEngine } from '../../src/engine/index.ts';
import { type GraphQLLimits, graphqlSchema } from '../../src/graphql/index.ts';
import { filterable, schema, selectable, sortable } from '../../src/policy/index.ts';
import { Author, Book, Profile, Review, Tag } from '../fixtures/library.ts';
import { captureDriver, type DriverCall } from '../helpers/capture.ts';

const f = filterable();
const s = sortable();

const review = schema(Review).expose('id', f, s).expose('stars', f, s);
const tag = schema(Tag).expose('id', f, s).expose('label', f, s);
const bookOfAuthor = schema(Book)
  .expose('id', f, s)
  .expose('title', f, s)
  .relation('reviews', review, selectable({ maxLimit: 5, defaultLimit: 2, defaultSort: '-stars', allowCount: true }));
const author = schema(Author)
  .expose('id', f, s)
  .expose('name', f, s)
  .relation('profile', schema(Profile).expose('id', f))
  .relation('books', bookOfAuthor, selectable({ maxLimit: 10, allowCount: true }));

/** Books: `author` (to-one, with its books and their reviews), `reviews` (count allowed), `tags` (no count). */
export const bookTreePolicy = schema(Book)
  .expose('id', f, s)
  .expose('title', f, s)
  .expose('price', f, s)
  .relation('author', author, selectable())
  .relation('reviews', review, selectable({ maxLimit: 5, defaultLimit: 3, allowCount: true }))
  .relation('tags', tag, selectable({ maxLimit: 5 }));

/** Authors: the key `profile` (not selectable), `books` (count allowed), each with `reviews` (default sort `-stars`, two per book). */
export const authorTreePolicy = author;

/** What graphql-js answers. */
export interface Answer {
  readonly data?: any;
  readonly errors?: readonly { message: string; extensions?: Record<string, unknown>; path?: unknown[] }[];
}

/** The schema: `books` (type Book) and `authors` (type Author), tenant 1's rows. */
export function treeSchema(
  em: EntityManager,
  options: { limits?: GraphQLLimits; relay?: boolean } = {},
): GraphQLSchema {
  const books = createEngine(em, { policy: bookTreePolicy, allowCount: true, maxLimit: 50 });
  const authors = createEngine(em, { policy: authorTreePolicy, allowCount: true });
  const base = (entity: unknown, alias: string) =>
    (em.fork() as any).createQueryBuilder(entity, alias).where({ tenant: 1 });
  return graphqlSchema({
    endpoints: [
      { field: 'books', type: 'Book', engine: books, scope: () => ({ base: base(Book, 'b') }) },
      { field: 'authors', type: 'Author', engine: authors, scope: () => ({ base: base(Author, 'a') }) },
    ],
    ...options,
  });
}

/** Run a document, returning the answer (as JSON would carry it) and the statements that reached the drivers. */
export async function run(
  schema: GraphQLSchema,
  source: string,
  variableValues?: Record<string, unknown>,
): Promise<{ answer: Answer; calls: DriverCall[] }> {
  const { result, calls } = await captureDriver(async () =>
    JSON.parse(JSON.stringify(await graphql({ schema, source, ...(variableValues ? { variableValues } : {}) }))),
  );
  return { answer: result as Answer, calls };
}
