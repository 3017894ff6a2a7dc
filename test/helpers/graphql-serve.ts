/**
 * Serve a GraphQL schema over real HTTP for tests: graphql-http's node handler on node:http (127.0.0.1, port 0),
 * and a POST helper that returns the parsed answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EntityManager } from '@mikro-orm/core';
import type { GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/http';
import { createEngine, type EngineConfig } from '../../src/engine/index.ts';
import { Entry, entryPolicy } from '../fixtures/walk.ts';

/** A running server: its `/graphql` URL, and close(). */
export interface ServedSchema {
  readonly url: string;
  close(): Promise<void>;
}

/** What a GraphQL-over-HTTP server answers. */
export interface GraphQLAnswer {
  readonly data?: any;
  readonly errors?: readonly { message: string; extensions?: Record<string, unknown>; path?: unknown[] }[];
}

/** Serve `schema` on `/graphql` of a fresh local server, with the `x-tenant` header as the context's tenant. */
export async function serveSchema(schema: GraphQLSchema): Promise<ServedSchema> {
  const handler = createHandler({
    schema,
    context: (req) => ({ tenant: (req.raw.headers['x-tenant'] as string | undefined) ?? undefined }),
  });
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/graphql')) return void handler(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** POST one query (JSON body) and return the parsed answer. */
export async function postQuery(url: string, query: string, tenant?: string): Promise<GraphQLAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (tenant) headers['x-tenant'] = tenant;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query }) });
  return (await res.json()) as GraphQLAnswer;
}

/** Tenant 1's walk entries, the base scope the GraphQL tests list from. */
export function tenantEntries(em: EntityManager): any {
  return (em as any).createQueryBuilder(Entry, 'e').where({ tenant: 1 });
}

/** Build the `entries` endpoint of type `Entry`: every Entry field, 50 a page at most, tenant 1's rows. */
export function entriesEndpoint(em: EntityManager, config: Omit<EngineConfig, 'policy'> = {}) {
  return {
    field: 'entries',
    type: 'Entry',
    engine: createEngine(em, { policy: entryPolicy, maxLimit: 50, ...config }),
    scope: () => ({ base: tenantEntries(em.fork()) }),
  };
}
