/**
 * `listql/client` in a real headless Chromium (puppeteer-core driving @sparticuz/chromium, which runs offline): a page
 * script bundled by esbuild from a module that imports the bookstore's policy type-only (the bundle holds listql's
 * client and nothing else of it) walks `/books` of the real bookstore by its cursors with the browser's own fetch and
 * URLSearchParams, with a nested selection under an alias and a filter with a quoted string, then reads a refused
 * request as a typed ListClientError. SQLite only: the page talks HTTP, and the same requests run against every
 * database in bookstore.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import chromium from '@sparticuz/chromium';
import { build } from 'esbuild';
import puppeteer, { type Browser } from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closeSession, type RunningBookstore, startBookstore } from '../helpers/bookstore.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const test = suite('listql/client in a real browser [sqlite]');
const state: { dir?: string; bookstore?: RunningBookstore; browser?: Browser; script?: string; inputs?: string[] } = {};

test.before(async () => {
  try {
    state.dir = mkdtempSync(join(tmpdir(), 'listql-client-browser-'));
    const bundle = await build({
      absWorkingDir: ROOT,
      entryPoints: ['test/client/browser-app.ts'],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    state.script = bundle.outputFiles[0]!.text;
    state.inputs = Object.keys(bundle.metafile.inputs).sort();
    state.bookstore = await startBookstore({ BOOKSTORE_SQLITE: join(state.dir, 'bookstore.sqlite') });
    state.browser = await puppeteer.launch({
      executablePath: await chromium.executablePath(),
      args: chromium.args,
      headless: true,
    });
  } catch (err) {
    // uvu reports a failed hook without its error: say what went wrong.
    console.error('client browser test: setup failed:', err);
    throw err;
  }
});

test.after(() => closeSession(state));

test('the page bundle holds the client and the page script only', () => {
  assert.ok(state.inputs!.length > 3);
  assert.equal(
    state.inputs!.filter((f) => !f.startsWith('src/client/') && f !== 'test/client/browser-app.ts'),
    [],
  );
});

test('a page walks the bookstore by cursors with a nested selection, and reads a refused request', async () => {
  const page = await state.browser!.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(String(err)));
  try {
    // The bookstore's own origin, so the page's requests are same-origin; the script is added as the page's own.
    await page.setBypassCSP(true);
    await page.goto(`${state.bookstore!.base}/playground`);
    await page.addScriptTag({ content: state.script! });
    const result = await page.evaluate(
      (base) => (globalThis as any).listqlJourney(base) as Promise<unknown>,
      state.bookstore!.base,
    );
    assert.equal(result, {
      query:
        'fields=title%2Cauthor%28name%29%2Cbest%3Areviews%28reviewer%2Cstars%29' +
        '&filter=title+ne+%27it%27%27s%27+and+%28year+lt+1970+or+author%2Fname+startswith+%27Toni%27%29' +
        '&sort=-year&limit=2&best.sort=-stars&best.limit=1&best.count=true',
      // Tenant 1, newest first: Toni Morrison's two books, then the three before 1970 (book 9 is deleted).
      pages: [
        [
          { id: 6, title: 'Beloved', author: 'Toni Morrison', best: ['gus 5'], reviews: 1 },
          { id: 7, title: 'Song of Solomon', author: 'Toni Morrison', best: ['ivy 3'], reviews: 1 },
        ],
        [
          { id: 1, title: 'The Left Hand of Darkness', author: 'Ursula K. Le Guin', best: ['ana 5'], reviews: 2 },
          { id: 3, title: 'A Wizard of Earthsea', author: 'Ursula K. Le Guin', best: ['dee 5'], reviews: 1 },
        ],
        [{ id: 8, title: 'Solaris', author: 'Stanisław Lem', best: ['jo 2'], reviews: 1 }],
      ],
      error: { typed: true, status: 400, code: 'operator_not_allowed', parameter: 'filter', offset: 6 },
    });
    assert.equal(problems, []);
  } finally {
    await page.close();
  }
});

test.run();
