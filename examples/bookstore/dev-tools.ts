/**
 * The bookstore's developer pages, built from the same engines as its endpoints:
 * - `/openapi.json`: one OpenAPI 3.1 document for every endpoint, and `/docs`: a reference page rendered from it;
 * - `/describe`: each endpoint's `describe()`, which the playground completes fields and operators from;
 * - `/explain/books`, `/explain/authors`: the SQL and bound values a request would run (`explain()`), which names
 *   tables and columns: a development aid, not something to expose in production;
 * - `/playground`: a page to edit a request and see its errors as one types, its SQL, rows, count and cursor.
 * The pages are static files of `web/`; the playground's script is bundled on first request with esbuild, together
 * with listql's own parser, so the browser checks syntax with the very grammar code of the server.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Request, type Response, Router } from 'express';
import { listRoute } from '../../src/http/express.ts'; // in an application: from 'listql/express'
import { type AnyQueryBuilder, type Engine, toOpenAPI } from '../../src/index.ts'; // in an application: from 'listql'

/** One list endpoint of the bookstore: its path, its engine, and the base scope of a request. */
export interface BookstoreEndpoint {
  readonly path: string;
  readonly engine: Engine;
  readonly scope: (req: Request) => { readonly base: AnyQueryBuilder };
}

const WEB = new URL('./web/', import.meta.url);

/** Build the router of the developer pages for `endpoints`. */
export function devTools(endpoints: readonly BookstoreEndpoint[]): Router {
  const router = Router();
  const openapi = JSON.stringify(
    toOpenAPI(
      endpoints.map(({ path, engine }) => ({ path, engine })),
      {
        title: 'listql bookstore',
        version: '1.0.0',
        description: 'Books and authors of two tenants (header `x-tenant`: 1 or 2, default 1).',
      },
    ),
  );
  const described = JSON.stringify({
    endpoints: endpoints.map(({ path, engine }) => ({ path, description: engine.describe() })),
  });
  const json = (text: string) => (_req: Request, res: Response) => {
    res.type('application/json; charset=utf-8').send(text);
  };
  router.get('/openapi.json', json(openapi));
  router.get('/describe', json(described));
  // explain() in place of list(): the same parsing, checks, scope and error answers; nothing runs.
  for (const { path, engine, scope } of endpoints)
    router.get(
      `/explain${path}`,
      listRoute({ from: (base: AnyQueryBuilder) => ({ list: (query) => engine.from(base).explain(query) }) }, scope),
    );
  router.get('/docs', page('docs.html', 'text/html'));
  router.get('/docs.js', page('docs.js', 'text/javascript'));
  router.get('/playground', page('playground.html', 'text/html'));
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
