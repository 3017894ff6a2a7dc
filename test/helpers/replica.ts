/**
 * A real PostgreSQL streaming replica for tests: a private primary and one or more hot standbys started from the
 * installed server binaries (initdb, pg_ctl, pg_basebackup) in a temporary folder, on free ports, with every
 * statement logged (`log_statement = all`) so a test can read which server received what. Starting a primary and
 * two standbys takes about three seconds: the data directories skip fsync, and the base backups use a fast
 * checkpoint.
 *
 * Nothing is skipped: without the binaries (or, as root, without a `postgres` user to own the data directories),
 * startReplicaCluster() throws an error saying what is needed. stop() stops every server and removes the folder; a
 * cluster still running when the process exits (a failed test, an interrupted run) is stopped and removed then.
 *
 * The binaries are looked up in `LISTQL_PG_BINDIR`, else `pg_config --bindir`, else the newest
 * `/usr/lib/postgresql/<version>/bin`.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** One server of the cluster. */
export interface PgServer {
  /** `primary`, `standby1`, `standby2`, … */
  readonly name: string;
  readonly port: number;
  readonly dataDir: string;
  /** Where the server writes its log, every statement included. */
  readonly logFile: string;
  /** A connection URL for `database` (default `postgres`), user postgres, no password. */
  url(database?: string): string;
  /** Whether the server is running (stopServer() and startServer() change it). */
  readonly running: boolean;
}

/** A primary with its streaming standbys. */
export interface ReplicaCluster {
  readonly primary: PgServer;
  readonly standbys: readonly PgServer[];
  /** How long the start took, in milliseconds. */
  readonly startedIn: number;
  /** Run one statement on a server (database `postgres` unless given) with a fresh client; its rows. */
  sql<T = Record<string, unknown>>(
    server: PgServer,
    text: string,
    params?: readonly unknown[],
    database?: string,
  ): Promise<T[]>;
  /** Wait until these standbys (default: all running ones) have replayed everything the primary wrote so far. */
  caughtUp(standbys?: readonly PgServer[], timeoutMs?: number): Promise<void>;
  /** Pause WAL replay on a standby (`pg_wal_replay_pause()`): from now on it lags behind the primary. */
  pauseReplay(standby: PgServer): Promise<void>;
  resumeReplay(standby: PgServer): Promise<void>;
  /** Stop one server (`fast`: sessions are told to end; `immediate`: as if it crashed). */
  stopServer(server: PgServer, mode?: 'fast' | 'immediate'): Promise<void>;
  /** Start a stopped server again; a standby resumes streaming from the primary. */
  startServer(server: PgServer): Promise<void>;
  /** The size of a server's log now: pass it to statements() to read only what came after. */
  logMark(server: PgServer): number;
  /** The statements a server received since `mark` (from its log), in order, with the database they ran in. */
  statements(server: PgServer, mark?: number): LoggedStatement[];
  /** Stop every server and remove the folder. */
  stop(): Promise<void>;
}

/** One statement as a server logged it. */
export interface LoggedStatement {
  readonly database: string;
  /** The SQL text; a simple query may hold several statements separated by `;`. */
  readonly text: string;
  /** The bound values as the log shows them (`$1 = '…', $2 = '…'`), if any. */
  readonly parameters: string;
}

/** Options of startReplicaCluster(). */
export interface ClusterOptions {
  /** How many standbys stream from the primary (default 1). */
  readonly standbys?: number;
  /** Log every statement (default true): statements() reads them; a benchmark turns it off. */
  readonly logStatements?: boolean;
}

interface Live {
  readonly dir: string;
  readonly bin: string;
  readonly servers: ServerState[];
}

interface ServerState extends PgServer {
  running: boolean;
}

const live = new Set<Live>();
let exitHookInstalled = false;

/** Start a primary and `standbys` streaming standbys; resolves once every standby streams. */
export async function startReplicaCluster(options: ClusterOptions = {}): Promise<ReplicaCluster> {
  const started = performance.now();
  const bin = serverBinaries();
  const owner = dataOwner();
  const dir = mkdtempSync(join(tmpdir(), 'lq-rep-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const state: Live = { dir, bin, servers: [] };
  live.add(state);
  installExitHook();
  try {
    const count = options.standbys ?? 1;
    const ports = await freePorts(count + 1);
    const primary = serverState('primary', ports[0]!, dir);
    state.servers.push(primary);
    await asOwner(owner, join(bin, 'initdb'), [
      '-N',
      '-D',
      primary.dataDir,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    // The standbys copy this configuration with the base backup; each gets its own port on the command line.
    appendFileSync(join(primary.dataDir, 'postgresql.conf'), configuration(dir, options.logStatements ?? true));
    await startPostgres(owner, bin, primary);
    const standbys: ServerState[] = [];
    for (let i = 1; i <= count; i++) {
      const standby = serverState(`standby${i}`, ports[i]!, dir);
      state.servers.push(standby);
      await asOwner(owner, join(bin, 'pg_basebackup'), [
        ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', standby.dataDir],
        ...['-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
      ]);
      standbys.push(standby);
    }
    await Promise.all(standbys.map((s) => startPostgres(owner, bin, s)));
    const cluster = clusterOf(state, owner, primary, standbys, performance.now() - started);
    await waitStreaming(cluster, standbys.length);
    return cluster;
  } catch (err) {
    stopNow(state);
    throw err;
  }
}

function clusterOf(
  state: Live,
  owner: Owner | undefined,
  primary: ServerState,
  standbys: ServerState[],
  startedIn: number,
): ReplicaCluster {
  const sql = async <T>(server: PgServer, text: string, params: readonly unknown[] = [], database = 'postgres') => {
    const client = new pg.Client({ connectionString: server.url(database), connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      return (await client.query(text, params as unknown[])).rows as T[];
    } finally {
      await client.end().catch(() => {});
    }
  };
  const cluster: ReplicaCluster = {
    primary,
    standbys,
    startedIn,
    sql,
    async caughtUp(which = standbys.filter((s) => s.running), timeoutMs = 10_000) {
      const [{ lsn }] = (await sql<{ lsn: string }>(primary, 'select pg_current_wal_insert_lsn()::text as lsn')) as [
        { lsn: string },
      ];
      for (const standby of which)
        await poll(`${standby.name} to replay up to ${lsn}`, timeoutMs, async () => {
          const [row] = await sql<{ done: boolean }>(standby, 'select pg_last_wal_replay_lsn() >= $1::pg_lsn as done', [
            lsn,
          ]);
          return row?.done === true;
        });
    },
    // Replay checks for a pause before each WAL record it applies: once requested, nothing more is applied.
    async pauseReplay(standby) {
      await sql(standby, 'select pg_wal_replay_pause()');
    },
    async resumeReplay(standby) {
      await sql(standby, 'select pg_wal_replay_resume()');
    },
    async stopServer(server, mode = 'fast') {
      await asOwner(owner, join(state.bin, 'pg_ctl'), ['-D', server.dataDir, '-m', mode, '-w', 'stop']);
      (server as ServerState).running = false;
    },
    async startServer(server) {
      await startPostgres(owner, state.bin, server as ServerState);
    },
    logMark: (server) => (existsSync(server.logFile) ? statSync(server.logFile).size : 0),
    statements: (server, mark = 0) => parseLog(readFileSync(server.logFile).subarray(mark).toString('utf8')),
    async stop() {
      stopNow(state);
    },
  };
  return cluster;
}

/** The server settings: local TCP only, no durability (a test cluster), every statement logged. */
function configuration(dir: string, logStatements: boolean): string {
  return `
listen_addresses = '127.0.0.1'
unix_socket_directories = '${dir}'
max_connections = 60
shared_buffers = 16MB
fsync = off
full_page_writes = off
hot_standby = on
hot_standby_feedback = on
wal_receiver_status_interval = 1s
log_statement = '${logStatements ? 'all' : 'none'}'
log_line_prefix = '%m [%p] db=%d '
log_min_messages = warning
`;
}

function serverState(name: string, port: number, dir: string): ServerState {
  return {
    name,
    port,
    dataDir: join(dir, name),
    logFile: join(dir, `${name}.log`),
    url: (database = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    running: false,
  };
}

async function startPostgres(owner: Owner | undefined, bin: string, server: ServerState): Promise<void> {
  await asOwner(owner, join(bin, 'pg_ctl'), [
    ...['-D', server.dataDir, '-o', `-p ${server.port}`, '-l', server.logFile, '-w', '-t', '30', 'start'],
  ]);
  server.running = true;
}

async function waitStreaming(cluster: ReplicaCluster, standbys: number): Promise<void> {
  await poll(`${standbys} standbys to stream`, 15_000, async () => {
    const [row] = await cluster.sql<{ n: number }>(
      cluster.primary,
      "select count(*)::int as n from pg_stat_replication where state = 'streaming'",
    );
    return (row?.n ?? 0) >= standbys;
  });
}

async function poll(what: string, timeoutMs: number, done: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await done().catch(() => false)) return;
    if (performance.now() > deadline) throw new Error(`replica cluster: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Split a server log into statements: `statement:` and `execute …:` entries, with their `parameters:` detail. */
function parseLog(text: string): LoggedStatement[] {
  const entries = text.split(/\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \S+ \[\d+\] )/);
  const out: { database: string; text: string; parameters: string }[] = [];
  for (const entry of entries) {
    const m = /^\S+ \S+ \S+ \[\d+\] db=(\S*) (LOG|DETAIL):\s+([\s\S]*)$/.exec(entry.trimEnd());
    if (!m) continue;
    const [, database = '', level, body = ''] = m;
    if (level === 'DETAIL') {
      const last = out.at(-1);
      if (last && body.startsWith('parameters:')) last.parameters = body.slice('parameters:'.length).trim();
      continue;
    }
    const statement = /^(?:statement|execute [^:]*):\s*([\s\S]*)$/.exec(body);
    if (statement) out.push({ database, text: statement[1]!.trim(), parameters: '' });
  }
  return out;
}

interface Owner {
  readonly uid: number;
  readonly gid: number;
}

/**
 * Who runs the servers: initdb refuses root, so as root the data directories belong to the `postgres` user and the
 * commands run through runuser; any other user runs them as itself.
 */
function dataOwner(): Owner | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error(
      'The replica tests run as root, and PostgreSQL refuses to run as root: they need a `postgres` user to own ' +
        'the data directories (the server package creates it; or run the tests as an ordinary user).',
    );
  }
}

async function asOwner(owner: Owner | undefined, command: string, args: string[]): Promise<void> {
  const [file, argv] = owner ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  try {
    await run(file, argv, { timeout: 60_000 });
  } catch (err) {
    const { stderr, message } = err as { stderr?: string; message: string };
    throw new Error(`replica cluster: ${command} failed: ${stderr?.trim() || message}`);
  }
}

/** The folder holding initdb, pg_ctl and pg_basebackup; throws saying what is needed when there is none. */
function serverBinaries(): string {
  const candidates: string[] = [];
  if (process.env.LISTQL_PG_BINDIR) candidates.push(process.env.LISTQL_PG_BINDIR);
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: 'pipe' }).trim());
  } catch {
    // No pg_config on the PATH: look in the Debian layout next.
  }
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian))
    for (const version of readdirSync(debian).sort((a, b) => Number(b) - Number(a)))
      candidates.push(join(debian, version, 'bin'));
  const found = candidates.find((dir) => ['initdb', 'pg_ctl', 'pg_basebackup'].every((b) => existsSync(join(dir, b))));
  if (found) return found;
  throw new Error(
    'The replica tests start their own PostgreSQL primary and streaming standby and need the PostgreSQL server ' +
      'binaries initdb, pg_ctl and pg_basebackup (version 12 or later): install the server package (for example ' +
      '`apt-get install postgresql`) or set LISTQL_PG_BINDIR to the folder that holds them. Looked in: ' +
      (candidates.length ? candidates.join(', ') : '(no pg_config on the PATH, no /usr/lib/postgresql)'),
  );
}

/** Ports nobody listens on right now, chosen by the operating system. */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<import('node:net').Server>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as import('node:net').AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** Stop every server of a cluster at once (as if it crashed: nothing is kept) and remove its folder. */
function stopNow(state: Live): void {
  if (!live.delete(state)) return;
  const owner = safeOwner();
  for (const server of [...state.servers].reverse()) {
    if (!existsSync(join(server.dataDir, 'postmaster.pid'))) continue;
    const args = ['-D', server.dataDir, '-m', 'immediate', '-w', 'stop'];
    try {
      if (owner)
        execFileSync('runuser', ['-u', 'postgres', '--', join(state.bin, 'pg_ctl'), ...args], { stdio: 'ignore' });
      else execFileSync(join(state.bin, 'pg_ctl'), args, { stdio: 'ignore' });
    } catch {
      // Already stopped.
    }
  }
  rmSync(state.dir, { recursive: true, force: true });
}

function safeOwner(): Owner | undefined {
  try {
    return dataOwner();
  } catch {
    return undefined;
  }
}

/** Stop what is still running when the process ends, however it ends. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const state of [...live]) stopNow(state);
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      for (const state of [...live]) stopNow(state);
      process.kill(process.pid, signal);
    });
}

/**
 * A TCP port in front of a database server that a test can take down and bring back: `up` forwards connections,
 * `down` closes the port and drops every open connection (a server that stopped), `hang` accepts connections and
 * drops them after `ms` without a byte (a server that stopped answering). Works for any database protocol.
 */
export interface TcpSwitch {
  readonly port: number;
  /** A copy of `url` (a database URL) pointing at the switch instead of the server. */
  via(url: string): string;
  up(): Promise<void>;
  down(): Promise<void>;
  hang(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Open a switch in front of `127.0.0.1:targetPort`, forwarding (`up`). */
export async function tcpSwitch(targetPort: number): Promise<TcpSwitch> {
  const [port] = (await freePorts(1)) as [number];
  const sockets = new Set<import('node:net').Socket>();
  let mode: { kind: 'up' } | { kind: 'hang'; ms: number } = { kind: 'up' };
  let server: import('node:net').Server | undefined;
  const track = (socket: import('node:net').Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const listen = async () => {
    if (server) return;
    server = createServer((client) => {
      track(client);
      if (mode.kind === 'hang') {
        setTimeout(() => client.destroy(), mode.ms).unref();
        return;
      }
      const upstream = connect(targetPort, '127.0.0.1');
      track(upstream);
      client.pipe(upstream).pipe(client);
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
    const s = server;
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
  };
  const unlisten = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (s) await new Promise((resolve) => s.close(resolve));
  };
  await listen();
  return {
    port,
    via: (url) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async up() {
      mode = { kind: 'up' };
      await listen();
    },
    down: unlisten,
    async hang(ms) {
      await unlisten();
      mode = { kind: 'hang', ms };
      await listen();
    },
    close: unlisten,
  };
}
