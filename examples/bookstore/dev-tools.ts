/**
 * The bookstore's developer pages, built from the same engines as its endpoints:
 * - `/openapi.json`: one OpenAPI 3.1 document for every endpoint, and `/docs`: a reference page rendered from it;
 * - `/describe`: each endpoint's `describe()`, which the playground completes fields and operators from;
 * - `/explain/books`, `/explain/authors`: the SQL and bound values a request would run (`explain()`), which names
 *   tables and hidden columns: a development aid, served only when asked for (`explain: true`, BOOKSTORE_EXPLAIN=1);
 * - `/playground`: a page to edit a request and see its errors as one types, its SQL, rows, count and cursor.
 * The pages are static files of `web/`; the playground's script is bundled on first request with esbuild, together
 * with listql's own parser, so the browser checks syntax with the very grammar code of the server.
 * Every answer of these routes forbids framing and MIME sniffing, and the pages run under a Content-Security-Policy
 * that allows only their own script, style sheet and requests to this server: no inline code, nothing from elsewhere.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type NextFunction, type Request, type Response, Router } from 'express';
import { listRoute } from '../../src/http/express.ts'; // in an application: from 'listql/express'
import { type AnyQueryBuilder, type Engine, toOpenAPI } from '../../src/index.ts'; // in an application: from 'listql'

/** One list endpoint of the bookstore: its path, its engine, and the base scope of a request. */
export interface BookstoreEndpoint {
  readonly path: string;
  readonly engine: Engine;
  readonly scope: (req: Request) => { readonly base: AnyQueryBuilder };
}

const WEB = new URL('./web/', import.meta.url);

/** Options of the developer pages. */
export interface DevToolsOptions {
  /** Serve `/explain/…`, which shows the SQL of a request, hidden columns included (default false). */
  readonly explain?: boolean;
}

/** The pages' policy: their own script, style sheet and requests only; no inline code, no framing, no forms. */
const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
/** The policy of every other answer (JSON, scripts): nothing to run, nothing to frame. */
const DATA_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** Set the safety headers on each developer route's answer: the page policy on the pages, the strict one elsewhere. */
function safetyHeaders(req: Request, res: Response, next: NextFunction): void {
  const page = req.path === '/docs' || req.path === '/playground';
  res.set({
    'content-security-policy': page ? PAGE_POLICY : DATA_POLICY,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  });
  next();
}

/** Build the router of the developer pages for `endpoints`. */
export function devTools(endpoints: readonly BookstoreEndpoint[], options: DevToolsOptions = {}): Router {
  const router = Router();
  // The list routes and /graphql answer before this router; what reaches it are the developer routes (or a 404).
  router.use(safetyHeaders);
  const openapi = JSON.stringify(
    toOpenAPI(
      endpoints.map(({ path, engine }) => ({ path, engine })),
      {
        title: 'listql bookstore',
        version: '1.0.0',
        description: 'Books and authors of two tenants (header `x-tenant`: 1 or 2, default 1).',
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'listql', url: 'https://github.com/listql/listql' },
        // Read by the app before any route (app.ts), so a generated client can send it and knows its error.
        parameters: [
          {
            name: 'x-tenant',
            in: 'header',
            description: 'The tenant: 1 or 2 (default 1).',
            schema: { enum: ['1', '2'] },
          },
        ],
        errors: { invalid_tenant: { status: 400, description: 'the `x-tenant` header is not 1 or 2.' } },
      },
    ),
  );
  const described = JSON.stringify({
    // The playground shows the SQL only when /explain is served.
    explain: options.explain === true,
    endpoints: endpoints.map(({ path, engine }) => ({ path, description: engine.describe() })),
  });
  const json = (text: string) => (_req: Request, res: Response) => {
    res.type('application/json; charset=utf-8').send(text);
  };
  router.get('/openapi.json', json(openapi));
  router.get('/describe', json(described));
  // explain() in place of list(): the same parsing, checks, scope and error answers; nothing runs.
  if (options.explain === true)
    for (const { path, engine, scope } of endpoints)
      router.get(
        `/explain${path}`,
        listRoute({ from: (base: AnyQueryBuilder) => ({ list: (query) => engine.from(base).explain(query) }) }, scope),
      );
  router.get('/docs', page('docs.html', 'text/html'));
  router.get('/docs.js', page('docs.js', 'text/javascript'));
  router.get('/docs.css', page('docs.css', 'text/css'));
  router.get('/playground', page('playground.html', 'text/html'));
  router.get('/playground.css', page('playground.css', 'text/css'));
  router.get('/playground.js', async (_req, res, next) => {
    try {
      res.type('text/javascript; charset=utf-8').send(await playgroundBundle());
    } catch (err) {
      next(err);
    }
  });
  return router;
}

/** Serve a file of `web/` as it is. */
function page(name: string, type: string) {
  return async (_req: Request, res: Response) => {
    res.type(`${type}; charset=utf-8`).send(await readFile(new URL(name, WEB), 'utf8'));
  };
}

let bundle: Promise<string> | undefined;

/** Bundle the playground script with listql's parser for the browser, once (esbuild is a development tool). */
function playgroundBundle(): Promise<string> {
  bundle ??= import('esbuild').then(async ({ build }) => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL('playground.js', WEB))],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      write: false,
      logLevel: 'silent',
    });
    return result.outputFiles[0]!.text;
  });
  bundle.catch(() => {
    bundle = undefined;
  });
  return bundle;
}
