/**
 * The application the docs' snippets live in: what a snippet may use without importing or declaring it. Only the
 * application's own names are here (its entities, its MikroORM instance and Express app, its helpers, and the
 * running example's policies and engines); every listql name must be imported by the snippet itself, so a renamed
 * or removed export fails the check.
 *
 * Kept as source text, not as a module of the project: its globals must not leak into the project's type check.
 */

/** `entities.ts` of the snippet project: the running example's entity classes (snippets may import './entities'). */
export const ENTITIES_SOURCE = `import type { Collection, Ref } from '@mikro-orm/core';
import type { PublicNames } from 'listql';

export class Publisher {
  id!: number;
  name!: string;
  books?: Collection<Book>;
}

export class Author {
  declare [PublicNames]?: { email: 'emailAddress' }; // serializedName: 'emailAddress'
  id!: number;
  tenant!: number;
  name!: string;
  email!: string;
  born!: number;
  publisher?: Publisher | null;
  mentor?: Author | null;
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
  score?: number | null;
  createdAt!: Date;
  author!: Author;
  coAuthor?: Author | null;
  publisher?: Ref<Publisher> | null;
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
  createdAt!: Date;
  deletedAt?: Date | null;
}

export class Product {
  id!: number;
  tenant!: number;
  name!: string;
  code!: string;
  status!: 'draft' | 'active' | 'retired';
  price?: string | null;
  createdAt!: Date;
}

export class User {
  id!: number;
  name!: string;
  email!: string;
}

export class Project {
  id!: number;
  name!: string;
}

export class Task {
  id!: number;
  title!: string;
  done!: boolean;
  estimate!: number;
  assignee!: User;
  project?: Project | null;
}
`;

/** The entity classes of ENTITIES_SOURCE, each a global value and type of the snippets. */
const ENTITY_NAMES = ['Publisher', 'Author', 'Tag', 'Book', 'Review', 'Product', 'User', 'Project', 'Task'];

/** `app.d.ts` of the snippet project: the globals every snippet may use. */
export const APP_SOURCE = `import type { IncomingMessage } from 'node:http';
import type { EntityManager, MikroORM, QueryBuilder } from '@mikro-orm/postgresql';
import type { Express, Request, Response } from 'express';
import type { Engine, ListContext, ListItem, Policy, QueryValues, SearchCallback } from 'listql';
import type * as E from './entities';

declare global {
  // The entities (also importable from './entities').
${ENTITY_NAMES.map((n) => `  var ${n}: typeof E.${n};\n  type ${n} = E.${n};`).join('\n')}

  // The application: its ORM, a request's EntityManager, its Express app, its logger and helpers.
  var orm: MikroORM;
  var em: EntityManager;
  var app: Express;
  var logger: { error(err: unknown): void; info(...args: unknown[]): void };
  function tenantOf(req: Request | IncomingMessage): number;
  function userOf(req: Request | IncomingMessage): { id: string; admin: boolean };
  function isAdmin(req: Request | IncomingMessage): boolean;

  // The running example: policies and engines built from them, and one request's scope.
  var bookPolicy: Policy<E.Book>;
  var authorPolicy: Policy<E.Author>;
  var reviewPolicy: Policy<E.Review>;
  var publisherPolicy: Policy<E.Publisher>;
  var userPolicy: Policy<E.User>;
  var taskPolicy: Policy<E.Task>;
  var bookSearch: SearchCallback;
  var books: Engine<ListContext, ListItem<E.Book>>;
  var authors: Engine;
  var engine: Engine;
  var req: Request;
  var res: Response;
  var query: QueryValues;
  var ctx: ListContext;
  /** A request's base scope (its tenant's books), as \`orm.em.fork().createQueryBuilder(Book, 'b').where(…)\` gives. */
  var base: QueryBuilder<E.Book, 'b'>;
  var qb: QueryBuilder<E.Book, 'b'>;
}
`;
