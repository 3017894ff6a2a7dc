/**
 * The model of the nested-tree figures: the bench's authors, books and reviews, with publishers and tags (m:n through
 * `book_tags`) added, and the dates a review page sorts by. Its own classes (a MikroORM class has one metadata), the
 * same tables and columns as bench/model.ts plus the new ones. Indexes are those a user would create for the tree:
 * reviews by `(book_id, created_at)` (each book's newest first), the pivot's key `(book_id, tag_id)` and `tag_id`.
 */
import { type Collection, EntitySchema, type MikroORM } from '@mikro-orm/core';
import { filterable, schema, selectable, sortable } from '../src/policy/index.ts';

export class Author {
  id!: number;
  name!: string;
}

export class Publisher {
  id!: number;
  name!: string;
}

export class Tag {
  id!: number;
  name!: string;
  books?: Collection<Book>;
}

export class Book {
  id!: number;
  title!: string;
  price!: number;
  score?: number | null;
  createdAt!: Date;
  author!: Author;
  publisher?: Publisher | null;
  reviews?: Collection<Review>;
  tags?: Collection<Tag>;
}

/** The pivot of Book.tags, declared so that its `tag_id` side gets an index (its key serves `book_id`). */
export class BookTag {
  book!: Book;
  tag!: Tag;
}

export class Review {
  id!: number;
  stars!: number;
  createdAt!: Date;
  book!: Book;
}

const id = { type: 'integer', primary: true, autoincrement: false } as const;

export const treeEntities = [
  new EntitySchema<Author>({ class: Author, tableName: 'author', properties: { id, name: { type: 'string' } } }),
  new EntitySchema<Publisher>({
    class: Publisher,
    tableName: 'publisher',
    properties: { id, name: { type: 'string' } },
  }),
  new EntitySchema<Tag>({
    class: Tag,
    tableName: 'tag',
    properties: { id, name: { type: 'string' }, books: { kind: 'm:n', entity: () => Book, mappedBy: 'tags' } },
  }),
  new EntitySchema<Book>({
    class: Book,
    tableName: 'book',
    properties: {
      id,
      title: { type: 'string' },
      price: { type: 'integer' },
      score: { type: 'integer', nullable: true },
      createdAt: { type: 'datetime' },
      author: { kind: 'm:1', entity: () => Author },
      publisher: { kind: 'm:1', entity: () => Publisher, nullable: true },
      reviews: { kind: '1:m', entity: () => Review, mappedBy: 'book' },
      tags: { kind: 'm:n', entity: () => Tag, owner: true, inversedBy: 'books', pivotEntity: () => BookTag },
    },
  }),
  new EntitySchema<BookTag>({
    class: BookTag,
    tableName: 'book_tags',
    indexes: [{ properties: ['tag'] }],
    properties: {
      book: { kind: 'm:1', entity: () => Book, primary: true },
      tag: { kind: 'm:1', entity: () => Tag, primary: true },
    },
  }),
  new EntitySchema<Review>({
    class: Review,
    tableName: 'review',
    indexes: [{ properties: ['book', 'createdAt'] }],
    properties: {
      id,
      stars: { type: 'integer' },
      createdAt: { type: 'datetime' },
      book: { kind: 'm:1', entity: () => Book },
    },
  }),
];

const f = filterable();
const s = sortable();
const authorFields = schema(Author).expose('id', f, s).expose('name', f, s);
const publisherFields = schema(Publisher).expose('id', f, s).expose('name', f, s);
const reviewFields = schema(Review).expose('id', f, s).expose('stars', f, s).expose('createdAt', f, s);
const tagFields = schema(Tag).expose('id', f, s).expose('name', f, s);

/** The most tags a book's page may hold (`tags.limit` at its maximum). */
export const MAX_TAGS = 10;

/** `/books` of the tree figures: its author and publisher (to-one), reviews (newest three by default) and tags. */
export const treeBookPolicy = schema(Book)
  .expose('id', f, s)
  .expose('title', f, s)
  .expose('price', f, s)
  .relation('author', authorFields, selectable())
  .relation('publisher', publisherFields, selectable())
  .relation('reviews', reviewFields, selectable({ maxLimit: 20, defaultLimit: 3, defaultSort: '-createdAt' }))
  .relation('tags', tagFields, selectable({ maxLimit: MAX_TAGS, defaultLimit: MAX_TAGS, defaultSort: 'name' }));

/** The largest nested list a level of the refused tree may ask for. */
export const GREEDY_MAX = 50;

/** Books → tags → books → reviews, every level a list of up to GREEDY_MAX: the policy of the refused tree. */
export const greedyBookPolicy = schema(Book)
  .expose('id', f, s)
  .expose('title', f, s)
  .relation(
    'tags',
    schema(Tag)
      .expose('id', f, s)
      .expose('name', f, s)
      .relation(
        'books',
        schema(Book)
          .expose('id', f, s)
          .expose('title', f, s)
          .relation('reviews', reviewFields, selectable({ maxLimit: GREEDY_MAX })),
        selectable({ maxLimit: GREEDY_MAX }),
      ),
    selectable({ maxLimit: GREEDY_MAX }),
  );

type Dialect = 'sqlite' | 'postgresql' | 'mariadb';

/**
 * Fill the tables with `books` books, books / 10 authors, 100 publishers (none on every tenth book), 50 tags (0 to 4
 * a book, 2 on average) and 3 reviews a book on average: book n has n % 7 of them (0 to 6), so a page of 20 books
 * holds books with fewer, as many and more reviews than the three it shows. Review dates are a permutation of the
 * review numbers, so a book's newest reviews are not its last inserted. Generated in SQL, as bench/data.ts does.
 */
export async function loadTree(orm: MikroORM, dialect: Dialect, books: number): Promise<void> {
  const run = (sql: string) => orm.em.getConnection().execute(sql);
  const series = (n: number) => {
    if (dialect === 'postgresql') return `select g as n from generate_series(1, ${n}) g`;
    if (dialect === 'mariadb') return `select seq as n from seq_1_to_${n}`;
    return `with recursive s(n) as (select 1 union all select n + 1 from s where n < ${n}) select n from s`;
  };
  const text = (prefix: string, n: string) =>
    dialect === 'sqlite' ? `'${prefix}' || ${n}` : `concat('${prefix}', ${n})`;
  const seconds = (n: string) =>
    ({
      postgresql: `timestamptz '2020-01-01' + (${n}) * interval '1 second'`,
      mariadb: `timestamp '2020-01-01 00:00:00' + interval (${n}) second`,
      sqlite: `1577836800000 + (${n}) * 1000`,
    })[dialect];
  const div = dialect === 'mariadb' ? 'div' : '/';
  // PostgreSQL's generate_series gives 32-bit integers: widen before the products overflow them.
  const wide = dialect === 'postgresql' ? 'n::bigint' : 'n';
  const authors = Math.max(10, Math.floor(books / 10));
  const slots = books * 7;
  await run(`insert into author (id, name) select n, ${text('author ', 'n')} from (${series(authors)}) t`);
  await run(`insert into publisher (id, name) select n, ${text('publisher ', 'n')} from (${series(100)}) t`);
  await run(`insert into tag (id, name) select n, ${text('tag ', 'n')} from (${series(50)}) t`);
  await run(
    `insert into book (id, title, price, score, created_at, author_id, publisher_id)
     select n, ${text('title ', 'n')}, (${wide} * 7919) % 1000, case when n % 10 = 0 then null else n % 500 end,
            ${seconds('n')}, 1 + (n * 31) % ${authors}, case when n % 10 = 0 then null else 1 + n % 100 end
     from (${series(books)}) t`,
  );
  // Slot n belongs to book 1 + (n - 1) / 7; the first (book % 7) slots of each book are its reviews.
  await run(
    `insert into review (id, stars, created_at, book_id)
     select n, 1 + n % 5, ${seconds(`(${wide} * 7919) % ${slots}`)}, 1 + (n - 1) ${div} 7
     from (${series(slots)}) t
     where (n - 1) % 7 < (1 + (n - 1) ${div} 7) % 7`,
  );
  for (let k = 0; k < 4; k++)
    await run(
      `insert into book_tags (book_id, tag_id) select n, 1 + (n + ${13 * k}) % 50 from (${series(books)}) t where n % 5 > ${k}`,
    );
  await run(dialect === 'mariadb' ? 'analyze table author, publisher, tag, book, book_tags, review' : 'analyze');
}
