/**
 * The TypeScript snippets of README.md and docs/ compile against the sources (scripts/check-docs.ts), so a renamed
 * export, a changed signature or a missing import in a snippet fails the tests. The checker itself is checked on
 * pages made here: it finds the errors a rotten snippet has, at the page's line, and honours its conventions
 * (hidden preamble, skip with a reason, file names, `@ts-expect-error`).
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkSnippets, defaultPages } from '../../scripts/check-docs.ts';
import { extractSnippets } from '../../scripts/check-docs-extract.ts';

const ROOT = new URL('../..', import.meta.url);

test('every TypeScript block of README.md and docs/ compiles', async () => {
  const pages = defaultPages().map((name) => ({ name, markdown: readFileSync(new URL(name, ROOT), 'utf8') }));
  assert.ok(pages.length > 10 && pages[0]?.name === 'README.md');
  const { errors, checked, skipped } = await checkSnippets(pages);
  assert.equal(
    errors.map((e) => `${e.where} ${e.message}`),
    [],
  );
  assert.ok(checked >= 25, `only ${checked} blocks checked`);
  assert.ok(skipped.length <= 2, 'skips stay rare');
});

test('extraction: ts and typescript blocks only, with their page line, preamble, skip and file name', () => {
  const page = [
    '# Page', // 1
    '```sh', // 2
    'npm i listql', // 3
    '```', // 4
    '<!-- ts-preamble: declare const x: number; -->', // 5
    '```ts', // 6
    'x + 1;', // 7
    '```', // 8
    '<!-- ts-skip: pseudo-code -->', // 9
    '```typescript', // 10
    'not code', // 11
    '```', // 12
    '- item', // 13
    '  ```ts', // 14
    '  // a.module.ts', // 15
    '  export const a = 1;', // 16
    '  ```', // 17
  ].join('\n');
  const [first, second, third, ...rest] = extractSnippets('p.md', page);
  assert.equal(rest, []);
  assert.equal(first, {
    page: 'p.md',
    line: 7,
    code: 'x + 1;',
    preamble: 'declare const x: number;',
    fileName: undefined,
    skip: undefined,
  });
  assert.is(second?.skip, 'pseudo-code');
  assert.is(second?.line, 11);
  assert.is(third?.fileName, 'a.module.ts');
  assert.is(third?.line, 15);
});

test('the checker reports rotten snippets at their page line, and honours its conventions', async () => {
  const rotten = [
    '```ts', // 1
    "import { createEngine, notAnExport } from 'listql';", // 2
    '', // 3
    'const books = createEngine(orm, { policy: bookPolicy, maxLimt: 5 });', // 4
    'undeclared(books, notAnExport);', // 5
    '```', // 6
    '<!-- ts-preamble', // 7
    "import type { Engine } from 'listql';", // 8
    'declare const shelf: Engine;', // 9
    '-->', // 10
    '```ts', // 11
    'shelf.from(base).list({ limit: true });', // 12
    '```', // 13
    '<!-- ts-skip: shows a shape, not code -->', // 14
    '```ts', // 15
    '{ items: […], page: {…} }', // 16
    '```', // 17
    '```ts', // 18
    "import { ListError } from 'listql';", // 19
    '// @ts-expect-error: a wrong code', // 20
    "new ListError('no_such_code', 'x');", // 21
    '// @ts-expect-error: but this line compiles', // 22
    "new ListError('invalid_cursor', 'x');", // 23
    '```', // 24
  ].join('\n');
  const modules = [
    '```ts',
    '// shelf.service.ts',
    'export const shelfSize = 3;',
    '```',
    '```ts',
    "import { shelfSize } from './shelf.service';",
    "import { Book } from './entities';",
    'export const half: number = shelfSize / 2 + new Book().year;',
    '```',
  ].join('\n');
  const { errors, checked, skipped } = await checkSnippets([
    { name: 'docs/rotten.md', markdown: rotten },
    { name: 'docs/modules.md', markdown: modules },
  ]);
  assert.is(checked, 5);
  assert.equal(
    skipped.map((s) => `${s.page}:${s.line} ${s.skip}`),
    ['docs/rotten.md:16 shows a shape, not code'],
  );
  const found = errors.map((e) => `${e.where} ${/error (TS\d+)/.exec(e.message)?.[1]}`).sort();
  assert.equal(found, [
    'docs/rotten.md:12:25 TS2322', // limit: true (the preamble's lines are not counted)
    'docs/rotten.md:22:1 TS2578', // an unused @ts-expect-error
    'docs/rotten.md:2:24 TS2305', // no such export
    'docs/rotten.md:4:55 TS2561', // maxLimt is no option (did you mean maxLimit?)
    'docs/rotten.md:5:1 TS2304', // undeclared name
  ]);
});

test.run();
