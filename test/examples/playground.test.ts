/**
 * The bookstore's `/playground` in a real headless Chromium (puppeteer-core driving @sparticuz/chromium, which
 * ships its own browser and runs offline): a syntax error is underlined under the right characters as one types
 * (parsed in the browser, with UTF-8 byte positions turned into string indices) and a schema error from the server
 * too; a good filter shows the right rows and its SQL; Next follows the cursor to the end without gaps; the tenant
 * select changes the rows; a to-many relation's aggregates are completed in sort and filter, and sort the page;
 * nested selections are completed inside their parentheses and drawn readably in their
 * cells (objects as key/value lines, each item's page as a small table with its count and cursor), with each level's
 * SQL; facets are completed from describe(), checked in the browser and by the server (underlined at their byte), and
 * their buckets drawn beside the rows, a click on one adding its test to the filter; "copy as curl" writes the request; `/docs` renders the OpenAPI document. Both pages work
 * under their Content-Security-Policy (no violation is reported) and an injected inline script does not run. With
 * `/explain` off (the default), the playground still checks and lists, and says how to see the SQL. One browser for
 * the whole file, closed in `after`.
 *
 * SQLite only: the page runs in the browser and talks to the same HTTP API whatever the dialect, and that API
 * (the routes /explain, /openapi.json, /describe included) is tested on SQLite and PostgreSQL in bookstore.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closeSession, type RunningBookstore, startBookstore } from '../helpers/bookstore.ts';

const test = suite('playground in a real browser [sqlite]');
const state: {
  dir?: string;
  bookstore?: RunningBookstore;
  browser?: Browser;
  page?: Page | undefined;
  /** What the browser reported about Content-Security-Policy: every violation, on any page. */
  violations: string[];
} = { violations: [] };

test.before(async () => {
  try {
    state.dir = mkdtempSync(join(tmpdir(), 'listql-playground-'));
    // With /explain, which the page shows the SQL from.
    state.bookstore = await startBookstore({
      BOOKSTORE_SQLITE: join(state.dir, 'bookstore.sqlite'),
      BOOKSTORE_EXPLAIN: '1',
    });
    state.browser = await puppeteer.launch({
      executablePath: await chromium.executablePath(),
      args: chromium.args,
      headless: true,
    });
    state.page = await watchedPage();
    await state.page.goto(`${state.bookstore.base}/playground`);
    await settled();
  } catch (err) {
    // uvu reports a failed hook without its error: say what went wrong.
    console.error('playground: setup failed:', err);
    throw err;
  }
});

test.after(() => closeSession(state));

/** Open a tab that records every Content-Security-Policy violation and script error it reports. */
async function watchedPage(): Promise<Page> {
  const page = await state.browser!.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text()))
      state.violations.push(message.text());
  });
  page.on('pageerror', (err) => state.violations.push(String(err)));
  return page;
}

/** Wait until the page has checked (and, if valid, answered) the latest edit; return its state. */
async function settled(): Promise<string> {
  const page = state.page!;
  await page.waitForFunction(
    () => ['ok', 'error', 'invalid'].includes((globalThis as any).document.body.dataset.state ?? ''),
    {
      timeout: 15_000,
    },
  );
  return page.evaluate(() => (globalThis as any).document.body.dataset.state!);
}

/** Replace an input's text by typing it, key by key, as a user would. */
async function typeInto(selector: string, text: string): Promise<string> {
  const page = state.page!;
  await page.$eval(selector, (el) => {
    const input = el as any;
    input.value = '';
    input.dispatchEvent(new (globalThis as any).Event('input', { bubbles: true }));
  });
  if (text) await page.type(selector, text);
  return settled();
}

/** The error shown under `parameter`: the text before the underline, the underlined text, and the message. */
function errorOf(parameter: string): Promise<{ before: string; bad: string; message: string } | undefined> {
  return state.page!.$eval(`#${parameter}-error`, (box) => {
    const bad = box.querySelector('.bad');
    if (!bad) return box.textContent ? { before: '', bad: '', message: box.textContent } : undefined;
    const echo = bad.parentElement!;
    const before = bad.previousSibling?.textContent ?? '';
    return { before, bad: bad.textContent!, message: box.textContent!.slice(echo.textContent!.length) };
  });
}

function ids(): Promise<number[]> {
  return state.page!.$$eval('#rows tbody tr', (rows) => rows.map((row) => Number(row.children[0]!.textContent)));
}

async function select(selector: string, value: string): Promise<string> {
  await state.page!.select(selector, value);
  return settled();
}

test('a syntax error is underlined under the right characters, parsed in the browser', async () => {
  // 'ł' takes two bytes: the parser reports byte 25, which is character 24 (the second 'd' of `andd`).
  assert.is(await typeInto('#filter', "title eq 'Stanisław' andd year gt 1970"), 'invalid');
  assert.equal(await errorOf('filter'), {
    before: "title eq 'Stanisław' and",
    bad: 'd',
    message: "unexpected 'd'",
  });
  // No request was needed for that: the rows of the last valid request are gone, no SQL is shown.
  assert.is(await state.page!.$eval('#status', (el) => el.textContent), 'syntax error (checked in the browser)');
});

test('a schema error comes back from the server and is underlined at its byte position', async () => {
  // 'Łódź' is 4 characters and 7 bytes.
  assert.is(await typeInto('#filter', "title ne 'Łódź' and prce lt 15"), 'error');
  const error = await errorOf('filter');
  assert.is(error?.before, "title ne 'Łódź' and ");
  assert.is(error?.bad, 'prce');
  assert.match(error!.message, "unknown_field: unknown field 'prce'; did you mean 'price'?");
});

test('completion offers fields from describe(), then the operators of the field', async () => {
  await typeInto('#filter', 'au');
  const fields = await state.page!.$$eval('#filter-suggest button', (bs) => bs.map((b) => b.textContent));
  assert.equal(fields, ['author/name', 'author/born']);
  await state.page!.click('#filter-suggest button');
  await settled();
  const operators = await state.page!.$$eval('#filter-suggest button', (bs) => bs.map((b) => b.textContent));
  assert.equal(operators, ['eq', 'contains', 'startswith']);
  assert.is(await state.page!.$eval('#filter', (el) => (el as any).value), 'author/name ');
});

test("completion offers a to-many relation's aggregates in sort, and the page sorts by the one picked", async () => {
  await typeInto('#filter', '');
  await typeInto('#sort', '-reviews/c');
  const offered = await state.page!.$$eval('#sort-suggest button', (bs) => bs.map((b) => b.textContent));
  assert.equal(offered, ['reviews/count()']);
  await state.page!.click('#sort-suggest button');
  assert.is(await settled(), 'ok');
  // The `-` stays in front of the completed call.
  assert.is(await state.page!.$eval('#sort', (el) => (el as any).value), '-reviews/count()');
  // Most live reviews first (books 1 and 4 have two, book 5 none), ties by id.
  assert.equal(await ids(), [1, 4, 2, 3, 6, 7, 8, 5]);
  // In filter, the aggregates are offered beside the paths, then the comparisons of a number.
  await typeInto('#filter', 'reviews/');
  const calls = await state.page!.$$eval('#filter-suggest button', (bs) => bs.map((b) => b.textContent));
  assert.equal(calls, ['reviews/any(', 'reviews/all(', 'reviews/count()', 'reviews/avg(stars)', 'reviews/max(stars)']);
  await typeInto('#filter', 'reviews/avg(stars) ');
  const comparisons = await state.page!.$$eval('#filter-suggest button', (bs) => bs.map((b) => b.textContent));
  assert.equal(comparisons, ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'not in', 'is null', 'is not null']);
  await typeInto('#filter', '');
  await typeInto('#sort', '');
});

test('a good filter shows the right rows, their SQL and bound values', async () => {
  assert.is(await typeInto('#filter', 'price lt 15 and year gte 1970'), 'ok');
  assert.is(await typeInto('#sort', '-price'), 'ok');
  assert.equal(await ids(), [5, 4]);
  assert.is(await errorOf('filter'), undefined);
  const sql = await state.page!.$eval('#sql', (el) => el.textContent!);
  assert.match(sql, /-- data\nselect .* from `book` as `b` where `b`.`tenant` = \? .*order by `b`.`price` desc/);
  assert.match(sql, '-- values: [1,"15",1970,21]');
  assert.is(await state.page!.$eval('#has-more', (el) => el.textContent), 'false');
});

test('Next follows the cursor to the end without gaps or repeats', async () => {
  await typeInto('#filter', '');
  await typeInto('#sort', '-year');
  assert.is(await typeInto('#limit', '3'), 'ok');
  const seen: number[] = [...(await ids())];
  for (let pages = 1; !(await state.page!.$eval('#next', (el) => (el as any).disabled)); pages++) {
    assert.ok(pages < 10, 'the walk ends');
    await state.page!.click('#next');
    assert.is(await settled(), 'ok');
    seen.push(...(await ids()));
  }
  // Tenant 1's live books, newest first (book 9 is soft-deleted).
  assert.equal(seen, [6, 5, 7, 2, 4, 1, 3, 8]);
  assert.ok((await state.page!.$eval('#cursor', (el) => (el as any).value)).length > 10);
});

test('the tenant select changes the rows (and starts again at page one)', async () => {
  assert.is(await select('#tenant', '2'), 'ok');
  assert.is(await state.page!.$eval('#cursor', (el) => (el as any).value), '');
  assert.equal(await ids(), [12, 11, 10]);
  assert.is(await select('#tenant', '1'), 'ok');
  assert.equal(await ids(), [6, 5, 7]);
});

test('fields picks the columns, and its syntax is checked in the browser too', async () => {
  assert.is(await typeInto('#fields', 'title,,year'), 'invalid');
  assert.equal(await errorOf('fields'), {
    before: 'title,',
    bad: ',',
    message: "expected a field name, found ','",
  });
  assert.is(await typeInto('#fields', 'title'), 'ok');
  // The primary key always comes along.
  assert.equal(await state.page!.$$eval('#rows thead th', (ths) => ths.map((th) => th.textContent)), ['id', 'title']);
  await typeInto('#fields', '');
});

test('nested selection: completion inside parentheses, objects and per-item pages drawn in their cells, their SQL', async () => {
  const page = state.page!;
  const suggestions = () => page.$$eval('#fields-suggest button', (bs) => bs.map((b) => b.textContent));
  // At the root, a selectable relation is offered with its parenthesis; inside it, the related entity's names.
  await typeInto('#fields', 'title,rev');
  assert.equal(await suggestions(), ['reviews(']);
  await typeInto('#fields', 'title,author(');
  assert.equal(await suggestions(), ['id', 'name', 'born']);
  await typeInto('#fields', 'title,author(name),reviews(reviewer,stars)');
  await typeInto('#nested', 'reviews.limit=1&reviews.count=true');
  assert.is(await typeInto('#filter', 'id in (1, 5)'), 'ok');
  assert.equal(await page.$$eval('#rows > thead th', (ths) => ths.map((th) => th.textContent)), [
    'id',
    'title',
    'author',
    'reviews',
  ]);
  const cells = await page.$$eval('#rows > tbody > tr', (rows) =>
    rows.map((row) => {
      const [, , author, reviews] = [...row.children];
      return {
        author: [...author!.querySelectorAll('dt, dd')].map((e) => e.textContent),
        reviews: [...reviews!.querySelectorAll('table.nested tbody tr')].map((tr) =>
          [...tr.children].map((td) => td.textContent),
        ),
        info: reviews!.querySelector('.page-info')?.textContent,
      };
    }),
  );
  // The order of the page: -year, as the walk above left it (1979 before 1969).
  assert.equal(cells[0], {
    author: ['id', '2', 'name', 'Italo Calvino'],
    reviews: [],
    info: '0 of 0 · hasMore: false',
  });
  assert.equal(cells[1]!.author, ['id', '1', 'name', 'Ursula K. Le Guin']);
  assert.equal(cells[1]!.reviews, [['1', 'ana', '5']]);
  assert.match(cells[1]!.info!, /^1 of 2 · hasMore: true · nextCursor: [A-Za-z0-9_-]+$/);
  // Each level is one statement for all its parents; the playground lists them after the top page's.
  const sql = await page.$eval('#sql', (el) => el.textContent!);
  assert.match(sql, '-- author\n');
  assert.match(sql, /-- reviews\nselect .*row_number\(\) over/);
  assert.match(sql, '-- reviews (count)\n');

  // A nested list's parameter error, from the server, underlined inside its value in the field.
  assert.is(await typeInto('#nested', 'reviews.limit=1&reviews.filter=stars gt(3)'), 'error');
  assert.equal(await errorOf('nested'), {
    before: 'reviews.limit=1&reviews.filter=stars gt',
    bad: '(',
    message: "reviews.filter: invalid_syntax: expected whitespace before '('",
  });
  await typeInto('#nested', '');
  await typeInto('#fields', '');
});

test('facets: completion, buckets beside the rows, a click adds the bucket to the filter, errors underlined', async () => {
  const page = state.page!;
  const suggestions = () => page.$$eval('#facets-suggest button', (bs) => bs.map((b) => b.textContent));
  const facets = () =>
    page.$$eval('#facet-buckets section', (sections) =>
      Object.fromEntries(
        sections.map((section) => [
          (section as any).dataset.facet,
          [...section.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)),
        ]),
      ),
    );
  const clickBucket = async (facet: string, value: string) => {
    const buttons = await page.$$(`#facet-buckets section[data-facet="${facet}"] button.bucket`);
    for (const button of buttons)
      if ((await button.evaluate((b) => b.textContent)) === value) {
        await button.click();
        return settled();
      }
    throw new Error(`no bucket ${value} in ${facet}`);
  };
  const filter = () => page.$eval('#filter', (el) => (el as any).value);
  await typeInto('#filter', '');
  assert.is(await page.$eval('#facets-list', (el) => (el as any).hidden), true, 'no facets asked, none shown');
  // The names describe() lists, the ones already named left out.
  await typeInto('#facets', 'ye');
  assert.equal(await suggestions(), ['year']);
  await typeInto('#facets', 'year:2, ');
  assert.equal(await suggestions(), ['author', 'publisher', 'tags']);
  assert.is(await typeInto('#facets', 'year:2, author,tags'), 'ok');
  // Beside the rows (limit 3, newest first, as the walk above left them): tenant 1's live books by facet.
  assert.equal(await ids(), [6, 5, 7]);
  assert.equal(await facets(), {
    year: [
      ['1961', '1'],
      ['1968', '1'],
    ],
    author: [
      ['1', 'Ursula K. Le Guin', '3'],
      ['2', 'Italo Calvino', '2'],
      ['3', 'Toni Morrison', '2'],
      ['4', 'Stanisław Lem', '1'],
    ],
    tags: [
      ['1', 'classic', '4'],
      ['2', 'science-fiction', '3'],
      ['3', 'fantasy', '1'],
    ],
  });
  assert.match(await page.$eval('#sql', (el) => el.textContent!), /-- facet tags\nselect .* group by /);

  // A click picks the bucket: the author's name (the nested policy filters on it, not on the key).
  assert.is(await clickBucket('author', '1'), 'ok');
  assert.is(await filter(), "author/name eq 'Ursula K. Le Guin'");
  assert.equal(await ids(), [2, 1, 3]);
  const picked = await facets();
  // Cross-filtered: the author facet still counts every author; the others count Le Guin's books.
  assert.equal(picked.author!.length, 4);
  assert.equal(picked.tags, [
    ['1', 'classic', '2'],
    ['2', 'science-fiction', '2'],
    ['3', 'fantasy', '1'],
  ]);
  // A to-many facet's bucket through any(…); a second value of it widens that test into an in list.
  assert.is(await clickBucket('tags', '3'), 'ok');
  assert.is(await filter(), "author/name eq 'Ursula K. Le Guin' and tags/any(t: t/name eq 'fantasy')");
  assert.equal(await ids(), [3]);
  assert.is(await clickBucket('tags', '2'), 'ok');
  assert.is(
    await filter(),
    "author/name eq 'Ursula K. Le Guin' and tags/any(t: t/name in ('fantasy', 'science-fiction'))",
  );
  assert.equal(await ids(), [2, 1, 3]);

  // Syntax, checked in the browser; then a name only the server knows is wrong, underlined at its byte.
  assert.is(await typeInto('#facets', 'year:0'), 'invalid');
  assert.equal(await errorOf('facets'), {
    before: 'year:',
    bad: '0',
    message: 'a facet count is a positive number without leading zeros',
  });
  assert.is(await typeInto('#facets', 'year, autor'), 'error');
  assert.equal(await errorOf('facets'), {
    before: 'year, ',
    bad: 'autor',
    message: "unknown_field: unknown field 'autor'; did you mean 'author'?",
  });
  assert.is(await page.$eval('#facets-list', (el) => (el as any).hidden), true);
  await typeInto('#facets', '');
  await typeInto('#filter', '');
});

test('copy as curl writes the request the page shows, tenant header included', async () => {
  await select('#tenant', '2');
  await typeInto('#filter', "title ne 'it''s'");
  await state.page!.click('#copy-curl');
  const curl = await state.page!.$eval('#curl', (el) => el.textContent!);
  assert.is(
    curl,
    `curl -sG -H 'x-tenant: 2' '${state.bookstore!.base}/books' --data-urlencode 'filter=title ne '\\''it'\\'''\\''s'\\''' ` +
      `--data-urlencode 'sort=-year' --data-urlencode 'limit=3'`,
  );
});

test('/docs renders the API reference from /openapi.json: both endpoints, their parameters and items', async () => {
  const page = state.page!;
  await page.goto(`${state.bookstore!.base}/docs`);
  await page.waitForFunction(() => (globalThis as any).document.body.dataset.state === 'ok', { timeout: 15_000 });
  const headings = await page.$$eval('h2', (hs) => hs.map((h) => h.textContent));
  assert.equal(headings, ['GET/books', 'GET/authors', 'Errors']);
  const books = await page.$eval('#listBooks', (section) => section.textContent!);
  for (const text of ['filter', 'integer, 0..100, default 20', 'Items: BooksItem', 'price', 'number'])
    assert.ok(books.includes(text), text);
  // Nested selections: the author key or object, the reviews' page and items, and their path-named parameters.
  for (const text of [
    'integer | BooksAuthorItem | null',
    'Nested: BooksReviewsPage',
    'Nested: BooksReviewsItem',
    'reviews.limitinteger, 0..20, default 3',
  ])
    assert.ok(books.includes(text), text);
  const errors = await page.$eval('#errors + section', (section) => section.textContent!);
  assert.match(errors, 'one of: "invalid_parameter", "invalid_token"');
});

test('both pages ran under their policy without a violation, and an injected inline script does not run', async () => {
  const page = state.page!;
  assert.equal(state.violations, []);
  for (const path of ['/playground', '/docs']) {
    const res = await page.goto(`${state.bookstore!.base}${path}`);
    assert.match(res!.headers()['content-security-policy'] ?? '', "script-src 'self'");
    // As injected markup would: a script element with inline code, added to the page.
    await page.evaluate(() => {
      const script = (globalThis as any).document.createElement('script');
      script.textContent = 'globalThis.injected = true';
      (globalThis as any).document.body.append(script);
    });
    assert.is(await page.evaluate(() => (globalThis as any).injected), undefined, path);
    assert.ok(
      state.violations.some((v) => v.includes('inline script')),
      state.violations.join('\n'),
    );
    state.violations = [];
  }
});

test('with /explain off, the playground lists and underlines schema errors, and says how to see the SQL', async () => {
  const bookstore = await startBookstore({ BOOKSTORE_SQLITE: join(state.dir!, 'bookstore.sqlite') });
  const page = await watchedPage();
  const previous = state.page;
  state.page = page;
  try {
    await page.goto(`${bookstore.base}/playground`);
    assert.is(await settled(), 'ok');
    assert.is(await typeInto('#filter', 'price lt 15 and year gte 1970'), 'ok');
    assert.is(await typeInto('#sort', '-price'), 'ok');
    assert.equal(await ids(), [5, 4]);
    const sql = await page.$eval('#sql', (el) => el.textContent!);
    assert.is(sql, 'SQL not shown: /explain is off. Start the bookstore with BOOKSTORE_EXPLAIN=1 to see it.');
    assert.is(await typeInto('#filter', 'prce lt 15'), 'error');
    assert.equal(await errorOf('filter'), {
      before: '',
      bad: 'prce',
      message: "unknown_field: unknown field 'prce'; did you mean 'price'?",
    });
    assert.equal(state.violations, []);
  } finally {
    state.page = previous;
    await page.close();
    await bookstore.stop();
  }
});

test.run();
