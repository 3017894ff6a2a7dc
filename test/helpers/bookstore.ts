/**
 * Start the bookstore example (`examples/bookstore/main.ts`) as a child process on a free port, over the database
 * that `env` names (BOOKSTORE_SQLITE or DATABASE_URL), as a newcomer runs it; stop it with SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A running bookstore: its base URL (`http://127.0.0.1:port`), what it printed, and how to stop it. */
export interface RunningBookstore {
  readonly base: string;
  /** The bookstore's process id, to read its memory or see that it still runs. */
  readonly pid: number;
  /** Everything it printed, standard output and standard error. */
  readonly output: () => string;
  /** What it printed on standard output alone (its banner and example requests). */
  readonly stdout: () => string;
  /** Stop it with SIGTERM (unless it already exited) and resolve to its exit code. */
  stop(): Promise<number | null>;
}

/** Spawn the bookstore with only `env`'s database settings (never the caller's shell's), on a free port. */
export function spawnBookstore(env: Record<string, string>, stdio: 'pipe' | 'stderr' = 'pipe'): ChildProcess {
  const { DATABASE_URL: _url, BOOKSTORE_SQLITE: _file, BOOKSTORE_CREATE_DB: _create, ...inherited } = process.env;
  return spawn(process.execPath, ['examples/bookstore/main.ts'], {
    cwd: ROOT,
    env: { ...inherited, PORT: '0', ...env },
    stdio: ['ignore', stdio === 'pipe' ? 'pipe' : 'ignore', 'pipe'],
  });
}

/** Start the bookstore with only `env`'s database settings, and wait until it serves. */
export async function startBookstore(env: Record<string, string>): Promise<RunningBookstore> {
  const child = spawnBookstore(env);
  let output = '';
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => {
    output += s;
    stdout += s;
  });
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (output += s));
  const deadline = Date.now() + 30_000;
  while (!stdout.includes('Press Ctrl+C')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`the bookstore did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const base = /listening on (http:\/\/\S+)/.exec(stdout)![1]!.replace('localhost', '127.0.0.1');
  return {
    base,
    pid: child.pid!,
    output: () => output,
    stdout: () => stdout,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
  };
}

/** What a browser test opened: a browser, the bookstore it drives, and the scratch folder of its database. */
export interface BrowserSession {
  dir?: string;
  bookstore?: RunningBookstore;
  browser?: { close(): Promise<void> };
}

/** Close a browser test's session: the browser first, then (even if that fails) the bookstore and its folder. */
export async function closeSession(session: BrowserSession): Promise<void> {
  try {
    await session.browser?.close();
  } finally {
    await session.bookstore?.stop();
    if (session.dir) rmSync(session.dir, { recursive: true, force: true });
  }
}
