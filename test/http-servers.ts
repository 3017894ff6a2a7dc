/**
 * Start each listql adapter on a real HTTP server at 127.0.0.1 on a free port, serving one list route at `/stock`.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import * as expressAdapter from '../src/http/express.ts';
import * as fastifyAdapter from '../src/http/fastify.ts';
import type { ListEngine, ListScope, RouteOptions } from '../src/http/handler.ts';
import * as honoAdapter from '../src/http/hono.ts';
import * as koaAdapter from '../src/http/koa.ts';

/** A running server: its base URL and the way to stop it. */
export interface RunningServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Build the request's scope; every adapter calls it with its own request object, so it takes none. */
export type TestScope = () => ListScope<any, any, any>;

/** One adapter: its name and how to serve `engine` at `/stock` with it. */
export interface AdapterCase {
  readonly name: string;
  start(engine: ListEngine<any, any, any>, scope: TestScope, options: RouteOptions): Promise<RunningServer>;
}

export const ADAPTERS: readonly AdapterCase[] = [
  {
    name: 'express',
    async start(engine, scope, options) {
      const app = express();
      app.get('/stock', expressAdapter.listRoute(engine, scope, options));
      return listen(createServer(app));
    },
  },
  {
    name: 'fastify',
    async start(engine, scope, options) {
      // Closing waits for every open connection otherwise: fetch keeps its sockets alive, and Fastify's keep-alive
      // timeout is 72 s.
      const app = Fastify({ forceCloseConnections: true });
      app.get('/stock', fastifyAdapter.listRoute(engine, scope, options));
      await app.listen({ host: '127.0.0.1', port: 0 });
      return { url: baseUrl(app.server), close: () => app.close() };
    },
  },
  {
    name: 'koa',
    async start(engine, scope, options) {
      const app = new Koa();
      app.use(koaAdapter.listRoute(engine, scope, options));
      return listen(createServer(app.callback()));
    },
  },
  {
    name: 'hono',
    async start(engine, scope, options) {
      const app = new Hono();
      app.get('/stock', honoAdapter.listRoute(engine, scope, options));
      const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
      await once(server, 'listening');
      return { url: baseUrl(server), close: () => closeServer(server) };
    },
  },
];

async function listen(server: Server): Promise<RunningServer> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: baseUrl(server), close: () => closeServer(server) };
}

function baseUrl(server: Server): string {
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
}
