/**
 * What `import('listql')` starts in the published package: scripts/build.ts defers ohm-js (it builds its own grammars
 * and Unicode tables as it loads) to the first invalid filter, and node:crypto and node:util (whose ES namespaces
 * load all of crypto, streams and worker_threads) to their first call. A fresh process with MikroORM loaded imports
 * the built dist/ (cold-import-child.ts): the import must start none of them, and each deferred part must still
 * work when it is reached: Ohm's precise error, and signed and sealed cursors walked page by page. SQLite only:
 * this is about module loading, which does not depend on the dialect. The built files must also be plain ASCII.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { builtPackage } from './built-package.ts';

const CHILD = fileURLToPath(new URL('cold-import-child.ts', import.meta.url));

interface ChildReport {
  startedByImport: string[];
  regexesAtImport: number;
  regexesAfterValid: number;
  regexesAfterInvalid: number;
  invalid: unknown;
  signed: number[];
  sealed: number[];
}

/** One build for both tests (when dist/ is stale), in a scratch folder removed after them. */
const scratch = mkdtempSync(join(tmpdir(), 'listql-cold-'));
let built: string | undefined;
const dist = () => {
  built ??= builtPackage(scratch);
  return join(built, 'dist');
};
test.after(() => rmSync(scratch, { recursive: true, force: true }));

test('importing the built package defers ohm-js, node:crypto and node:util, and each works once reached', () => {
  const entry = pathToFileURL(join(dist(), 'index.js')).href;
  const run = spawnSync(process.execPath, [CHILD, entry], { encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout) as ChildReport;
  assert.equal(out.startedByImport, [], 'the import loaded node:crypto or worker_threads');
  assert.is(out.regexesAtImport, 0, 'ohm-js started at import');
  assert.is(out.regexesAfterValid, 0, 'ohm-js started for a valid filter');
  // The count can see ohm-js start: otherwise the two checks above could not fail.
  assert.ok(out.regexesAfterInvalid > 0, 'ohm-js never started for an invalid filter');
  assert.equal(out.invalid, {
    code: 'invalid_syntax',
    message: 'unexpected end of input',
    parameter: 'filter',
    position: { offset: 8, line: 1, column: 9 },
  });
  assert.equal(out.signed, [2, 1, 3]);
  assert.equal(out.sealed, [2, 1, 3]);
});

test('every JavaScript file of the built package is plain ASCII, so Node reads it as one-byte text', () => {
  // One non-ASCII character (say a `≤` in a comment) makes Node decode a whole file into two-byte text for V8,
  // which cost a sixth of `import('listql')`: scripts/build.ts respells such characters in comments.
  const wide: string[] = [];
  for (const entry of readdirSync(dist(), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js') || entry.parentPath.endsWith('client')) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    const at = text.search(/[^\x00-\x7f]/u);
    if (at >= 0) wide.push(`${entry.name}: ${JSON.stringify(text.slice(Math.max(0, at - 30), at + 10))}`);
  }
  assert.equal(wide, []);
});

test.run();
