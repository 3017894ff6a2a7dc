/**
 * The bookstore API: `npm start`. Serves `/books` and `/authors` on PORT (default 3000) over the embedded
 * SQLite file `.data/bookstore.sqlite` (or BOOKSTORE_SQLITE), created and seeded on first start, or over PostgreSQL,
 * MySQL or MariaDB with DATABASE_URL (an existing database; BOOKSTORE_CREATE_DB=1 creates a missing one). Prints its
 * URL and example requests to try with curl. Also serves developer pages: /playground, /docs and /openapi.json
 * (dev-tools.ts), and with BOOKSTORE_EXPLAIN=1 /explain/…, which shows each request's SQL (it says so on start).
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import { type BookstoreORM, databaseOptionsFromEnv, describeDatabase, openBookstore } from './database.ts';
import { curlCommand, type ExampleRequest, exampleRequests, exampleUrl, TENANT_SEARCH } from './requests.ts';
import { createBookstoreServer } from './server.ts';

const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 3000);
// /explain shows the SQL of a request, hidden columns included: only when asked for.
const explain = process.env.BOOKSTORE_EXPLAIN === '1';

const options = databaseOptionsFromEnv();
let orm: BookstoreORM;
try {
  orm = await openBookstore(options);
} catch (err) {
  console.error(`The bookstore cannot open its database: ${(err as Error).message}`);
  process.exit(1);
}
const server = createBookstoreServer(createApp(orm, { explain }));
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
console.log(`listql bookstore on ${describeDatabase(orm, options)}, listening on ${base}`);
console.log('Endpoints: GET /books, GET /authors, POST /graphql. Tenant: header x-tenant (1 or 2, default 1).');
console.log(`Playground: ${base}/playground   API reference: ${base}/docs (${base}/openapi.json)`);
if (explain)
  console.log(
    `BOOKSTORE_EXPLAIN=1: ${base}/explain/books and /explain/authors show the SQL of a request (hidden columns too).`,
  );
console.log('');

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
