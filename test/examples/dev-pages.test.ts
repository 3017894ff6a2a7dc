/**
 * The bookstore's developer pages are safe to leave on: `examples/bookstore/main.ts` as a child process on
 * 127.0.0.1. `/playground` and `/docs` send a Content-Security-Policy that allows only their own script, style sheet
 * and requests (no inline code, no framing), and load nothing inline; every developer route's answer says
 * `nosniff` and `frame-ancestors 'none'`. `/explain/…` (the SQL of a request, hidden columns included) is off unless
 * BOOKSTORE_EXPLAIN=1, which the start-up output announces; `/describe` tells the playground which it is.
 *
 * SQLite only: these are headers and routes, the same whatever the database (the pages in a real browser, under
 * their policy, are in playground.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type RunningBookstore, startBookstore } from '../helpers/bookstore.ts';

const test = suite('bookstore developer pages [sqlite]');
const state: { dir?: string; off?: RunningBookstore; on?: RunningBookstore } = {};

test.before(async () => {
  state.dir = mkdtempSync(join(tmpdir(), 'listql-dev-pages-'));
  const file = join(state.dir, 'bookstore.sqlite');
  // One after the other: the first creates and seeds the file the second reuses.
  state.off = await startBookstore({ BOOKSTORE_SQLITE: file });
  state.on = await startBookstore({ BOOKSTORE_SQLITE: file, BOOKSTORE_EXPLAIN: '1' });
});

test.after(async () => {
  await state.off?.stop();
  await state.on?.stop();
  if (state.dir) rmSync(state.dir, { recursive: true, force: true });
});

/** The directives of a Content-Security-Policy header, by name. */
function directives(header: string | null): Map<string, string> {
  return new Map(
    (header ?? '')
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => [d.split(/\s+/)[0]!, d.slice(d.indexOf(' ') + 1)] as const),
  );
}

for (const path of ['/playground', '/docs']) {
  test(`${path}: a policy of its own script, style sheet and requests only, no framing, no sniffing`, async () => {
    const res = await fetch(`${state.off!.base}${path}`);
    assert.is(res.status, 200);
    const csp = directives(res.headers.get('content-security-policy'));
    assert.is(csp.get('default-src'), "'none'");
    assert.is(csp.get('script-src'), "'self'");
    assert.is(csp.get('style-src'), "'self'");
    assert.is(csp.get('connect-src'), "'self'");
    assert.is(csp.get('frame-ancestors'), "'none'");
    assert.is(csp.get('base-uri'), "'none'");
    assert.is(res.headers.get('x-content-type-options'), 'nosniff');
    assert.is(res.headers.get('x-frame-options'), 'DENY');
    // Nothing the policy would block: no inline script, style element or style attribute, nothing from elsewhere.
    const html = await res.text();
    assert.not.match(html, /<script(?![^>]*\bsrc=)/);
    assert.not.match(html, /<style|\sstyle=|\son[a-z]+=/);
    assert.not.match(html, /(src|href)="(https?:)?\/\//);
    assert.match(html, `<link rel="stylesheet" href="${path}.css">`);
    const css = await fetch(`${state.off!.base}${path}.css`);
    assert.is(css.status, 200);
    assert.is(css.headers.get('content-type'), 'text/css; charset=utf-8');
  });
}

for (const path of ['/openapi.json', '/describe', '/docs.js', '/playground.js', '/docs.css'])
  test(`${path}: nosniff, and a policy that runs and frames nothing`, async () => {
    const res = await fetch(`${state.off!.base}${path}`);
    assert.is(res.status, 200);
    assert.is(res.headers.get('x-content-type-options'), 'nosniff');
    const csp = directives(res.headers.get('content-security-policy'));
    assert.is(csp.get('default-src'), "'none'");
    assert.is(csp.get('frame-ancestors'), "'none'");
  });

test('/explain is off by default: 404, /describe says so, and the start-up output does not offer it', async () => {
  const { base, output } = state.off!;
  for (const path of ['/explain/books', '/explain/authors']) {
    const res = await fetch(`${base}${path}?filter=price%20lt%2015`);
    assert.is(res.status, 404, path);
    assert.not.match(await res.text(), /select|price/i);
  }
  assert.is(((await (await fetch(`${base}/describe`)).json()) as any).explain, false);
  assert.not.match(output(), /explain/i);
});

test('BOOKSTORE_EXPLAIN=1 serves /explain, with the same safety headers, and says so on start-up', async () => {
  const { base, output } = state.on!;
  const res = await fetch(`${base}/explain/books?filter=price%20lt%2015`);
  assert.is(res.status, 200);
  assert.match(((await res.json()) as any).data.sql, /select .* from `book`/);
  assert.is(res.headers.get('x-content-type-options'), 'nosniff');
  assert.is(directives(res.headers.get('content-security-policy')).get('frame-ancestors'), "'none'");
  assert.is(((await (await fetch(`${base}/describe`)).json()) as any).explain, true);
  assert.match(output(), `BOOKSTORE_EXPLAIN=1: ${base.replace('127.0.0.1', 'localhost')}/explain/books`);
});

test.run();
