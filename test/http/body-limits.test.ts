/**
 * The bookstore's request bodies are bounded: `examples/bookstore/main.ts` as a child process on 127.0.0.1, and
 * real bodies sent to it. `/graphql` takes a body up to the limit (declared or chunked) and answers one byte more
 * with 413 `limit_exceeded`; a 600 MB body (declared, or streamed without a length) is refused early, the upload is
 * cut, the server's memory does not grow with it and it keeps serving. A list route given a body is bounded the same.
 *
 * SQLite only: the limit is enforced before any route runs, whatever the database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/http/body-limit.ts';
import { type RunningBookstore, startBookstore } from '../helpers/bookstore.ts';
import { rssOf, upload } from '../helpers/upload.ts';

const test = suite('bookstore body limits [sqlite]');
const state: { dir?: string; bookstore?: RunningBookstore } = {};
const LIMIT = DEFAULT_MAX_BODY_BYTES;
const MIB = 1024 * 1024;
const GRAPHQL = { 'content-type': 'application/json', accept: 'application/json' };
const TOO_LARGE = { code: 'limit_exceeded', message: `request body is larger than ${LIMIT} bytes` };

test.before(async () => {
  state.dir = mkdtempSync(join(tmpdir(), 'listql-body-limits-'));
  state.bookstore = await startBookstore({ BOOKSTORE_SQLITE: join(state.dir, 'bookstore.sqlite') });
});

test.after(async () => {
  await state.bookstore?.stop();
  if (state.dir) rmSync(state.dir, { recursive: true, force: true });
});

/** A GraphQL request of exactly `bytes` bytes: the query, then spaces (JSON allows trailing whitespace). */
function graphqlBody(bytes: number): Buffer {
  const json = JSON.stringify({ query: '{ books(first: 2) { totalCount nodes { id } } }' });
  return Buffer.from(json + ' '.repeat(bytes - json.length));
}

/** The bookstore still answers a list request. */
async function stillServes(): Promise<void> {
  const res = await fetch(`${state.bookstore!.base}/books?limit=1&count=true`);
  assert.is(res.status, 200);
  assert.is(((await res.json()) as any).page.count, 8);
}

for (const contentLength of [true, false]) {
  const how = contentLength ? 'with content-length' : 'chunked';
  test(`/graphql takes a body of exactly the limit (${how})`, async () => {
    const url = `${state.bookstore!.base}/graphql`;
    const res = await upload(url, { headers: GRAPHQL, body: graphqlBody(LIMIT), contentLength });
    assert.is(res.status, 200, res.body);
    assert.equal(JSON.parse(res.body).data.books, { totalCount: 8, nodes: [{ id: 1 }, { id: 2 }] });
  });

  test(`/graphql answers one byte more with 413 limit_exceeded (${how})`, async () => {
    const url = `${state.bookstore!.base}/graphql`;
    const res = await upload(url, { headers: GRAPHQL, body: graphqlBody(LIMIT + 1), contentLength });
    assert.is(res.status, 413, res.body);
    assert.is(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(JSON.parse(res.body), TOO_LARGE);
  });

  test(`a 600 MB body to /graphql is cut early; memory stays flat and the server serves on (${how})`, async () => {
    const { base, pid } = state.bookstore!;
    const before = rssOf(pid);
    const res = await upload(`${base}/graphql`, { headers: GRAPHQL, body: 600 * MIB, contentLength });
    assert.is(res.status, 413, `${res.error} after ${res.sent} bytes`);
    assert.equal(JSON.parse(res.body), TOO_LARGE);
    // The client stopped long before 600 MB: the server answered after at most the limit (plus what was in flight).
    assert.ok(res.sent < 64 * MIB, `sent ${res.sent} bytes`);
    const grown = rssOf(pid) - before;
    assert.ok(grown < 32 * MIB, `RSS grew by ${Math.round(grown / MIB)} MiB`);
    await stillServes();
  });
}

test('a list route given a 600 MB body is bounded the same, and the server serves on', async () => {
  const { base, pid } = state.bookstore!;
  const before = rssOf(pid);
  const res = await upload(`${base}/books`, { method: 'GET', body: 600 * MIB, contentLength: false });
  assert.is(res.status, 413, `${res.error} after ${res.sent} bytes`);
  assert.ok(res.sent < 64 * MIB, `sent ${res.sent} bytes`);
  assert.ok(rssOf(pid) - before < 32 * MIB);
  await stillServes();
});

test('a body within the limit on a list route is ignored: the answer comes from the query string', async () => {
  const res = await upload(`${state.bookstore!.base}/books?limit=1&fields=title`, {
    method: 'GET',
    body: Buffer.from('{"filter":"id eq 2"}'),
  });
  assert.is(res.status, 200, res.body);
  assert.equal(JSON.parse(res.body).items, [{ id: 1, title: 'The Left Hand of Darkness' }]);
});

test.run();
