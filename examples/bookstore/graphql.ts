/**
 * The bookstore's `/graphql`: the same engines and tenant scopes as the REST endpoints, as GraphQL connections
 * served by graphql-http, e.g. `{ books(filter: "price gt 10", first: 5) { nodes { id title price } } }`.
 */
import type { Request, RequestHandler } from 'express';
import { createHandler } from 'graphql-http/lib/use/express';
import { graphqlSchema } from '../../src/graphql/index.ts'; // in an application: from 'listql/graphql'
import type { BookstoreEndpoint } from './dev-tools.ts';

/** Build the `/graphql` handler over the bookstore's endpoints. */
export function graphqlRoute(endpoints: readonly BookstoreEndpoint[]): RequestHandler {
  const schema = graphqlSchema<{ req: Request }>({
    endpoints: endpoints.map(({ path, engine, scope }) => ({
      field: path.slice(1),
      type: path === '/books' ? 'Book' : 'Author',
      engine,
      scope: ({ req }) => scope(req),
    })),
  });
  return createHandler({ schema, context: (req) => ({ req: req.raw }) });
}
