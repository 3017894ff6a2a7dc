/**
 * Start the bookstore example (`examples/bookstore/main.ts`) as a child process on a free port, over the database
 * that `env` names (BOOKSTORE_SQLITE or DATABASE_URL), as a newcomer runs it; stop it with SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A running bookstore: its base URL (`http://127.0.0.1:port`), what it printed, and how to stop it. */
export interface RunningBookstore {
  readonly base: string;
  /** The bookstore's process id, to read its memory or see that it still runs. */
  readonly pid: number;
  readonly output: () => string;
  stop(): Promise<void>;
}

/** Start the bookstore with only `env`'s database settings (never the caller's), and wait until it serves. */
export async function startBookstore(env: Record<string, string>): Promise<RunningBookstore> {
  const { DATABASE_URL: _url, BOOKSTORE_SQLITE: _file, BOOKSTORE_CREATE_DB: _create, ...inherited } = process.env;
  const child: ChildProcess = spawn(process.execPath, ['examples/bookstore/main.ts'], {
    cwd: ROOT,
    env: { ...inherited, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (output += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (output += s));
  const deadline = Date.now() + 30_000;
  while (!output.includes('Press Ctrl+C')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`the bookstore did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const base = /listening on (http:\/\/\S+)/.exec(output)![1]!.replace('localhost', '127.0.0.1');
  return {
    base,
    pid: child.pid!,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
