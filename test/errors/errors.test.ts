import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ERROR_STATUS, ListError, positionAt } from '../../src/errors.ts';

test('toJSON is exactly code, message, parameter and position; the cause never leaves', () => {
  const err = new ListError('invalid_syntax', 'expected whitespace', {
    parameter: 'filter',
    position: { offset: 6, line: 1, column: 7 },
    cause: new Error('select * from secret'),
  });
  assert.equal(JSON.parse(JSON.stringify(err)), {
    code: 'invalid_syntax',
    message: 'expected whitespace',
    parameter: 'filter',
    position: { offset: 6, line: 1, column: 7 },
  });
  assert.equal(Object.keys(new ListError('invalid_cursor', 'bad').toJSON()), ['code', 'message']);
  assert.not.ok('parameter' in new ListError('invalid_cursor', 'bad'));
});

test('every code maps to 400 or 500, but query_timeout, replica_lost and overloaded: 503', () => {
  const unavailable = ['query_timeout', 'replica_lost', 'overloaded'];
  for (const [code, status] of Object.entries(ERROR_STATUS)) {
    assert.is(new ListError(code as keyof typeof ERROR_STATUS, 'x').status, status);
    assert.ok(status === 400 || status === 500 || (unavailable.includes(code) && status === 503), code);
  }
  assert.is(ERROR_STATUS.invalid_schema, 500);
  assert.is(ERROR_STATUS.execution_failed, 500);
});

test('client errors carry no stack frames; server errors keep theirs', () => {
  const client = new ListError('limit_exceeded', 'too long');
  assert.not.match(client.stack ?? '', /\n\s+at /);
  const server = new ListError('execution_failed', 'the query failed');
  assert.match(server.stack ?? '', /\n\s+at /);
  assert.is(Error.stackTraceLimit > 0, true, 'the global limit is restored');
});

test('positions count UTF-8 bytes, 1-based lines and byte columns', () => {
  assert.equal(positionAt("a eq 'é'", 7), { offset: 8, line: 1, column: 9 });
  assert.equal(positionAt('a\nb 😀 c', 6), { offset: 8, line: 2, column: 7 });
});

test.run();
