import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ERROR_STATUS,
  ERROR_TABLE,
  type ErrorCode,
  errorAtPosition,
  executionFailed,
  invalidCursor,
  invalidParameter,
  invalidSchema,
  limitExceeded,
  queryFailed,
  queryTimeout,
} from '../../src/errors.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The rows of the first table of docs/errors.md whose header starts `| code | HTTP |`: [code, status] pairs. */
function documentedCodes(): [string, number][] {
  const lines = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8').split('\n');
  const header = lines.findIndex((line) => /^\|\s*code\s*\|\s*HTTP\s*\|/.test(line));
  assert.ok(header >= 0, 'docs/errors.md has a table headed | code | HTTP |');
  const rows: [string, number][] = [];
  // A table ends at the first line that is not a row: a blank line there would cut it short.
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [code, status] = line
      .split('|')
      .slice(1, 3)
      .map((cell) => cell.trim());
    rows.push([code!.replace(/^`|`$/g, ''), Number(status)]);
  }
  return rows;
}

test('docs/errors.md lists every code of the error table, in its order, with its HTTP status', () => {
  const inCode = Object.entries(ERROR_TABLE).map(([code, row]): [string, number] => [code, row.status]);
  assert.equal(documentedCodes(), inCode);
});

test('ERROR_STATUS is the status column of the error table', () => {
  assert.equal(ERROR_STATUS, Object.fromEntries(Object.entries(ERROR_TABLE).map(([code, row]) => [code, row.status])));
  for (const [code, row] of Object.entries(ERROR_TABLE)) {
    assert.match(row.description, /^[A-Za-z].*\.$/, `${code}: one sentence`);
    assert.ok(row.status === 400 || row.status === 500 || row.status === 503, code);
  }
});

test('each factory builds its code, byte for byte as before', () => {
  const rows: [ReturnType<typeof invalidSchema>, ErrorCode, string][] = [
    [invalidSchema('bad'), 'invalid_schema', 'bad'],
    [invalidParameter('limit', 'bad'), 'invalid_parameter', 'bad'],
    [invalidCursor('bad'), 'invalid_cursor', 'bad'],
    [limitExceeded('too long'), 'limit_exceeded', 'too long'],
    [executionFailed('failed'), 'execution_failed', 'failed'],
    [queryFailed(new Error('driver')), 'execution_failed', 'the query failed'],
    [
      queryTimeout(5000, new Error('canceled')),
      'query_timeout',
      'the query ran longer than 5000 ms and was stopped: try a cheaper request (a narrower filter, fewer relationship conditions or sort keys, or no count)',
    ],
  ];
  for (const [err, code, message] of rows) {
    assert.is(err.code, code);
    assert.is(err.message, message);
    assert.is(err.status, ERROR_STATUS[code]);
  }
  assert.equal(limitExceeded('x', 'limit').toJSON(), { code: 'limit_exceeded', message: 'x', parameter: 'limit' });
  assert.is(queryFailed(new Error('driver')).cause instanceof Error, true);
});

test('errorAtPosition keeps offset, line and column only (a span does not leak its end)', () => {
  const span = { offset: 4, line: 1, column: 5, end: 9 };
  assert.equal(errorAtPosition('invalid_relationship', 'no', 'sort', span).toJSON(), {
    code: 'invalid_relationship',
    message: 'no',
    parameter: 'sort',
    position: { offset: 4, line: 1, column: 5 },
  });
  assert.not.ok('position' in errorAtPosition('unknown_field', 'no', 'fields', undefined));
});

test('src/ builds every ListError through a factory of src/errors.ts', () => {
  const src = join(ROOT, 'src');
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  const inline = files
    .map((file) => join(src, file))
    .filter((path) => !path.endsWith(join('src', 'errors.ts')))
    .filter((path) => readFileSync(path, 'utf8').includes('new ListError('))
    .map((path) => relative(ROOT, path));
  assert.equal(inline, []);
});

test.run();
