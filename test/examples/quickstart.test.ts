/**
 * The lower-level path example (`npm run quickstart`: parseHTTP → bind → apply → execute on an in-memory SQLite
 * catalog) runs to the end and answers each request as its comments promise. The same path on every database is
 * covered by test/plan/apply.test.ts; this keeps the example itself honest.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('npm run quickstart prints SQL with placeholders, the right rows and located errors', () => {
  const run = spawnSync(process.execPath, ['examples/quickstart/main.ts'], { cwd: ROOT, encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  const blocks = run.stdout.split('\nGET ').slice(1);
  assert.is(blocks.length, 6);
  const rows = (block: string) => [...block.matchAll(/→ #(\d+)/g)].map((m) => Number(m[1]));
  assert.equal(rows(blocks[0]!), [1, 2]); // books under 20, by price descending
  assert.equal(rows(blocks[1]!), [2, 1, 4]); // 'Pro' in the name or no stock, by name, limit 3
  assert.equal(rows(blocks[2]!), [3, 5]); // games or music with stock not over 5
  assert.equal(rows(blocks[3]!), []); // the injection attempt is a plain string
  assert.match(blocks[3]!, /params \["x' OR 1=1 --",20\]/);
  assert.not.match(blocks[3]!, /SQL .*OR 1=1/);
  assert.match(blocks[4]!, /"code":"invalid_syntax".*"offset":8/);
  assert.match(blocks[5]!, /"code":"unknown_field"/);
});

test.run();
