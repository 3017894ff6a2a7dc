/**
 * The bookstore's `/graphql`: the same engines and tenant scopes as the REST endpoints, as GraphQL connections
 * served by graphql-http, e.g. `{ books(filter: "price gt 10", first: 5) { nodes { id title price } } }`.
 * A browser opening `/graphql` (a GET that accepts HTML and carries no `query`) gets the explorer page of `web/`
 * instead of graphql-http's 400: a query editor that runs against this endpoint, with the schema's SDL. It loads
 * nothing from the network, so it works offline. A GET with `?query=` still executes, as GraphQL over HTTP says.
 */
import { readFile } from 'node:fs/promises';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createHandler } from 'graphql-http/lib/use/express';
import { abortOnClose, documentLimits, graphqlSchema, printSchema } from '../../src/graphql/index.ts'; // in an application: from 'listql/graphql'
import type { BookstoreEndpoint } from './dev-tools.ts';

const WEB = new URL('./web/', import.meta.url);

/** The media types graphql-http answers with, before HTML: a client that accepts them all gets JSON. */
const ANSWERS = ['application/graphql-response+json', 'application/json', 'text/html'];

/** Build the `/graphql` handler over the bookstore's endpoints. */
export function graphqlRoute(endpoints: readonly BookstoreEndpoint[]): RequestHandler {
  const schema = graphqlSchema<{ req: Request; signal: AbortSignal }>({
    endpoints: endpoints.map(({ path, engine, scope }) => ({
      field: path.slice(1),
      type: path === '/books' ? 'Book' : 'Author',
      engine,
      scope: ({ req }) => scope(req),
    })),
  });
  // Documents are bounded before they run (bytes, tokens, depth), a repeated one is neither parsed nor validated
  // again and is answered by its compiled writer, and a client that goes away stops its statements.
  const limits = documentLimits({ cache: { max: 500 } });
  const handler = createHandler({
    schema,
    parse: limits.parse,
    validate: limits.validate,
    validationRules: limits.validationRules,
    execute: limits.execute,
    context: (req) => ({ req: req.raw, signal: abortOnClose(req.context.res) }),
  });
  let page: Promise<string> | undefined;
  return (req: Request, res: Response, next: NextFunction) => {
    if (!wantsPage(req)) return void handler(req, res, next);
    page ??= explorerPage(printSchema(schema));
    page.then((html) => void res.type('text/html; charset=utf-8').send(html), next);
  };
}

/** Tell a browser opening the URL (GET, no `query`, HTML preferred to JSON) from a GraphQL client. */
function wantsPage(req: Request): boolean {
  return req.method === 'GET' && req.query.query === undefined && req.accepts(ANSWERS) === 'text/html';
}

/** The explorer page: the HTML of `web/`, with the schema's SDL and the page's script written into it. */
async function explorerPage(sdl: string): Promise<string> {
  const [html, script] = await Promise.all([
    readFile(new URL('graphql.html', WEB), 'utf8'),
    readFile(new URL('graphql.js', WEB), 'utf8'),
  ]);
  const escaped = sdl.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return html
    .replace('<!--SDL-->', () => escaped)
    .replace('<!--SCRIPT-->', () => `<script type="module">\n${script.replace(/<\//g, '<\\/')}</script>`);
}
