/**
 * The bookstore API: `npm start`. Serves `/books` and `/authors` on PORT (default 3000) over the embedded
 * SQLite file `.data/bookstore.sqlite`, created and seeded on first start, or over PostgreSQL with DATABASE_URL.
 * Prints its URL and example requests to try with curl.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import { openBookstore } from './database.ts';
import { curlCommand, type ExampleRequest, exampleRequests, exampleUrl, TENANT_SEARCH } from './requests.ts';

const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 3000);

const orm = await openBookstore({
  databaseUrl: process.env.DATABASE_URL,
  sqliteFile: process.env.BOOKSTORE_SQLITE,
});
const server = createServer(createApp(orm));
server.listen(port, host);
try {
  await once(server, 'listening');
} catch (err) {
  await orm.close();
  const busy = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
  console.error(busy ? `Port ${port} is in use: start with PORT=<another port> npm start` : err);
  process.exit(1);
}

const { port: actual } = server.address() as AddressInfo;
const base = `http://${host === '127.0.0.1' ? 'localhost' : host}:${actual}`;
const where = process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'SQLite (.data/bookstore.sqlite)';
console.log(`listql bookstore on ${where}, listening on ${base}`);
console.log('Endpoints: GET /books, GET /authors. Tenant: header x-tenant (1 or 2, default 1).\n');

// The cursor example continues the page before it: ask the server for that page's nextCursor.
const firstPage = (await (await fetch(exampleUrl(base, exampleRequests('')[3] as ExampleRequest))).json()) as {
  page: { nextCursor?: string };
};
const examples = exampleRequests(firstPage.page.nextCursor ?? '');
examples.forEach((request, i) => {
  console.log(`${i + 1}. ${request.title}`);
  console.log(`   ${curlCommand(base, request)}\n`);
});
console.log(`And one more, ${TENANT_SEARCH.title}:`);
console.log(`   ${curlCommand(base, TENANT_SEARCH)}\n`);
console.log('Press Ctrl+C to stop.');

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    void orm.close();
  });
