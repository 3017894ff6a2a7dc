/**
 * Shared plumbing of the registry checks (`npm run compat`, `npm run check:lock`): timed log lines, commands that
 * fail with the step's name and the end of their output, and scratch directories outside the working tree.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A failed step: its message names the step and carries the end of its output. */
export class StepError extends Error {}

const started = Date.now();
const scratch: string[] = [];

/** Seconds since the process started, for log lines and the closing verdict. */
export function elapsed(): string {
  return ((Date.now() - started) / 1000).toFixed(0);
}

/** Print one progress line, prefixed with the tool's name and the seconds elapsed. */
export function log(message: string, tool = 'compat'): void {
  process.stdout.write(`[${tool} ${elapsed().padStart(4)}s] ${message}\n`);
}

/** The last lines of a command's output worth showing: failing tests first (uvu's `FAIL` lines), then the end. */
export function tail(output: string): string {
  const lines = output.split('\n').filter((line) => !line.startsWith('npm warn'));
  const failures = lines.flatMap((line, i) => (/^\s*FAIL\s/.test(line) ? lines.slice(i, i + 3) : [])).slice(0, 60);
  return [...failures, ...(failures.length ? ['…'] : []), ...lines.slice(-30)].join('\n');
}

/** Run a command and return its stdout; on failure, throw with its last output lines and the step's name. */
export function run(
  step: string,
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): string {
  const res = spawnSync(command, args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (res.status !== 0) {
    const output = `${res.stdout ?? ''}${res.stderr ?? ''}`;
    throw new StepError(
      `${step} failed (${command} ${args.join(' ')}, exit ${res.status ?? res.signal}):\n${tail(output)}`,
    );
  }
  return res.stdout ?? '';
}

/** Make a scratch directory under the system's temporary folder; `removeScratch` deletes them all. */
export function makeScratch(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `listql-compat-${label}-`));
  scratch.push(dir);
  return dir;
}

/** Delete every scratch directory, or (with `keep`) list them. */
export function removeScratch(keep: boolean, tool = 'compat'): void {
  if (keep) log(`kept: ${scratch.join(' ')}`, tool);
  else for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
}

/** Print the verdict of a failed run and set a failing exit code. */
export function reportFailure(err: unknown, tool = 'compat'): void {
  const message = err instanceof StepError ? err.message : ((err as Error).stack ?? String(err));
  process.stderr.write(`\n[${tool}] FAIL after ${elapsed()}s: ${message}\n`);
  process.exitCode = 1;
}
