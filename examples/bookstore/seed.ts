/**
 * The bookstore's seed: two tenants, with soft-deleted rows where they change an answer. Tenant 1 sees
 * books 1–8 (book 9 is deleted); tenant 2 sees books 10–12. Reviews 11 and 12 are deleted, so book 8's only
 * live review has 2 stars and `reviews/any(r: r/stars gte 4)` does not match it.
 */
import type { EntityManager } from '@mikro-orm/core';
import { Author, Book, Publisher, Review, Tag } from './entities.ts';

const DELETED = new Date('2024-01-01T00:00:00Z');

// [id, tenant, name]
const PUBLISHERS: [number, number, string][] = [
  [1, 1, 'Penguin'],
  [2, 1, 'Faber'],
  [3, 2, 'Hanser'],
];

// [id, tenant, name, born, deleted]
const AUTHORS: [number, number, string, number, boolean][] = [
  [1, 1, 'Ursula K. Le Guin', 1929, false],
  [2, 1, 'Italo Calvino', 1923, false],
  [3, 1, 'Toni Morrison', 1931, false],
  [4, 1, 'Stanisław Lem', 1921, false],
  [5, 1, 'Anonymous', 1900, true],
  [6, 2, 'Michael Ende', 1929, false],
  [7, 2, 'Christa Wolf', 1929, false],
];

const TAGS: [number, string][] = [
  [1, 'classic'],
  [2, 'science-fiction'],
  [3, 'fantasy'],
];

// [id, tenant, title, year, price, author, publisher, tags, deleted]
const BOOKS: [number, number, string, number, number, number, number | null, number[], boolean][] = [
  [1, 1, 'The Left Hand of Darkness', 1969, 14.99, 1, 1, [1, 2], false],
  [2, 1, 'The Dispossessed', 1974, 15.99, 1, 1, [2], false],
  [3, 1, 'A Wizard of Earthsea', 1968, 9.99, 1, 2, [1, 3], false],
  [4, 1, 'Invisible Cities', 1972, 12.5, 2, 1, [1], false],
  [5, 1, "If on a winter's night a traveler", 1979, 13.0, 2, null, [], false],
  [6, 1, 'Beloved', 1987, 16.0, 3, 2, [1], false],
  [7, 1, 'Song of Solomon', 1977, 15.0, 3, 2, [], false],
  [8, 1, 'Solaris', 1961, 11.0, 4, null, [2], false],
  [9, 1, 'The Cyberiad', 1965, 10.0, 4, null, [2], true],
  [10, 2, 'Momo', 1973, 12.0, 6, 3, [3], false],
  [11, 2, 'The Neverending Story', 1979, 18.0, 6, 3, [1, 3], false],
  [12, 2, 'Cassandra', 1983, 14.0, 7, 3, [], false],
];

// [id, tenant, book, reviewer, stars, deleted]
const REVIEWS: [number, number, number, string, number, boolean][] = [
  [1, 1, 1, 'ana', 5, false],
  [2, 1, 1, 'ben', 4, false],
  [3, 1, 2, 'cy', 3, false],
  [4, 1, 3, 'dee', 5, false],
  [5, 1, 4, 'eli', 2, false],
  [6, 1, 4, 'fay', 4, false],
  [7, 1, 6, 'gus', 5, false],
  [8, 1, 7, 'ivy', 3, false],
  [9, 1, 8, 'jo', 2, false],
  [10, 1, 9, 'lu', 5, false],
  [11, 1, 8, 'kim', 5, true],
  [12, 1, 6, 'hal', 1, true],
  [13, 2, 10, 'max', 5, false],
  [14, 2, 12, 'nia', 3, false],
];

/** Insert the seed rows into an empty bookstore database. */
export async function seed(em: EntityManager): Promise<void> {
  for (const [id, tenant, name] of PUBLISHERS) em.create(Publisher, { id, tenant, name });
  for (const [id, tenant, name, born, deleted] of AUTHORS)
    em.create(Author, { id, tenant, name, born, deletedAt: deleted ? DELETED : null });
  const tags = new Map(TAGS.map(([id, name]) => [id, em.create(Tag, { id, name })]));
  for (const [id, tenant, title, year, price, author, publisher, tagIds, deleted] of BOOKS) {
    const book = em.create(Book, {
      id,
      tenant,
      title,
      year,
      price,
      author: em.getReference(Author, author),
      publisher: publisher === null ? null : em.getReference(Publisher, publisher),
      deletedAt: deleted ? DELETED : null,
    });
    book.tags?.set(tagIds.map((t) => tags.get(t)!));
  }
  for (const [id, tenant, book, reviewer, stars, deleted] of REVIEWS)
    em.create(Review, {
      id,
      tenant,
      book: em.getReference(Book, book),
      reviewer,
      stars,
      deletedAt: deleted ? DELETED : null,
    });
  await em.flush();
}
