/**
 * PostGraphile v4 (with postgraphile-plugin-connection-filter) serving the same tree on PostgreSQL, over the same
 * data, beside listql's GraphQL over HTTP. It lives in bench/peers/postgraphile with its own package.json and lock
 * (`npm run bench:peers` installs it there; nothing of it reaches listql's dependencies) and is skipped with a
 * message when that folder is not installed.
 *
 * PostGraphile names relations after their foreign keys and has no many-to-many field without another plugin, so its
 * document reads the tags through the pivot (`bookTagsByBookId { nodes { tagByTagId … } }`), in the pivot's key order.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Sample, Target } from './stats.ts';

const FOLDER = fileURLToPath(new URL('./peers/postgraphile/', import.meta.url));

/** The tree of bench/tree.ts in PostGraphile's schema. */
export const POSTGRAPHILE_DOCUMENT = `{ allBooks(first: 20, orderBy: PRIMARY_KEY_ASC) { nodes { id title
  authorByAuthorId { id name } publisherByPublisherId { id name }
  reviewsByBookId(first: 3, orderBy: CREATED_AT_DESC) { nodes { id stars createdAt } }
  bookTagsByBookId(first: 10) { nodes { tagByTagId { id name } } } } } }`;

/** A side-by-side measurement as bench/tree.ts takes it. */
interface Measured {
  readonly a: Sample;
  readonly b: Sample;
  readonly ratio: Sample;
  readonly p95: { readonly a: number; readonly b: number };
}
type Measure = (a: () => Promise<unknown>, b: () => Promise<unknown>) => Promise<Measured>;
type Line = (name: string, ratio: Sample, detail: string, target: Target) => string;

/** What the comparison needs from bench/tree.ts: listql's GraphQL request and its answer's book and review keys. */
export interface PeerContext {
  readonly url: string;
  readonly listqlGraph: () => Promise<{ data?: any }>;
  readonly measure: Measure;
  readonly line: Line;
  readonly versus: (r: Measured) => string;
}

/** The PostGraphile lines, or the one line saying why there are none. */
export async function benchPostGraphile(ctx: PeerContext): Promise<string[]> {
  if (!existsSync(`${FOLDER}node_modules/postgraphile`))
    return ['PostGraphile: skipped (bench/peers/postgraphile is not installed: `npm run bench:peers` installs it)'];
  const require = createRequire(`${FOLDER}package.json`);
  const { postgraphile } = require('postgraphile');
  const filterPlugin = require('postgraphile-plugin-connection-filter');
  const pg = require('pg');
  const middleware = postgraphile(ctx.url, 'public', {
    appendPlugins: [filterPlugin],
    disableQueryLog: true,
    retryOnInitFail: false,
    setofFunctionsContainNulls: false,
  });
  const server: Server = createServer(middleware);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  const theirs = async () => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: POSTGRAPHILE_DOCUMENT }),
    });
    const body = (await res.json()) as { data?: any; errors?: unknown };
    if (body.errors || body.data?.allBooks.nodes.length !== 20) throw new Error(JSON.stringify(body.errors));
    return body;
  };
  try {
    const answer = await theirs(); // the first request builds PostGraphile's schema
    const ours = await ctx.listqlGraph();
    const keys = (books: any[], reviews: (b: any) => any[]) =>
      JSON.stringify(books.map((b) => [b.id, reviews(b).map((r) => r.id)]));
    const same =
      keys(answer.data.allBooks.nodes, (b) => b.reviewsByBookId.nodes) ===
      keys(ours.data?.books.nodes ?? [], (b) => b.reviews.nodes);
    const sent = await countStatements(pg, theirs);
    const r = await ctx.measure(ctx.listqlGraph, theirs);
    return [
      ctx.line(
        'tree GraphQL over HTTP, listql / PostGraphile 4 + connection-filter, PostgreSQL',
        r.ratio,
        ctx.versus(r),
        'report',
      ),
      `  PostGraphile sends ${sent} statement(s) per tree; same books and reviews as listql: ${same ? 'yes' : 'NO'}`,
    ];
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await middleware.release?.();
  }
}

/** Statements PostGraphile's own copy of `pg` sends while `fn` runs once. */
async function countStatements(pg: any, fn: () => Promise<unknown>): Promise<number> {
  const original = pg.Client.prototype.query;
  let n = 0;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    n++;
    return original.apply(this, args);
  };
  try {
    await fn();
  } finally {
    pg.Client.prototype.query = original;
  }
  return n;
}
