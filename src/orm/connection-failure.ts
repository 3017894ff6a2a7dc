/**
 * Tell a server that does not answer from every other failure. Only such failures move a read to another server:
 * a statement the database refused (a syntax error, a constraint, a permission), a statement it stopped (the
 * statement timeout, a cancel), an abort and a client error would fail the same way anywhere, and a retry would
 * double their cost.
 *
 * Checked against pg 8.23 (through Kysely and MikroORM 7.2.1) and mysql2 3.24: the driver's error reaches listql as
 * it is, or as the `cause` of a ListError.
 */

/** Socket-level failures: nothing listens, the peer reset or went away, the name or route does not resolve. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  // mysql2: the server closed the connection, or a pooled connection was found dead.
  'PROTOCOL_CONNECTION_LOST',
  'ER_SERVER_SHUTDOWN',
]);

/**
 * PostgreSQL's SQLSTATEs of a server that is going away or not there yet: `57P01` admin shutdown (a standby
 * stopped with `pg_ctl stop -m fast`), `57P02` crash shutdown, `57P03` cannot connect now (starting up or shutting
 * down), and class `08`, connection exceptions.
 */
const SERVER_GONE = /^(57P0[123]|08...)$/;

/** Messages of pg and pg-pool that carry no code: a connection dropped mid-statement, or never established in time. */
const MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error and is not queryable/,
  /^Connection lost: The server closed the connection/,
];

/**
 * Whether `err` (or an error in its `cause` chain, or among an AggregateError's errors) says that the server did not
 * answer: refused, reset or dropped the connection, or is shutting down. Never true for a ListError's own code.
 */
export function isConnectionFailure(err: unknown, depth = 0): boolean {
  if (depth > 4 || typeof err !== 'object' || err === null) return false;
  const { code, message, cause, errors } = err as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_GONE.test(code))) return true;
  if (typeof message === 'string' && MESSAGES.some((m) => m.test(message))) return true;
  if (Array.isArray(errors) && errors.some((e) => isConnectionFailure(e, depth + 1))) return true;
  return isConnectionFailure(cause, depth + 1);
}
