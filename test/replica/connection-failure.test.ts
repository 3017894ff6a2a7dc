/**
 * Which failures move a read to another server (replicaFallback): a server that does not answer, as pg, pg-pool,
 * mysql2 and Node's sockets report it, directly or as the cause of a ListError; never a statement the database
 * refused or stopped, an abort, or a client error. The errors that really occur are produced by the replica tests
 * (fallback.test.ts, failover.test.ts); this table pins the shapes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { invalidParameter, queryFailed, queryTimeout } from '../../src/errors.ts';
import { isConnectionFailure } from '../../src/orm/connection-failure.ts';

function coded(code: string, message = 'x'): Error {
  return Object.assign(new Error(message), { code });
}

const refused = coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5433');

const ROWS: readonly [string, unknown, boolean][] = [
  ['nothing listens (pg, mysql2)', refused, true],
  [
    'both addresses refused (AggregateError)',
    Object.assign(new AggregateError([refused, refused]), { code: undefined }),
    true,
  ],
  ['reset by peer', coded('ECONNRESET'), true],
  ['broken pipe', coded('EPIPE'), true],
  ['socket timeout', coded('ETIMEDOUT'), true],
  ['host unreachable', coded('EHOSTUNREACH'), true],
  ['name does not resolve', coded('ENOTFOUND'), true],
  [
    'standby stopped under the statement (admin shutdown)',
    coded('57P01', 'terminating connection due to administrator command'),
    true,
  ],
  ['crash shutdown', coded('57P02'), true],
  ['starting up', coded('57P03', 'the database system is starting up'), true],
  ['connection exception class 08', coded('08006'), true],
  ['pg: dropped mid-statement', new Error('Connection terminated unexpectedly'), true],
  ['pg-pool: connect timeout', new Error('timeout exceeded when trying to connect'), true],
  ['mysql2: server closed the connection', coded('PROTOCOL_CONNECTION_LOST'), true],
  ['MariaDB shutting down', coded('ER_SERVER_SHUTDOWN'), true],
  ['as the cause of execution_failed', queryFailed(refused), true],
  ['two causes deep', new Error('outer', { cause: new Error('inner', { cause: refused }) }), true],
  ['syntax error', coded('42601', 'syntax error at or near "x"'), false],
  ['permission denied', coded('42501'), false],
  ['statement timeout (pg)', coded('57014', 'canceling statement due to statement timeout'), false],
  ['query_timeout', queryTimeout(5000, coded('57014')), false],
  ['conflict with recovery', coded('40001', 'canceling statement due to conflict with recovery'), false],
  ['too many connections', coded('53300'), false],
  ['MariaDB max_statement_time', coded('ER_STATEMENT_TIMEOUT'), false],
  ['abort', new DOMException('This operation was aborted', 'AbortError'), false],
  ['a client error', invalidParameter('limit', 'bad'), false],
  ['not an error', 'ECONNREFUSED', false],
  ['nothing', undefined, false],
];

test('a server that does not answer, and nothing else, is a connection failure', () => {
  for (const [name, err, expected] of ROWS) assert.is(isConnectionFailure(err), expected, name);
});

test('a cycle of causes ends', () => {
  const a = new Error('a');
  const b = new Error('b', { cause: a });
  Object.assign(a, { cause: b });
  assert.is(isConnectionFailure(a), false);
});

test.run();
