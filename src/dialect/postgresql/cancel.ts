import { CompiledQuery, type DatabaseConnection, type Kysely } from 'kysely';

/**
 * The parts of a `pg` pool (pg-pool, which MikroORM's PostgreSQL driver creates) and of its clients this module
 * uses. listql does not import `pg`: it uses the pool the application's MikroORM already has.
 */
export interface PgPool {
  /** The client class and the settings the pool connects with (host, port, ssl, …). */
  readonly Client?: new (
    options: object,
  ) => PgClient;
  readonly options?: object;
  /** Every client the pool holds, idle or lent out. */
  readonly _clients?: readonly PgClient[];
}

interface PgClient {
  readonly processID?: number | null;
  readonly secretKey?: number | null;
  readonly host?: string;
  readonly port?: number;
  readonly connection?: PgWire;
}

/** pg's protocol connection: it speaks the startup messages, the cancel request among them. */
interface PgWire {
  readonly ssl?: unknown;
  readonly stream?: { destroy(): void; once(event: 'close', listener: () => void): void };
  connect(port: number | string, host?: string): void;
  requestSsl(): void;
  cancel(processID: number, secretKey: number): void;
  on(event: string, listener: (...args: unknown[]) => void): void;
  once(event: string, listener: (...args: unknown[]) => void): void;
}

/** Longest a cancel request may take before the connection it is for goes back to the pool anyway. */
const CANCEL_WAIT_MS = 2000;

/** The server process id of each of Kysely's connection objects, read once per connection. */
const pids = new WeakMap<DatabaseConnection, number>();

/**
 * The backend process id of `connection`: one `pg_backend_pid()` round trip the first time only, sent to the driver's
 * connection itself (a Kysely plugin could rename the column it reads).
 */
export async function sessionPid(connection: DatabaseConnection): Promise<number | undefined> {
  const known = pids.get(connection);
  if (known !== undefined) return known;
  const { rows } = await connection.executeQuery<{ listql_backend_pid: unknown }>(
    CompiledQuery.raw('select pg_backend_pid() as listql_backend_pid'),
  );
  const pid = Number(rows[0]?.listql_backend_pid);
  if (!Number.isSafeInteger(pid)) return undefined;
  pids.set(connection, pid);
  return pid;
}

/** Whether each pool (by its connection's Kysely) can cancel on a socket of its own, found out once per pool. */
const capable = new WeakMap<Kysely<any>, Promise<boolean>>();

/**
 * Whether a cancel for a statement of `run.root` can go out on a socket of its own: the pool is pg's (its client
 * class, options and clients), and its clients talk to PostgreSQL itself (a connection's `pg_backend_pid()` is the
 * process id its client got at startup; behind a pooler such as PgBouncer it is not, and a cancel could not name the
 * backend). Only then may a client timer stand for the server's statement_timeout. Found out once per pool, on the
 * statement's own connection when it is a caller's transaction (one `pg_backend_pid()`, which a cancel reuses).
 * Rejects when the connection fails: that is the statement's failure, and the next statement asks again.
 */
export function cancelsOnOwnSocket(run: {
  readonly root: Kysely<any>;
  readonly client: Kysely<any>;
  readonly nativeClient: () => Promise<unknown> | undefined;
}): Promise<boolean> {
  let known = capable.get(run.root);
  if (!known) {
    known = probe(run);
    // Asked again by a later statement: the connection failed, not the pool. The failure is the statement's own
    // (a replica that stops answering is a lost connection, which replicaFallback acts on), not a verdict.
    known.catch(() => capable.delete(run.root));
    capable.set(run.root, known);
  }
  return known;
}

async function probe(run: Parameters<typeof cancelsOnOwnSocket>[0]): Promise<boolean> {
  const pool = (await run.nativeClient()) as PgPool | undefined;
  if (typeof pool?.Client !== 'function' || typeof pool.options !== 'object' || !Array.isArray(pool._clients))
    return false;
  const pid = await (run.client.isTransaction ? run.client : run.root)
    .getExecutor()
    .provideConnection((connection) => sessionPid(connection));
  return pid !== undefined && (pool._clients ?? []).some((client) => client.processID === pid);
}

/**
 * Cancel what the backend `pid` runs with PostgreSQL's cancel request: a new socket to the server carrying the
 * backend's process id and secret key (as `psql` does on Ctrl-C), never a pooled connection, so a cancel is not held
 * up when every pooled connection is busy (perhaps with the very statements being cancelled). Resolves true once the
 * server has closed that socket (it has then signalled the backend) or CANCEL_WAIT_MS passed, and false when the
 * pool does not expose pg's members (the caller then cancels another way). Never rejects.
 */
export async function cancelOwnSocket(
  pool: Promise<PgPool | undefined> | undefined,
  pid: number | undefined,
): Promise<boolean> {
  const found = await Promise.resolve(pool).catch(() => undefined);
  const target = pid === undefined ? undefined : found?._clients?.find((client) => client.processID === pid);
  const Client = found?.Client;
  if (!found || !target || typeof Client !== 'function' || typeof target.secretKey !== 'number') return false;
  let canceller: PgClient;
  try {
    // pg-pool keeps `password` out of its options' enumerable members (a cancel request sends none anyway).
    canceller = new Client({ ...found.options, password: (found.options as { password?: unknown }).password });
  } catch {
    return false;
  }
  const wire = canceller.connection;
  if (!wire || typeof wire.cancel !== 'function') return false;
  const secret = target.secretKey;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(finish, CANCEL_WAIT_MS);
    function finish() {
      clearTimeout(timer);
      wire?.stream?.destroy();
      resolve();
    }
    wire.on('error', finish);
    wire.once('end', finish);
    // An SSL connection asks for SSL first, as the server expects of every startup packet on it.
    wire.once('connect', () => (wire.ssl ? wire.requestSsl() : wire.cancel(pid!, secret)));
    wire.once('sslconnect', () => wire.cancel(pid!, secret));
    const { host, port } = canceller;
    if (host?.startsWith('/')) wire.connect(`${host}/.s.PGSQL.${port}`);
    else wire.connect(port ?? 5432, host);
    wire.stream?.once('close', finish);
  });
  return true;
}
