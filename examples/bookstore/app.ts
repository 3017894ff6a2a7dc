/**
 * The bookstore HTTP API on Express 5: one engine per endpoint, built once; per request, a tenant base scope
 * from the `x-tenant` header; `listRoute` does the rest (parse, list, JSON or error response).
 */
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { listRoute } from '../../src/http/express.ts'; // in an application: from 'listql/express'
import { createEngine, escapeLike } from '../../src/index.ts'; // in an application: from 'listql'
import type { BookstoreORM } from './database.ts';
import { Author, Book } from './entities.ts';
import { authorPolicy, bookPolicy } from './policies.ts';

/** The tenants of the seed; a real application derives the tenant from authentication instead. */
const TENANTS = new Set(['1', '2']);

/** Build the Express application of the bookstore over an initialized ORM. */
export function createApp(orm: BookstoreORM): Express {
  // Built once at start-up: a policy mistake fails here, never in a request.
  const books = createEngine(orm, {
    policy: bookPolicy,
    defaultLimit: 20,
    maxLimit: 100,
    allowCount: true,
    // `search=` matches titles case-insensitively; the term is escaped and bound, never spliced into SQL.
    search: (_ctx, qb, term) =>
      qb.andWhere(`lower(${qb.alias}.title) like ? escape '\\'`, [`%${escapeLike(term.toLowerCase())}%`]),
  });
  const authors = createEngine(orm, { policy: authorPolicy, allowCount: true });

  const app = express();
  app.disable('x-powered-by');
  app.use(tenantFromHeader);
  app.get(
    '/books',
    listRoute(books, (req) => ({
      base: orm.em
        .fork()
        .createQueryBuilder(Book, 'b')
        .where({ tenant: tenantOf(req) }),
    })),
  );
  app.get(
    '/authors',
    listRoute(authors, (req) => ({
      base: orm.em
        .fork()
        .createQueryBuilder(Author, 'a')
        .where({ tenant: tenantOf(req) }),
    })),
  );
  return app;
}

/** Check `x-tenant` (default 1) before any route runs: the base scope of every query depends on it. */
function tenantFromHeader(req: Request, res: Response, next: NextFunction): void {
  const tenant = req.get('x-tenant') ?? '1';
  if (!TENANTS.has(tenant)) {
    res.status(400).json({ code: 'invalid_tenant', message: 'x-tenant must be 1 or 2' });
    return;
  }
  res.locals.tenant = Number(tenant);
  next();
}

function tenantOf(req: Request): number {
  return req.res?.locals.tenant as number;
}
