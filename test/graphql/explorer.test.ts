/**
 * The bookstore's `GET /graphql` from a browser serves the GraphQL explorer page (no network resources), while
 * GraphQL clients keep graphql-http's answers: a GET with `?query=` executes, a GET that wants JSON and has no query
 * is still 400. Then in a real headless Chromium (puppeteer-core driving @sparticuz/chromium, offline): an example
 * runs and shows its books with their author keys, the facets example its counts, a bad argument shows its error
 * beside a sibling's data, and the tenant select changes the rows.
 *
 * SQLite only: the page talks to the same /graphql whatever the dialect, and the schema's behaviour is tested on
 * every dialect in the other graphql test files.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closeSession, type RunningBookstore, startBookstore } from '../helpers/bookstore.ts';

const test = suite('graphql explorer [sqlite]');
const state: { dir?: string; bookstore?: RunningBookstore; browser?: Browser; page?: Page } = {};
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

test.before(async () => {
  try {
    state.dir = mkdtempSync(join(tmpdir(), 'listql-graphql-explorer-'));
    state.bookstore = await startBookstore({ BOOKSTORE_SQLITE: join(state.dir, 'bookstore.sqlite') });
  } catch (err) {
    console.error('graphql explorer: setup failed:', err);
    throw err;
  }
});

test.after(() => closeSession(state));

test('GET /graphql from a browser: the explorer page, with the SDL and no external resource', async () => {
  const res = await fetch(`${state.bookstore!.base}/graphql`, { headers: { accept: BROWSER_ACCEPT } });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  const html = await res.text();
  assert.match(html, /<title>listql GraphQL explorer/);
  assert.match(html, /type Book \{[^}]*authorId: Int!/);
  assert.match(html, /books\(/);
  assert.not.match(html, /(src|href)="https?:/);
});

test('GraphQL clients keep their answers: GET ?query= executes, GET without a query is 400, POST executes', async () => {
  const base = state.bookstore!.base;
  const query = encodeURIComponent('{ books(first: 2, sort: "id") { nodes { id authorId publisherId } } }');
  for (const accept of ['application/graphql-response+json', 'application/json', BROWSER_ACCEPT]) {
    const got = await fetch(`${base}/graphql?query=${query}`, { headers: { accept } });
    assert.is(got.status, 200, accept);
    const body = (await got.json()) as any;
    assert.is(body.data.books.nodes.length, 2);
    assert.is(typeof body.data.books.nodes[0].authorId, 'number');
  }
  const missing = await fetch(`${base}/graphql`, { headers: { accept: 'application/json' } });
  assert.is(missing.status, 400);
  const posted = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: '{ authors(last: 1, sort: "id") { nodes { id } pageInfo { hasPreviousPage } } }' }),
  });
  const answer = (await posted.json()) as any;
  assert.is(answer.data.authors.pageInfo.hasPreviousPage, true);
});

/** Run what the editor holds and wait for the answer; return the page's state and the parsed answer. */
async function run(): Promise<{ state: string; answer: any }> {
  const page = state.page!;
  await page.evaluate(() => {
    (globalThis as any).document.body.dataset.state = 'idle';
  });
  await page.click('#run');
  await page.waitForFunction(() => ['ok', 'error'].includes((globalThis as any).document.body.dataset.state), {
    timeout: 15_000,
  });
  const text = await page.$eval('#result', (el) => el.textContent ?? '');
  return {
    state: await page.evaluate(() => (globalThis as any).document.body.dataset.state as string),
    answer: JSON.parse(text),
  };
}

test('in a browser: an example runs, an error shows beside its sibling, the tenant changes the rows', async () => {
  state.browser = await puppeteer.launch({
    executablePath: await chromium.executablePath(),
    args: chromium.args,
    headless: true,
  });
  const page = await state.browser.newPage();
  state.page = page;
  const external: string[] = [];
  page.on('request', (req) => {
    if (!req.url().startsWith(state.bookstore!.base)) external.push(req.url());
  });
  await page.goto(`${state.bookstore!.base}/graphql`);
  const first = await run();
  assert.is(first.state, 'ok');
  const books = first.answer.data.books;
  assert.is(books.nodes.length, 3);
  assert.ok(books.nodes.every((n: any) => typeof n.authorId === 'number'));

  // Facets beside the page: each author's books after 1968, whoever the page shows.
  await page.select('#example', 'Facets: counts beside the page');
  const faceted = await run();
  assert.is(faceted.state, 'ok');
  assert.is(faceted.answer.data.books.nodes.length, 2);
  assert.equal(
    faceted.answer.data.books.facets.author.map((b: any) => `${b.label} ${b.count}`),
    ['Ursula K. Le Guin 2', 'Italo Calvino 2', 'Toni Morrison 2'],
  );
  assert.is(faceted.answer.data.books.facets.tags.length, 2);

  await page.select('#example', 'One bad field, one good');
  const mixed = await run();
  assert.is(mixed.state, 'error');
  assert.is(mixed.answer.data.bad, null);
  assert.is(mixed.answer.data.authors.nodes.length, 2);
  assert.is(mixed.answer.errors[0].extensions.code, 'invalid_syntax');

  await page.$eval('#query', (el) => {
    (el as any).value = '';
  });
  await page.type('#query', '{ authors(first: 50) { nodes { id name } } }');
  const one = await run();
  await page.select('#tenant', '2');
  const two = await run();
  assert.is(one.state, 'ok');
  assert.is(two.state, 'ok');
  const ids = (answer: any) => answer.data.authors.nodes.map((n: any) => n.id);
  assert.ok(ids(one.answer).length > 0 && ids(two.answer).length > 0);
  assert.not.ok(
    ids(one.answer).some((id: number) => ids(two.answer).includes(id)),
    'tenants share no author',
  );
  assert.equal(external, []);
});

test.run();
