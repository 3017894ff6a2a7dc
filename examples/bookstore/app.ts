/**
 * The bookstore HTTP API on Express 5: one engine per endpoint, built once; per request, a tenant base scope
 * from the `x-tenant` header; `listRoute` does the rest (parse, list, JSON or error response).
 */
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { bodyLimit, listRoute } from '../../src/http/express.ts'; // in an application: from 'listql/express'
import { createEngine } from '../../src/index.ts'; // in an application: from 'listql'
import type { BookstoreORM } from './database.ts';
import { type BookstoreEndpoint, type DevToolsOptions, devTools } from './dev-tools.ts';
import { Author, Book } from './entities.ts';
import { graphqlRoute } from './graphql.ts';
import { authorPolicy, bookPolicy } from './policies.ts';
import { titleSearch } from './search.ts';
import { parseTenant } from './tenants.ts';

/**
 * The secret the bookstore signs its cursors with: BOOKSTORE_CURSOR_SECRET, 32 or more random bytes
 * (`openssl rand -base64 32`). The default is for DEVELOPMENT ONLY: it is published here, so anyone could forge
 * cursors for a server that keeps it; with NODE_ENV=production the bookstore refuses to start without its own.
 */
const DEVELOPMENT_CURSOR_SECRET = 'DEVELOPMENT ONLY: the public bookstore cursor secret, never deploy it';

function cursorSecret(): string {
  const secret = process.env.BOOKSTORE_CURSOR_SECRET;
  if (secret) return secret;
  if (process.env.NODE_ENV === 'production') throw new Error('set BOOKSTORE_CURSOR_SECRET (32+ random bytes)');
  return DEVELOPMENT_CURSOR_SECRET;
}

/** Build the Express application of the bookstore over an initialized ORM; `/explain` only with `explain: true`. */
export function createApp(orm: BookstoreORM, options: DevToolsOptions = {}): Express {
  // Signed cursors: a client can read their keys (the README's tour shows them) but not change them; `sealed`
  // (the default with a secret) would hide them too. See docs/pagination.md, Signed and sealed cursors.
  const cursors = { cursorSecret: cursorSecret(), cursorMode: 'signed' } as const;
  // Built once at start-up: a policy mistake fails here, never in a request.
  const books = createEngine(orm, {
    ...cursors,
    policy: bookPolicy,
    defaultLimit: 20,
    maxLimit: 100,
    allowCount: true,
    // `search=` matches titles case-insensitively; the term is escaped and bound, never spliced into SQL.
    search: titleSearch,
    // A search page's facets (facets=year,author,tags,publisher) each count under the filter, and a sort by an
    // aggregate (sort=-reviews/count()) computes it for every book on every page: both need more than the default
    // budget of 8 sub-queries, and SQLite lets one statement take 3/8 of it (docs/policy.md, Aggregates). The
    // bookstore is small; an application sizes this to its largest scope.
    limits: { maxSubqueries: 24 },
  });
  // `sort=-books/count()` weighs 9: over the default budget (8) on its own.
  const authors = createEngine(orm, {
    ...cursors,
    policy: authorPolicy,
    allowCount: true,
    limits: { maxSubqueries: 24 },
  });

  // Each endpoint: its path, its engine, and the base scope of a request (the tenant's rows).
  const endpoints: readonly BookstoreEndpoint[] = [
    {
      path: '/books',
      engine: books,
      scope: (req) => ({
        base: orm.em
          .fork()
          .createQueryBuilder(Book, 'b')
          .where({ tenant: tenantOf(req) }),
      }),
    },
    {
      path: '/authors',
      engine: authors,
      scope: (req) => ({
        base: orm.em
          .fork()
          .createQueryBuilder(Author, 'a')
          .where({ tenant: tenantOf(req) }),
      }),
    },
  ];

  const app = express();
  app.disable('x-powered-by');
  // Every body is bounded (100 KiB; 413 limit_exceeded past it), before any route: graphql-http reads one whole.
  app.use(bodyLimit());
  app.use(tenantFromHeader);
  for (const { path, engine, scope } of endpoints) app.get(path, listRoute(engine, scope));
  // The same engines and tenant scopes as GraphQL connections: POST (or GET) /graphql.
  app.all('/graphql', graphqlRoute(endpoints));
  // Developer pages: /openapi.json, /docs, /playground, and /explain/… (SQL with hidden columns: off by default).
  app.use(devTools(endpoints, options));
  return app;
}

/** Check `x-tenant` (default 1) before any route runs: the base scope of every query depends on it. */
function tenantFromHeader(req: Request, res: Response, next: NextFunction): void {
  const tenant = parseTenant(req.get('x-tenant') ?? '1');
  if (tenant === undefined) {
    res.status(400).json({ code: 'invalid_tenant', message: 'x-tenant must be 1 or 2' });
    return;
  }
  res.locals.tenant = tenant;
  next();
}

function tenantOf(req: Request): number {
  return req.res?.locals.tenant as number;
}
